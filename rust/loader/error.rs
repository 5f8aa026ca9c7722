//! The loader's error type; each variant maps to one Python exception class.

use std::fmt;

/// Everything that can go wrong while loading rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoaderError {
    /// The lifecycle was misused (save without start, harvest twice, use after close...).
    State(String),
    /// A value of the wrong type, a duplicate column, an unsupported type.
    SchemaConflict(String),
    /// A row that cannot fit even an empty batch. The row is discarded.
    RowTooLarge(String),
    /// An option or argument out of its domain (maps to Python's `ValueError`).
    InvalidArgument(String),
    /// One record (a JSON object, a Python dict) names the column at this path twice: a
    /// schema conflict a reader places at the second key rather than at its value.
    GivenTwice(String),
}

impl LoaderError {
    /// The error with `prefix` (a row number, a file) before its message, of the same
    /// variant; a column given twice becomes the schema conflict it is to the caller.
    pub fn with_prefix(self, prefix: &str) -> LoaderError {
        let message = format!("{prefix}{self}");
        match self {
            LoaderError::State(_) => LoaderError::State(message),
            LoaderError::SchemaConflict(_) | LoaderError::GivenTwice(_) => {
                LoaderError::SchemaConflict(message)
            }
            LoaderError::RowTooLarge(_) => LoaderError::RowTooLarge(message),
            LoaderError::InvalidArgument(_) => LoaderError::InvalidArgument(message),
        }
    }
}

impl fmt::Display for LoaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoaderError::State(m)
            | LoaderError::SchemaConflict(m)
            | LoaderError::RowTooLarge(m)
            | LoaderError::InvalidArgument(m) => f.write_str(m),
            LoaderError::GivenTwice(path) => {
                write!(
                    f,
                    "column '{path}' is given twice (names are case-insensitive)"
                )
            }
        }
    }
}

impl std::error::Error for LoaderError {}

/// Shorthand result type of the loader.
pub type Result<T, E = LoaderError> = std::result::Result<T, E>;
