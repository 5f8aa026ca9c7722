"""Exceptions raised by the Python layers (the loader's own come from the native core)."""

from batchloader._core import BatchLoaderError, SchemaConflictError


class ProjectionError(BatchLoaderError, ValueError):
    """A malformed projection list; the message gives the path and the position."""


class InputError(BatchLoaderError):
    """Bad input data: the message names the file, line and column."""


__all__ = ["InputError", "ProjectionError", "SchemaConflictError"]
