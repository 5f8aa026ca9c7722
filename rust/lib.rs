//! batchloader: memory-bounded Apache Arrow record batches from row-by-row data.
//!
//! The [`loader`] module is a port of Apache Drill's result set loader to arrow-rs: a row
//! writer that fills Arrow buffers, never lets a batch exceed its row or byte limits, and
//! moves a row that does not fit to the next batch whole. The optional `python` feature adds
//! thin PyO3 bindings (module `batchloader._core`).

#![warn(missing_docs)]

pub mod loader;
pub mod readers;
pub mod repeat;

#[cfg(feature = "python")]
mod python;

pub use loader::{
    ColumnId, ColumnKind, Discovery, LoaderError, LoaderOptions, Projection, ResultSetLoader,
    Value, ROOT,
};
