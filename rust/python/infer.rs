//! Schema discovery: the Arrow field a Python value implies, for loaders without a schema.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, TimeUnit};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyBytes, PyDate, PyDateTime, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
    PyTzInfoAccess,
};

use super::convert::{is_decimal, short_repr, type_name};

/// The type of values seen only as empty lists (DESIGN.md: the scan's default null type).
const UNKNOWN: DataType = DataType::Utf8;

/// The (nullable) field a column named `name` gets from its first non-null `value`.
/// `Ok(None)` when `value` is None: the column waits for a value that says its type.
pub(crate) fn infer_field(name: &str, value: &Bound<'_, PyAny>) -> Result<Option<Field>, String> {
    if value.is_none() {
        return Ok(None);
    }
    Ok(Some(Field::new(name, infer_type(value)?, true)))
}

fn infer_type(value: &Bound<'_, PyAny>) -> Result<DataType, String> {
    let py_err = |e: PyErr| e.to_string();
    Ok(if value.is_instance_of::<PyBool>() {
        DataType::Boolean
    } else if value.is_instance_of::<PyInt>() {
        DataType::Int64
    } else if value.is_instance_of::<PyFloat>() {
        DataType::Float64
    } else if value.is_instance_of::<PyString>() {
        DataType::Utf8
    } else if value.is_instance_of::<PyBytes>() {
        DataType::Binary
    } else if let Ok(dt) = value.cast::<PyDateTime>() {
        let tz = dt.get_tzinfo().map(|_| Arc::<str>::from("UTC"));
        DataType::Timestamp(TimeUnit::Microsecond, tz)
    } else if value.is_instance_of::<PyDate>() {
        DataType::Date32
    } else if is_decimal(value).map_err(py_err)? {
        let exponent: i64 = value
            .call_method0("as_tuple")
            .and_then(|t| t.getattr("exponent"))
            .and_then(|e| e.extract())
            .unwrap_or(0);
        DataType::Decimal128(38, (-exponent).clamp(0, 37) as i8)
    } else if let Ok(dict) = value.cast::<PyDict>() {
        let mut members = Vec::new();
        for (k, v) in dict.iter() {
            let key = k
                .cast::<PyString>()
                .map_err(|_| format!("struct keys must be strings, got {}", short_repr(&k)))?;
            if let Some(f) = infer_field(key.to_str().map_err(py_err)?, &v)? {
                members.push(f);
            }
        }
        DataType::Struct(Fields::from(members))
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut element = None;
        for item in value.try_iter().map_err(py_err)? {
            let item = item.map_err(py_err)?;
            if !item.is_none() {
                element = Some(infer_type(&item)?);
                break;
            }
        }
        DataType::List(Arc::new(Field::new(
            "item",
            element.unwrap_or(UNKNOWN),
            true,
        )))
    } else {
        return Err(format!(
            "cannot infer a column type from {} value {}",
            type_name(value),
            short_repr(value)
        ));
    })
}
