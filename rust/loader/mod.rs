//! The result set loader: a column-writer tree over arrow-buffer buffers.
//!
//! How Drill's design (seeds 002 and 003) maps here:
//! - Every column (top-level, struct member, list element, map entry) is a node in an arena
//!   (`node.rs`); its `len` is Drill's *last write position* + 1.
//! - A write lands at the node's *position*: the row index for top-level columns, the parent's
//!   position for struct members, and the list's committed element count for list elements
//!   (`tree.rs`). Committing a row or an element back-fills every column not written in it, and
//!   discards anything written but not committed, so no half row ever stays in a buffer. The
//!   nulls of nullable scalars outside lists are counted at the commit but appended later, in
//!   one go (`lazy.rs`): a sparse row costs what it writes, not what it leaves out.
//! - When a write (or a commit's fill) takes a buffer over `vector_byte_limit`, or all buffers
//!   over `batch_byte_limit`, the row being written is split off: every node's buffers are
//!   swapped for fresh look-ahead buffers that receive only the overflow row's entries (list
//!   offsets rebased, recursively: the row index becomes the first-element index at each list
//!   level), while the full buffers are set aside, untouched, as the batch to harvest
//!   (`overflow.rs`). Writing then simply continues, mid-value and at any depth.
//! - Harvest turns the set-aside buffers into Arrow arrays without copying (`export.rs`).

mod append;
mod bits;
mod discovery;
mod error;
mod export;
mod lazy;
mod lifecycle;
mod node;
mod options;
mod overflow;
pub(crate) mod path;
mod rollback;
mod tree;
mod value;
mod write;

pub(crate) use append::copy_short;
pub use discovery::{unknown_element_type, unknown_list_type, Discovery, NULL_ONLY};
pub use error::LoaderError;
pub use lifecycle::ResultSetLoader;
pub use node::{ColumnId, ColumnKind, ROOT};
pub use options::{ElementFate, LoaderOptions, Projection, Reserve};
pub use rollback::SchemaMark;
pub use tree::{
    days_from_civil, parse_decimal, parse_decimal_rounded, DEFAULT_METADATA_KEY, MAX_NESTING,
};
pub use value::Value;

#[cfg(test)]
mod tests;
