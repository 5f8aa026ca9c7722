//! Python access to the Rust readers: fill a loader's batch from a file, GIL released.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use super::errors::to_pyerr;
use super::writers::PyResultSetLoader;
use crate::readers::{InputError, NdjsonReader, OnError, ReadError};

static INPUT_ERROR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `batchloader.InputError(message)` (defined in Python, next to the other Python errors).
fn input_error(py: Python<'_>, e: InputError) -> PyErr {
    let class = INPUT_ERROR.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py
            .import("batchloader.errors")?
            .getattr("InputError")?
            .unbind())
    });
    match class.and_then(|c| c.bind(py).call1((e.to_string(),))) {
        Ok(err) => PyErr::from_value(err),
        Err(err) => err,
    }
}

/// Reads one NDJSON file (plain, `.gz`, `.zst`) into a loader, a batch at a time.
#[pyclass(module = "batchloader._core", name = "NdjsonReader", unsendable)]
pub struct PyNdjsonReader {
    inner: NdjsonReader,
}

#[pymethods]
impl PyNdjsonReader {
    #[new]
    #[pyo3(signature = (path, on_error="error", discover=true))]
    fn new(py: Python<'_>, path: &str, on_error: &str, discover: bool) -> PyResult<Self> {
        let on_error = OnError::parse(on_error).ok_or_else(|| {
            PyValueError::new_err(format!(
                "on_error must be 'error', 'skip' or 'permissive', not {on_error:?}"
            ))
        })?;
        let inner = NdjsonReader::open(path, on_error, discover).map_err(|e| input_error(py, e))?;
        Ok(PyNdjsonReader { inner })
    }

    /// Fill the loader's current batch; True if it filled up and input remains.
    fn fill(&mut self, py: Python<'_>, loader: &Bound<'_, PyResultSetLoader>) -> PyResult<bool> {
        let mut l = loader.borrow_mut();
        let inner = &mut self.inner;
        let loader = &mut l.inner;
        match py.detach(|| inner.fill(loader)) {
            Ok(more) => Ok(more),
            Err(ReadError::Input(e)) => Err(input_error(py, e)),
            Err(ReadError::Loader(e)) => Err(to_pyerr(e)),
        }
    }

    /// Lines skipped as bad (on_error="skip").
    #[getter]
    fn skipped_lines(&self) -> u64 {
        self.inner.skipped_lines()
    }

    /// Lines read so far, blank ones included.
    #[getter]
    fn lines_read(&self) -> u64 {
        self.inner.lines_read()
    }

    /// Rows written so far.
    #[getter]
    fn rows_written(&self) -> u64 {
        self.inner.rows_written()
    }
}
