//! Schema discovery: the Arrow field a Python value implies, for loaders without a schema.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, TimeUnit};
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyBytes, PyDate, PyDateTime, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
    PyTzInfoAccess,
};

use super::convert::{is_decimal, is_numpy_array, numpy_number, short_repr, type_name};
use crate::loader::{unknown_element_type, Projection};

/// A step from a column to one nested in it: a struct member or a list's element.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    Member(String),
    Element,
}

/// The lists whose element type was a guess (they were seen empty), by path from the column.
pub(crate) type Guesses = Vec<Vec<Step>>;

/// The (nullable) field a column named `name`, projected as `projection`, gets from its first
/// non-null `value`, and the lists in it whose element type is a guess (a list seen empty
/// takes the element shape its projection implies, as the NDJSON reader's does). `Ok(None)`
/// when `value` is None: the column waits for a value that says its type.
pub(crate) fn infer_field(
    name: &str,
    value: &Bound<'_, PyAny>,
    projection: &Projection,
) -> Result<Option<(Field, Guesses)>, String> {
    if value.is_none() {
        return Ok(None);
    }
    let mut guesses = Vec::new();
    let dt = infer_type(value, projection, &mut Vec::new(), &mut guesses)?;
    Ok(Some((Field::new(name, dt, true), guesses)))
}

/// The type `value` implies, projected as `projection`; `path` leads to it from the column,
/// and the lists under it seen empty are added to `guesses`.
fn infer_type(
    value: &Bound<'_, PyAny>,
    projection: &Projection,
    path: &mut Vec<Step>,
    guesses: &mut Guesses,
) -> Result<DataType, String> {
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
    } else if let Some(number) = numpy_number(value).map_err(py_err)? {
        return infer_type(&number, projection, path, guesses);
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
            if v.is_none() {
                continue;
            }
            let name = key.to_str().map_err(py_err)?;
            // a member left out is dropped when the column is added: its shape is its own
            let member = projection.member(name).unwrap_or(&Projection::All);
            path.push(Step::Member(name.to_string()));
            let dt = infer_type(&v, member, path, guesses)?;
            path.pop();
            members.push(Field::new(name, dt, true));
        }
        DataType::Struct(Fields::from(members))
    } else if value.is_instance_of::<PyList>()
        || value.is_instance_of::<PyTuple>()
        || is_numpy_array(value).map_err(py_err)?
    {
        let mut element = None;
        for item in value.try_iter().map_err(py_err)? {
            let item = item.map_err(py_err)?;
            if !item.is_none() {
                path.push(Step::Element);
                element = Some(infer_type(&item, projection.element(), path, guesses)?);
                path.pop();
                break;
            }
        }
        if element.is_none() {
            guesses.push(path.clone());
        }
        DataType::List(Arc::new(Field::new(
            "item",
            element.unwrap_or_else(|| unknown_element_type(projection.element(), &DataType::Utf8)),
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

/// The element type an element value implies, for a list whose element type was a guess and
/// whose elements are projected as `projection`.
pub(crate) fn infer_element(
    value: &Bound<'_, PyAny>,
    projection: &Projection,
) -> Result<(Field, Guesses), String> {
    let mut guesses = Vec::new();
    let dt = infer_type(value, projection, &mut vec![Step::Element], &mut guesses)?;
    // Paths are relative to the list: drop the leading Element step.
    let guesses = guesses.into_iter().map(|g| g[1..].to_vec()).collect();
    Ok((Field::new("item", dt, true), guesses))
}
