"""batchloader: memory-bounded Apache Arrow record batches from row-by-row data.

A port of Apache Drill's result set loader to Arrow and PySpark, with a Rust core. See
``ResultSetLoader`` for the row writer.
"""

from batchloader._core import (
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

__all__ = [
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
    "parse_projection",
]

__version__ = "0.1.0"
