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
}

impl fmt::Display for LoaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoaderError::State(m)
            | LoaderError::SchemaConflict(m)
            | LoaderError::RowTooLarge(m)
            | LoaderError::InvalidArgument(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for LoaderError {}

/// Shorthand result type of the loader.
pub type Result<T, E = LoaderError> = std::result::Result<T, E>;
