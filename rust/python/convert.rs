//! Python scalars into loader values, with fast paths for exact built-in types.

use arrow_schema::{DataType, TimeUnit};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyBytes, PyDate, PyDateTime, PyDelta, PyDeltaAccess, PyFloat, PyInt, PyString,
    PyTzInfoAccess,
};
use pyo3::types::{PyDateAccess, PyTimeAccess};

use crate::loader::{
    days_from_civil, parse_decimal, ColumnId, LoaderError, ResultSetLoader, Value,
};

/// A failed write: the loader's own error, or a Python error (e.g. from the user's iterator).
pub(crate) enum WriteError {
    Loader(LoaderError),
    Py(PyErr),
}

impl From<LoaderError> for WriteError {
    fn from(e: LoaderError) -> Self {
        WriteError::Loader(e)
    }
}

impl From<PyErr> for WriteError {
    fn from(e: PyErr) -> Self {
        WriteError::Py(e)
    }
}

impl WriteError {
    /// Prefix the message (row numbers); Python errors pass through unchanged.
    pub(crate) fn context(self, prefix: &str) -> Self {
        match self {
            WriteError::Loader(e) => WriteError::Loader(e.with_prefix(prefix)),
            py => py,
        }
    }

    pub(crate) fn into_pyerr(self) -> PyErr {
        match self {
            WriteError::Loader(e) => super::errors::to_pyerr(e),
            WriteError::Py(e) => e,
        }
    }
}

pub(crate) type WriteResult = Result<(), WriteError>;

pub(crate) fn short_repr(obj: &Bound<'_, PyAny>) -> String {
    let r = obj
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unrepresentable>".into());
    if r.chars().count() > 80 {
        let cut: String = r.chars().take(80).collect();
        format!("{cut}...")
    } else {
        r
    }
}

pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

pub(crate) fn conflict(
    l: &ResultSetLoader,
    id: ColumnId,
    obj: &Bound<'_, PyAny>,
    why: &str,
) -> WriteError {
    WriteError::Loader(LoaderError::SchemaConflict(format!(
        "column '{}' ({}) cannot take {} value {}: {why}",
        l.path(id),
        l.field(id).data_type(),
        type_name(obj),
        short_repr(obj)
    )))
}

static DECIMAL: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

pub(crate) fn is_decimal(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    let decimal = DECIMAL.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("decimal")?.getattr("Decimal")?.unbind())
    })?;
    obj.is_instance(decimal.bind(py))
}

/// The NumPy classes the conversions recognise.
struct NumPy {
    /// `numpy.floating`
    floating: Py<PyAny>,
    /// (`numpy.integer`, `numpy.floating`, `numpy.bool_`)
    numbers: Py<PyAny>,
    /// `numpy.ndarray`
    ndarray: Py<PyAny>,
}

static NUMPY: PyOnceLock<NumPy> = PyOnceLock::new();

/// Whether `obj`'s class is NumPy's (checked by module: NumPy is never imported for this,
/// an object NumPy made means NumPy is loaded). A class without a module is not.
fn is_from_numpy(obj: &Bound<'_, PyAny>) -> bool {
    let module = obj.get_type().module();
    module.is_ok_and(|m| m.to_str().is_ok_and(|m| m == "numpy"))
}

/// NumPy's classes (NumPy is loaded: `is_from_numpy` said so).
fn numpy(py: Python<'_>) -> PyResult<&NumPy> {
    NUMPY.get_or_try_init(py, || {
        let np = py.import("numpy")?;
        let floating = np.getattr("floating")?;
        let numbers = (
            np.getattr("integer")?,
            floating.clone(),
            np.getattr("bool_")?,
        );
        Ok(NumPy {
            floating: floating.unbind(),
            numbers: numbers.into_pyobject(py)?.into_any().unbind(),
            ndarray: np.getattr("ndarray")?.unbind(),
        })
    })
}

/// Whether `obj` is an instance of NumPy's class `which` (false if `obj` is not NumPy's).
fn is_numpy(obj: &Bound<'_, PyAny>, which: impl FnOnce(&NumPy) -> &Py<PyAny>) -> PyResult<bool> {
    if !is_from_numpy(obj) {
        return Ok(false);
    }
    obj.is_instance(which(numpy(obj.py())?).bind(obj.py()))
}

/// A NumPy integer, float or bool as the Python int, float or bool it holds (`None`: `obj`
/// is no NumPy number). Rows built from NumPy data hold these, and pyarrow takes them.
pub(crate) fn numpy_number<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    if is_numpy(obj, |np| &np.numbers)? {
        Ok(Some(obj.call_method0("item")?))
    } else {
        Ok(None)
    }
}

/// Whether `obj` is a NumPy array (discovery reads it as a list, as pyarrow does).
pub(crate) fn is_numpy_array(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    is_numpy(obj, |np| &np.ndarray)
}

/// Whether `obj` is a Python or NumPy float (what widens a discovered int64 column).
pub(crate) fn is_float(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if obj.is_instance_of::<PyFloat>() {
        return Ok(true);
    }
    if obj.is_exact_instance_of::<PyInt>() {
        return Ok(false);
    }
    is_numpy(obj, |np| &np.floating)
}

fn utc_micros(dt: &Bound<'_, PyDateTime>) -> PyResult<i64> {
    let days = days_from_civil(
        dt.get_year() as i64,
        dt.get_month() as i64,
        dt.get_day() as i64,
    );
    let secs = days * 86400
        + dt.get_hour() as i64 * 3600
        + dt.get_minute() as i64 * 60
        + dt.get_second() as i64;
    let mut micros = secs * 1_000_000 + dt.get_microsecond() as i64;
    if dt.get_tzinfo().is_some() {
        let offset = dt.call_method0("utcoffset")?;
        if let Ok(delta) = offset.cast::<PyDelta>() {
            micros -= (delta.get_days() as i64 * 86400 + delta.get_seconds() as i64) * 1_000_000
                + delta.get_microseconds() as i64;
        }
    }
    Ok(micros)
}

fn micros_to_unit(micros: i64, unit: TimeUnit) -> Option<i64> {
    match unit {
        TimeUnit::Second => Some(micros.div_euclid(1_000_000)),
        TimeUnit::Millisecond => Some(micros.div_euclid(1_000)),
        TimeUnit::Microsecond => Some(micros),
        TimeUnit::Nanosecond => micros.checked_mul(1_000),
    }
}

fn date_days(d: &Bound<'_, PyAny>) -> PyResult<i64> {
    let d = d.cast::<PyDate>()?;
    Ok(days_from_civil(
        d.get_year() as i64,
        d.get_month() as i64,
        d.get_day() as i64,
    ))
}

/// Convert a Python scalar for column `id` and write it. Exact `str`, `float` and `int` and
/// `None` take an inlined path; everything else goes through [`write_other_scalar`].
#[inline(always)]
pub(crate) fn write_scalar(
    l: &mut ResultSetLoader,
    id: ColumnId,
    obj: &Bound<'_, PyAny>,
) -> WriteResult {
    if let Ok(s) = obj.cast_exact::<PyString>() {
        if let Ok(text) = s.to_str() {
            return set_checked(l, id, obj, Value::Str(text));
        }
    } else if let Ok(f) = obj.cast_exact::<PyFloat>() {
        return set_checked(l, id, obj, Value::Float(f.value()));
    } else if obj.is_none() {
        return set_checked(l, id, obj, Value::Null);
    } else if obj.is_exact_instance_of::<PyInt>() {
        if let Some(i) = exact_int_i64(obj) {
            return set_checked(l, id, obj, Value::Int(i));
        }
    }
    // may run Python code (`__index__`, `utcoffset`...): own `obj`, which may be borrowed
    write_other_scalar(l, id, &obj.clone())
}

/// An exact `int` as i64, `None` if it does not fit. One C call that reports overflow in a
/// flag (an exact int raises nothing), where `extract` checks for a Python error after
/// every -1.
#[inline(always)]
fn exact_int_i64(obj: &Bound<'_, PyAny>) -> Option<i64> {
    let mut overflow = 0;
    // SAFETY: the GIL is held and `obj` is an exact int.
    let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(obj.as_ptr(), &mut overflow) };
    (overflow == 0).then_some(v)
}

/// `write_scalar` for everything but the common exact types (and their errors).
#[inline(never)]
fn write_other_scalar(
    l: &mut ResultSetLoader,
    id: ColumnId,
    obj: &Bound<'_, PyAny>,
) -> WriteResult {
    let value = if let Ok(dt) = obj.cast_exact::<PyDateTime>() {
        datetime_value(l, id, dt)?
    } else if obj.is_none() {
        Value::Null
    } else if let Ok(s) = obj.cast_exact::<PyString>() {
        match s.to_str() {
            Ok(s) => return set_checked(l, id, obj, Value::Str(s)),
            Err(_) => return Err(conflict(l, id, obj, "the string is not valid UTF-8")),
        }
    } else if let Ok(b) = obj.cast::<PyBool>() {
        Value::Bool(b.is_true())
    } else if obj.is_instance_of::<PyInt>() {
        match obj.extract::<i64>() {
            Ok(i) => Value::Int(i),
            Err(_) => match obj.extract::<u64>() {
                Ok(u) => Value::UInt(u),
                Err(_) => return Err(conflict(l, id, obj, "the integer is out of range")),
            },
        }
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        Value::Float(f.value())
    } else if let Ok(s) = obj.cast::<PyString>() {
        match s.to_str() {
            Ok(s) => return set_checked(l, id, obj, Value::Str(s)),
            Err(_) => return Err(conflict(l, id, obj, "the string is not valid UTF-8")),
        }
    } else if let Ok(b) = obj.cast::<PyBytes>() {
        return set_checked(l, id, obj, Value::Bytes(b.as_bytes()));
    } else if let Ok(dt) = obj.cast::<PyDateTime>() {
        datetime_value(l, id, dt)?
    } else if obj.is_instance_of::<PyDate>() {
        let days = date_days(obj)?;
        match l.field(id).data_type() {
            DataType::Date32 => match i32::try_from(days) {
                Ok(d) => Value::Date(d),
                Err(_) => return Err(conflict(l, id, obj, "out of range")),
            },
            DataType::Timestamp(unit, _) => {
                let unit = *unit;
                match micros_to_unit(days * 86_400_000_000, unit) {
                    Some(t) => Value::Timestamp(t),
                    None => return Err(conflict(l, id, obj, "out of range")),
                }
            }
            _ => return Err(conflict(l, id, obj, "wrong type")),
        }
    } else if let Some(number) = numpy_number(obj)? {
        return write_scalar(l, id, &number);
    } else if is_decimal(obj)? {
        match l.field(id).data_type() {
            DataType::Decimal128(_, scale) => {
                let scale = *scale;
                let text = obj.call_method1("__format__", ("f",))?;
                let text: String = text.extract()?;
                match parse_decimal(&text, scale) {
                    Some(d) => Value::Decimal(d),
                    None => {
                        return Err(conflict(
                            l,
                            id,
                            obj,
                            "it does not fit the column's scale and precision",
                        ))
                    }
                }
            }
            _ => return Err(conflict(l, id, obj, "wrong type")),
        }
    } else {
        return Err(conflict(l, id, obj, "unsupported Python type"));
    };
    set_checked(l, id, obj, value)
}

/// A `datetime` (or subclass) as a value of column `id`: a timestamp in the column's unit
/// (aware ones in UTC), or its date for a date column.
fn datetime_value<'a>(
    l: &ResultSetLoader,
    id: ColumnId,
    dt: &Bound<'_, PyDateTime>,
) -> Result<Value<'a>, WriteError> {
    match l.field(id).data_type() {
        DataType::Timestamp(unit, _) => match micros_to_unit(utc_micros(dt)?, *unit) {
            Some(t) => Ok(Value::Timestamp(t)),
            None => Err(conflict(l, id, dt.as_any(), "out of range")),
        },
        DataType::Date32 => Ok(Value::Date(date_days(dt.as_any())? as i32)),
        _ => Err(conflict(l, id, dt.as_any(), "wrong type")),
    }
}

/// `l.set`, with a conflict reported against the Python value.
#[inline(always)]
fn set_checked(
    l: &mut ResultSetLoader,
    id: ColumnId,
    obj: &Bound<'_, PyAny>,
    value: Value<'_>,
) -> WriteResult {
    match l.set(id, value) {
        Ok(()) => Ok(()),
        Err(e) => Err(set_failed(l, id, obj, e)),
    }
}

/// A failed `set` as the Python caller sees it: a conflict names the Python value.
#[cold]
#[inline(never)]
fn set_failed(
    l: &ResultSetLoader,
    id: ColumnId,
    obj: &Bound<'_, PyAny>,
    e: LoaderError,
) -> WriteError {
    match e {
        LoaderError::SchemaConflict(m) => {
            let prefix = format!("column '{}': ", l.path(id));
            match m.strip_prefix(&prefix) {
                Some(why) => conflict(l, id, obj, why),
                None => WriteError::Loader(LoaderError::SchemaConflict(m)),
            }
        }
        e => WriteError::Loader(e),
    }
}
