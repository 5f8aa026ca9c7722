"""batchloader: memory-bounded Apache Arrow record batches from row-by-row data.

A port of Apache Drill's result set loader to Arrow and PySpark, with a Rust core. See
``ResultSetLoader`` for the row writer.
"""

from typing import TYPE_CHECKING

from batchloader._core import (
    COMPRESSED_SUFFIXES,
    BatchIterator,
    BatchLoaderError,
    ColumnWriter,
    FileReader,
    LoaderStateError,
    ResultSetLoader,
    RowTooLargeError,
    RowWriter,
    SchemaConflictError,
)
from batchloader.errors import InputError, ProjectionError
from batchloader.projection import ProjectedColumn, Projection, parse_projection
from batchloader.scan import Scan, ScanFile
from batchloader.schema import ImplicitColumns, OutputColumn, ScanSchemaTracker

if TYPE_CHECKING:  # imported lazily at run time (see __getattr__)
    from batchloader.session.session import Session

__all__ = [
    "COMPRESSED_SUFFIXES",
    "BatchIterator",
    "BatchLoaderError",
    "ColumnWriter",
    "FileReader",
    "ImplicitColumns",
    "InputError",
    "LoaderStateError",
    "OutputColumn",
    "ProjectedColumn",
    "Projection",
    "ProjectionError",
    "ResultSetLoader",
    "RowTooLargeError",
    "RowWriter",
    "Scan",
    "ScanFile",
    "ScanSchemaTracker",
    "SchemaConflictError",
    "Session",
    "parse_projection",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Session needs sqlglot and pyspark: imported on first use, not with the package.
    if name == "Session":
        from batchloader.session import Session

        return Session
    raise AttributeError(f"module 'batchloader' has no attribute {name!r}")
