//! PyO3 bindings (module `batchloader._core`): a thin layer over [`crate::loader`].

mod arrow;
mod convert;
mod errors;
mod infer;
mod readers;
mod rows;
mod writers;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// The extension's allocator. jemalloc keeps freed pages for reuse (for seconds), so the
/// buffers of batch after batch, and scan after scan, are not fresh pages from the kernel
/// each time, as glibc's malloc makes large blocks (mmap) once its threshold is low; polars
/// does the same. Its thread-local storage is the dynamic kind (`disable_initial_exec_tls`):
/// the extension is loaded with dlopen.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The native core of batchloader.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<writers::PyResultSetLoader>()?;
    m.add_class::<writers::PyRowWriter>()?;
    m.add_class::<writers::PyColumnWriter>()?;
    m.add_class::<writers::PyBatchIterator>()?;
    m.add_class::<arrow::ArrowArrayExport>()?;
    m.add_class::<readers::PyFileReader>()?;
    m.add_function(wrap_pyfunction!(readers::local_path, m)?)?;
    m.add_function(wrap_pyfunction!(readers::check_time_formats, m)?)?;
    m.add_function(wrap_pyfunction!(readers::spark_csv_type, m)?)?;
    m.add_function(wrap_pyfunction!(readers::charset_named, m)?)?;
    m.add_function(wrap_pyfunction!(readers::check_line_sep, m)?)?;
    m.add_function(wrap_pyfunction!(readers::line_sep_splits, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::repeat_utf8, m)?)?;
    m.add(
        "BatchLoaderError",
        py.get_type::<errors::BatchLoaderError>(),
    )?;
    m.add(
        "LoaderStateError",
        py.get_type::<errors::LoaderStateError>(),
    )?;
    m.add(
        "SchemaConflictError",
        py.get_type::<errors::SchemaConflictError>(),
    )?;
    m.add(
        "RowTooLargeError",
        py.get_type::<errors::RowTooLargeError>(),
    )?;
    let defaults = crate::loader::LoaderOptions::default();
    m.add("DEFAULT_ROW_LIMIT", defaults.row_limit)?;
    m.add("DEFAULT_VECTOR_BYTE_LIMIT", defaults.vector_byte_limit)?;
    let suffixes = crate::readers::compression::SUFFIXES.map(|(suffix, _)| suffix);
    m.add("COMPRESSED_SUFFIXES", PyTuple::new(py, suffixes)?)?;
    let short_ids = PyDict::new(py);
    for (short, long) in crate::readers::JAVA_SHORT_IDS {
        short_ids.set_item(short, long)?;
    }
    m.add("JAVA_SHORT_IDS", short_ids)?;
    let charsets = crate::readers::input::Charset::ALL.map(crate::readers::input::Charset::name);
    m.add("CHARSETS", PyTuple::new(py, charsets)?)?;
    m.add("BAD_LINES_KEPT", crate::readers::ndjson::BAD_RECORDS_KEPT)?;
    Ok(())
}
