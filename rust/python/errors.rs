//! Python exception classes and the mapping from [`LoaderError`].

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::PyErr;

use crate::loader::LoaderError;

create_exception!(
    batchloader,
    BatchLoaderError,
    PyException,
    "Base class of every batchloader error."
);
create_exception!(
    batchloader,
    LoaderStateError,
    BatchLoaderError,
    "The loader's lifecycle was misused (save without start, harvest twice, use after close)."
);
create_exception!(
    batchloader,
    SchemaConflictError,
    BatchLoaderError,
    "A value of the wrong type, a duplicate column, a type the loader cannot write."
);
create_exception!(
    batchloader,
    RowTooLargeError,
    BatchLoaderError,
    "A row that cannot fit even an empty batch; the row is discarded."
);

/// The Python exception for a loader error.
pub(crate) fn to_pyerr(e: LoaderError) -> PyErr {
    match e {
        LoaderError::State(m) => LoaderStateError::new_err(m),
        LoaderError::SchemaConflict(m) => SchemaConflictError::new_err(m),
        e @ LoaderError::GivenTwice(_) => SchemaConflictError::new_err(e.to_string()),
        LoaderError::RowTooLarge(m) => RowTooLargeError::new_err(m),
        LoaderError::InvalidArgument(m) => PyValueError::new_err(m),
    }
}
