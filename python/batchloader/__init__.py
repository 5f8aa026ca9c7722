"""batchloader: memory-bounded Apache Arrow record batches from row-by-row data.

A port of Apache Drill's result set loader to Arrow and PySpark, with a Rust core. See
``ResultSetLoader`` for the row writer.
"""

from batchloader._core import (
    BatchIterator,
    BatchLoaderError,
    ColumnWriter,
    LoaderStateError,
    ResultSetLoader,
    RowTooLargeError,
    RowWriter,
    SchemaConflictError,
)

__all__ = [
    "BatchIterator",
    "BatchLoaderError",
    "ColumnWriter",
    "LoaderStateError",
    "ResultSetLoader",
    "RowTooLargeError",
    "RowWriter",
    "SchemaConflictError",
]

__version__ = "0.1.0"
