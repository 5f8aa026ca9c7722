//! Scalar values as handed to the loader by readers and bindings.

use std::fmt;

/// One scalar value to write. The target column decides how it is stored: an `Int` goes into
/// any integer column it fits, a float column, a decimal (scaled), a date (days) or a timestamp
/// (in the column's unit); anything that does not fit raises `SchemaConflict`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    /// SQL NULL.
    Null,
    /// A boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer above `i64::MAX` (smaller ones arrive as `Int`).
    UInt(u64),
    /// A floating-point number.
    Float(f64),
    /// A string (utf8 columns; binary columns take its bytes).
    Str(&'a str),
    /// Raw bytes (binary columns).
    Bytes(&'a [u8]),
    /// A decimal already scaled to the column's scale (unscaled value).
    Decimal(i128),
    /// Days since the Unix epoch.
    Date(i32),
    /// A timestamp already in the column's unit since the Unix epoch (UTC).
    Timestamp(i64),
}

impl Value<'_> {
    /// A short name of the value's kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::UInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::Decimal(_) => "decimal",
            Value::Date(_) => "date",
            Value::Timestamp(_) => "timestamp",
        }
    }
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MAX: usize = 60;
        match self {
            Value::Null => f.write_str("None"),
            Value::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
            Value::Int(i) => write!(f, "{i}"),
            Value::UInt(u) => write!(f, "{u}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Str(s) if s.chars().count() > MAX => {
                let cut: String = s.chars().take(MAX).collect();
                write!(f, "{cut:?}... ({} bytes)", s.len())
            }
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bytes(b) if b.len() > MAX => write!(f, "<{} bytes>", b.len()),
            Value::Bytes(b) => write!(f, "b{:?}", String::from_utf8_lossy(b)),
            Value::Decimal(d) => write!(f, "{d} (unscaled)"),
            Value::Date(d) => write!(f, "date {d} (days)"),
            Value::Timestamp(t) => write!(f, "timestamp {t}"),
        }
    }
}
