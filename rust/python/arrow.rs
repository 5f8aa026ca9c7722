//! Arrow across the boundary: schemas in through `__arrow_c_schema__`, batches out through
//! `__arrow_c_array__` (the Arrow PyCapsule interface), so arrow-rs and pyarrow versions stay
//! independent.

use std::sync::{Arc, Mutex};

use arrow_array::ffi::{to_ffi, FFI_ArrowSchema};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Schema};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyTuple};

/// Read the Arrow schema a Python object exports (`pa.Schema`, `pa.Field`, `pa.DataType`).
fn import_schema_capsule<T>(
    obj: &Bound<'_, PyAny>,
    convert: impl FnOnce(&FFI_ArrowSchema) -> Result<T, arrow_schema::ArrowError>,
) -> PyResult<T> {
    if !obj.hasattr("__arrow_c_schema__")? {
        return Err(PyTypeError::new_err(format!(
            "expected a pyarrow schema, field or type, got {}",
            obj.get_type().name()?
        )));
    }
    let capsule = obj.call_method0("__arrow_c_schema__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let ptr = capsule.pointer_checked(Some(c"arrow_schema"))?;
    // SAFETY: the capsule named "arrow_schema" holds an ArrowSchema owned by the capsule,
    // alive while we hold it; we only read it (no move, so no double release).
    let ffi = unsafe { ptr.cast::<FFI_ArrowSchema>().as_ref() };
    convert(ffi).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A `pa.Schema` as an arrow-rs schema.
pub(crate) fn schema_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Schema> {
    import_schema_capsule(obj, |s| Schema::try_from(s))
}

/// A `pa.Field` as an arrow-rs field.
pub(crate) fn field_from_py(obj: &Bound<'_, PyAny>) -> PyResult<Field> {
    import_schema_capsule(obj, |s| Field::try_from(s))
}

/// A `pa.DataType` as an arrow-rs type.
#[allow(dead_code)]
pub(crate) fn type_from_py(obj: &Bound<'_, PyAny>) -> PyResult<DataType> {
    import_schema_capsule(obj, |s| DataType::try_from(s))
}

/// An array (a record batch as a struct array) waiting to be imported by pyarrow (exported
/// once, zero-copy).
#[pyclass(module = "batchloader._core", name = "ArrowArrayExport", frozen)]
pub struct ArrowArrayExport {
    array: Mutex<Option<ArrayRef>>,
}

#[pymethods]
impl ArrowArrayExport {
    /// The Arrow PyCapsule protocol: the (schema, array) pair.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let array = self
            .array
            .lock()
            .map_err(|_| PyValueError::new_err("poisoned"))?
            .take()
            .ok_or_else(|| PyValueError::new_err("this array was already exported"))?;
        let (ffi_array, ffi_schema) =
            to_ffi(&array.to_data()).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let schema = PyCapsule::new_with_value(py, ffi_schema, c"arrow_schema")?;
        let array = PyCapsule::new_with_value(py, ffi_array, c"arrow_array")?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }
}

static RECORD_BATCH: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static ARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Hand `array` to pyarrow's `name` (`record_batch`, `array`; looked up once, kept in
/// `cached`) through the PyCapsule interface, without copying its buffers.
fn to_pyarrow<'py>(
    py: Python<'py>,
    cached: &PyOnceLock<Py<PyAny>>,
    name: &str,
    array: ArrayRef,
) -> PyResult<Bound<'py, PyAny>> {
    let constructor = cached.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("pyarrow")?.getattr(name)?.unbind())
    })?;
    let export = Bound::new(
        py,
        ArrowArrayExport {
            array: Mutex::new(Some(array)),
        },
    )?;
    constructor.bind(py).call1((export,))
}

/// Turn an arrow-rs batch into a `pyarrow.RecordBatch` without copying its buffers.
pub(crate) fn batch_to_py(py: Python<'_>, batch: RecordBatch) -> PyResult<Bound<'_, PyAny>> {
    let array = Arc::new(StructArray::from(batch));
    to_pyarrow(py, &RECORD_BATCH, "record_batch", array)
}

/// `n` copies of `value` as a `pyarrow.StringArray` (a scan's implicit file column); `None`
/// if they would not fit utf8 offsets.
#[pyfunction]
pub(crate) fn repeat_utf8<'py>(
    py: Python<'py>,
    value: &str,
    n: usize,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match crate::repeat::repeat_utf8(value, n) {
        Some(array) => to_pyarrow(py, &ARRAY, "array", Arc::new(array)).map(Some),
        None => Ok(None),
    }
}
