//! Readers that parse bytes straight into the loader's writers (no intermediate values, no
//! Python objects): NDJSON and CSV. Projection is pushed into parsing: a field no one wants is
//! skipped by the tokenizer without being built.

mod charsets;
pub mod compression;
mod conventions;
pub mod csv;
pub mod csv_inference;
mod csv_spark_fields;
mod csv_window;
mod driver;
mod hadoop_block;
pub mod input;
mod java_zone_names;
mod json;
mod json_documents;
mod json_fast;
mod lines;
pub mod ndjson;
mod numbers;
mod spark_times;
mod temporal;
pub mod time_pattern;

pub use conventions::{Conventions, FloatTexts};
pub use csv::{CsvOptions, CsvReader, HeaderNames, SparkFields};
pub use json::JsonSyntax;
pub use ndjson::{InputError, NdjsonReader, OnError, ReadError};
#[cfg(feature = "python")]
pub(crate) use spark_times::JAVA_SHORT_IDS;
pub use time_pattern::{TimeFormats, TimePattern};

#[cfg(test)]
mod tests;
