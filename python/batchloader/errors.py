"""Exceptions raised by the Python layers (the loader's own come from the native core)."""

from batchloader._core import BatchLoaderError, SchemaConflictError


class ProjectionError(BatchLoaderError, ValueError):
    """A malformed projection list; the message gives the path and the position."""


class InputError(BatchLoaderError):
    """Bad input data: the message names the file, line and column, and so do the
    attributes: `path`, `line` (1-based; 0 when the file could not be read at all),
    `column` (1-based byte column in the line, or None), `reason` (what is wrong, without
    the place), `excerpt` (the text around the column, or "") and `unreadable` (the file
    could not be read from there on: it could not be opened, decompressed or fetched, as
    opposed to bad text in it; what `ignore_corrupt_files` passes over)."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int = 0,
        column: int | None = None,
        reason: str | None = None,
        excerpt: str = "",
        unreadable: bool = False,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column
        self.reason = message if reason is None else reason
        self.excerpt = excerpt
        self.unreadable = unreadable


class SessionError(BatchLoaderError):
    """A temporary-table session refused a statement or could not start."""


class WorkspaceError(SessionError):
    """The temporary workspace is missing, not on a file system, or not writable."""


class ValidationError(SessionError, ValueError):
    """A statement breaks a rule of temporary tables (Drill's messages)."""


class TableNotFoundError(SessionError):
    """DROP TABLE of a table that exists neither as a temporary table nor in the catalog."""


__all__ = [
    "InputError",
    "ProjectionError",
    "SchemaConflictError",
    "SessionError",
    "TableNotFoundError",
    "ValidationError",
    "WorkspaceError",
]
