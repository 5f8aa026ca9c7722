//! The Python classes: `ResultSetLoader`, `RowWriter`, `ColumnWriter`, and the batch
//! iterator of `write_rows`.

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyString};

use super::arrow::{batch_to_py, field_from_py, schema_from_py};
use super::convert::WriteError;
use super::errors::to_pyerr;
use super::rows::{RowState, RowWriter};
use crate::loader::{
    ColumnId, ColumnKind, LoaderOptions, Projection, Reserve, ResultSetLoader, ROOT,
};

/// Writes rows into Arrow buffers and hands back `pyarrow.RecordBatch`es bounded by a row
/// limit and byte limits (DESIGN.md section 1).
#[pyclass(module = "batchloader._core", name = "ResultSetLoader")]
pub struct PyResultSetLoader {
    pub(crate) inner: ResultSetLoader,
    pub(crate) rows: RowState,
}

impl PyResultSetLoader {
    /// The loader and its row state, ready to write Python values.
    fn row_writer(&mut self) -> RowWriter<'_> {
        RowWriter {
            l: &mut self.inner,
            state: &mut self.rows,
        }
    }
}

fn lookup(l: &ResultSetLoader, parent: ColumnId, key: &Bound<'_, PyAny>) -> PyResult<ColumnId> {
    if let Ok(name) = key.cast::<PyString>() {
        let name = name.to_str()?;
        return l.column(parent, name).ok_or_else(|| {
            let owner = if parent == ROOT {
                String::new()
            } else {
                format!(" in struct '{}'", l.path(parent))
            };
            PyKeyError::new_err(format!(
                "no column '{name}'{owner}; add it with add_column()"
            ))
        });
    }
    if key.is_instance_of::<PyInt>() {
        let i: isize = key.extract()?;
        let n = l.column_count(parent) as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(PyIndexError::new_err(format!(
                "column index {i} out of range ({n} columns)"
            )));
        }
        return Ok(l.column_at(parent, j as usize).expect("in range"));
    }
    Err(PyTypeError::new_err(
        "columns are looked up by name (str) or index (int)",
    ))
}

#[pymethods]
impl PyResultSetLoader {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (schema=None, projection=None, row_limit=65536,
                        vector_byte_limit=16 * 1024 * 1024, batch_byte_limit=None, limit=None,
                        discover=None, reserve=(0, 0, 0), inferred=None, declared=None,
                        text_guesses=None))]
    fn new(
        schema: Option<&Bound<'_, PyAny>>,
        projection: Option<&Bound<'_, PyAny>>,
        row_limit: i64,
        vector_byte_limit: i64,
        batch_byte_limit: Option<i64>,
        limit: Option<i64>,
        discover: Option<bool>,
        reserve: (usize, usize, usize),
        inferred: Option<Vec<String>>,
        declared: Option<Vec<String>>,
        text_guesses: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let positive = |name: &str, v: i64| -> PyResult<usize> {
            usize::try_from(v).ok().filter(|v| *v >= 1).ok_or_else(|| {
                pyo3::exceptions::PyValueError::new_err(format!("{name} must be >= 1, got {v}"))
            })
        };
        let projection = match projection {
            None => Projection::All,
            Some(p) if p.is_instance_of::<PyString>() => {
                return Err(PyTypeError::new_err(
                    "projection must be a list of column paths, not a string",
                ))
            }
            Some(p) => {
                let paths: Vec<String> = p.extract()?;
                Projection::parse(&paths).map_err(to_pyerr)?
            }
        };
        let limit = match limit {
            None => None,
            Some(v) if v >= 0 => Some(v as u64),
            Some(v) => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "limit must be >= 0, got {v}"
                )))
            }
        };
        // Rows may add columns (types from their values) unless a schema fixes them.
        let discover = discover.unwrap_or(schema.is_none());
        let options = LoaderOptions {
            schema: schema.map(schema_from_py).transpose()?.map(Arc::new),
            projection,
            row_limit: positive("row_limit", row_limit)?,
            vector_byte_limit: positive("vector_byte_limit", vector_byte_limit)?,
            batch_byte_limit: batch_byte_limit
                .map(|b| positive("batch_byte_limit", b))
                .transpose()?,
            limit,
            reserve: Reserve {
                per_row: reserve.0,
                per_batch: reserve.1,
                largest_buffer_per_row: reserve.2,
            },
            inferred: inferred.unwrap_or_default(),
            declared: declared.unwrap_or_default(),
            text_guesses: text_guesses.unwrap_or_default(),
        };
        Ok(PyResultSetLoader {
            inner: ResultSetLoader::new(options).map_err(to_pyerr)?,
            rows: RowState::new(discover),
        })
    }

    /// Begin a batch; False once `limit` rows were harvested.
    fn start_batch(&mut self) -> PyResult<bool> {
        self.inner.start_batch().map_err(to_pyerr)
    }

    /// The row writer.
    #[getter]
    fn writer(slf: Bound<'_, Self>) -> PyResult<PyRowWriter> {
        slf.borrow().inner.check_open().map_err(to_pyerr)?;
        Ok(PyRowWriter {
            loader: slf.unbind(),
        })
    }

    /// True at the row limit, or as soon as a value overflowed.
    fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// Make the parts of `schema` at `paths` (`x`, `m.x`, `l[]`) take any JSON value as
    /// its text, adding each one the loader lacks (see `text_guesses`).
    fn fix_text_guesses(&mut self, schema: &Bound<'_, PyAny>, paths: Vec<String>) -> PyResult<()> {
        let schema = schema_from_py(schema)?;
        self.inner
            .fix_text_guesses(&schema, &paths)
            .map_err(to_pyerr)
    }

    /// The values a reader kept as their JSON text in columns typed by a guess (a number
    /// in a column null in the whole first batch, say), by column path, in rows saved since
    /// the last call; the counts start again.
    fn take_text_kept(&mut self) -> Vec<(String, u64)> {
        self.inner.take_text_kept()
    }

    /// The whole numbers past int64 a reader rounded to float64 in columns the data typed
    /// (digits lost), by column path, in rows saved since the last call; the counts start
    /// again.
    fn take_wholes_rounded(&mut self) -> Vec<(String, u64)> {
        self.inner.take_wholes_rounded()
    }

    /// The completed batch as a `pyarrow.RecordBatch` (zero-copy).
    fn harvest<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let batch = self.inner.harvest().map_err(to_pyerr)?;
        batch_to_py(py, batch)
    }

    /// Start a row, write a dict (by name) or tuple/list (by position), save it.
    fn write_row(&mut self, row: &Bound<'_, PyAny>) -> PyResult<()> {
        self.row_writer().row(row).map_err(WriteError::into_pyerr)
    }

    /// Write every row of `rows`, yielding each batch as soon as it is full and the last
    /// partial one at the end. Starts the batch itself if none is active.
    fn write_rows(slf: Bound<'_, Self>, rows: &Bound<'_, PyAny>) -> PyResult<PyBatchIterator> {
        slf.borrow().inner.check_open().map_err(to_pyerr)?;
        Ok(PyBatchIterator {
            loader: slf.unbind(),
            rows: rows.try_iter()?.unbind(),
            index: 0,
            exhausted: false,
        })
    }

    /// Rows of the batch being built (not counting a pending overflow row).
    #[getter]
    fn row_count(&self) -> usize {
        self.inner.row_count()
    }

    /// Rows saved over the loader's life, including a pending overflow row.
    #[getter]
    fn total_row_count(&self) -> u64 {
        self.inner.total_row_count()
    }

    /// Batches harvested, plus one if the current batch has rows.
    #[getter]
    fn batch_count(&self) -> u64 {
        self.inner.batch_count()
    }

    /// Exported bytes of the batch being built.
    #[getter]
    fn batch_bytes(&self) -> usize {
        self.inner.batch_bytes()
    }

    /// +1 for every projected column added, nested members too.
    #[getter]
    fn schema_version(&self) -> u64 {
        self.inner.schema_version()
    }

    /// The schema of the projected columns as they stand now.
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let schema = Arc::new(self.inner.schema());
        let empty = arrow_array::RecordBatch::new_empty(schema);
        batch_to_py(py, empty)?.getattr("schema")
    }

    /// Top-level columns written but dropped because the projection excludes them: columns
    /// added with `add_column` and unknown row keys, in first-seen order.
    #[getter]
    fn ignored_columns(&self) -> Vec<String> {
        let l = &self.inner;
        let mut out: Vec<String> = (0..l.column_count(ROOT))
            .map(|i| l.column_at(ROOT, i).expect("member"))
            .filter(|id| !l.is_projected(*id))
            .map(|id| l.field(id).name().clone())
            .collect();
        out.extend(self.rows.ignored.iter().cloned());
        out
    }

    /// Whether the loader was closed.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Release the buffers; every later call raises LoaderStateError.
    fn close(&mut self) {
        self.inner.close()
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&mut self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.inner.close();
        false
    }

    fn __repr__(&self) -> String {
        format!(
            "ResultSetLoader(columns={}, row_count={}, total_row_count={}, batch_count={})",
            self.inner.column_count(ROOT),
            self.inner.row_count(),
            self.inner.total_row_count(),
            self.inner.batch_count()
        )
    }
}

/// Writes one row at a time: `start()`, set columns, `save()`.
#[pyclass(module = "batchloader._core", name = "RowWriter", frozen)]
pub struct PyRowWriter {
    loader: Py<PyResultSetLoader>,
}

#[pymethods]
impl PyRowWriter {
    /// Begin a row; False if the batch is full.
    fn start(&self, py: Python<'_>) -> PyResult<bool> {
        self.loader
            .borrow_mut(py)
            .inner
            .start_row()
            .map_err(to_pyerr)
    }

    /// Commit the row.
    fn save(&self, py: Python<'_>) -> PyResult<()> {
        self.loader
            .borrow_mut(py)
            .inner
            .save_row()
            .map_err(to_pyerr)
    }

    /// Add a top-level column (a `pyarrow.Field`) at any time; returns its index.
    fn add_column(&self, py: Python<'_>, field: &Bound<'_, PyAny>) -> PyResult<usize> {
        add_column(&self.loader, py, ROOT, field)
    }

    /// The writer of a column, by name (case-insensitive) or index.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<PyColumnWriter> {
        let id = lookup(&self.loader.borrow(py).inner, ROOT, key)?;
        Ok(PyColumnWriter {
            loader: self.loader.clone_ref(py),
            id,
        })
    }

    /// Number of top-level columns (projected or not).
    fn __len__(&self, py: Python<'_>) -> usize {
        self.loader.borrow(py).inner.column_count(ROOT)
    }

    /// Whether the batch is full.
    fn is_full(&self, py: Python<'_>) -> bool {
        self.loader.borrow(py).inner.is_full()
    }
}

fn add_column(
    loader: &Py<PyResultSetLoader>,
    py: Python<'_>,
    parent: ColumnId,
    field: &Bound<'_, PyAny>,
) -> PyResult<usize> {
    let field = field_from_py(field)?;
    let mut l = loader.borrow_mut(py);
    l.inner.add_column(parent, field).map_err(to_pyerr)?;
    Ok(l.inner.column_count(parent) - 1)
}

/// Writes one column: a scalar, a struct (members by name or index), a list (`append`,
/// `extend`, or `.element` + `save()`), or a map.
#[pyclass(module = "batchloader._core", name = "ColumnWriter", frozen)]
pub struct PyColumnWriter {
    loader: Py<PyResultSetLoader>,
    id: ColumnId,
}

#[pymethods]
impl PyColumnWriter {
    /// Write a whole Python value: scalar, dict/tuple (struct), iterable (list), dict (map).
    fn set(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut l = self.loader.borrow_mut(py);
        l.row_writer()
            .value(self.id, value)
            .map_err(WriteError::into_pyerr)
    }

    /// Write NULL.
    fn set_null(&self, py: Python<'_>) -> PyResult<()> {
        self.loader
            .borrow_mut(py)
            .inner
            .set_null(self.id)
            .map_err(to_pyerr)
    }

    /// Extend the utf8/binary value being written.
    fn append_bytes(&self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        self.loader
            .borrow_mut(py)
            .inner
            .append_bytes(self.id, data)
            .map_err(to_pyerr)
    }

    /// Append one element (a whole Python value; None = null element) to a list.
    fn append(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut l = self.loader.borrow_mut(py);
        let child = element_of(&l.inner, self.id)?;
        let r = l
            .row_writer()
            .value(child, value)
            .and_then(|_| Ok(l.inner.save_element(self.id)?));
        if r.is_err() && l.inner.row_open() {
            let _ = l.inner.clear(child);
        }
        r.map_err(WriteError::into_pyerr)
    }

    /// Append every element of an iterable.
    fn extend(&self, py: Python<'_>, values: &Bound<'_, PyAny>) -> PyResult<()> {
        for v in values.try_iter()? {
            self.append(py, &v?)?;
        }
        Ok(())
    }

    /// Commit the element being written through `.element` (lists and maps).
    fn save(&self, py: Python<'_>) -> PyResult<()> {
        self.loader
            .borrow_mut(py)
            .inner
            .save_element(self.id)
            .map_err(to_pyerr)
    }

    /// The writer of this list's elements (a map's entries struct: `key`, `value`).
    #[getter]
    fn element(&self, py: Python<'_>) -> PyResult<PyColumnWriter> {
        let id = element_of(&self.loader.borrow(py).inner, self.id)?;
        Ok(PyColumnWriter {
            loader: self.loader.clone_ref(py),
            id,
        })
    }

    /// A struct member's writer, by name (case-insensitive) or index.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<PyColumnWriter> {
        let l = self.loader.borrow(py);
        if l.inner.kind(self.id) != ColumnKind::Struct {
            return Err(PyTypeError::new_err(format!(
                "column '{}' is not a struct",
                l.inner.path(self.id)
            )));
        }
        let id = lookup(&l.inner, self.id, key)?;
        Ok(PyColumnWriter {
            loader: self.loader.clone_ref(py),
            id,
        })
    }

    /// Add a member (a `pyarrow.Field`) to this struct; returns its index.
    fn add_column(&self, py: Python<'_>, field: &Bound<'_, PyAny>) -> PyResult<usize> {
        add_column(&self.loader, py, self.id, field)
    }

    /// Number of members of a struct (0 otherwise).
    fn __len__(&self, py: Python<'_>) -> usize {
        self.loader.borrow(py).inner.column_count(self.id)
    }

    /// The column's name.
    #[getter]
    fn name(&self, py: Python<'_>) -> String {
        self.loader.borrow(py).inner.field(self.id).name().clone()
    }

    /// The column's dotted path (`m.x`, `events[].kind`).
    #[getter]
    fn path(&self, py: Python<'_>) -> String {
        self.loader.borrow(py).inner.path(self.id).to_string()
    }

    /// "scalar", "struct", "list" or "map".
    #[getter]
    fn kind(&self, py: Python<'_>) -> &'static str {
        match self.loader.borrow(py).inner.kind(self.id) {
            ColumnKind::Scalar => "scalar",
            ColumnKind::Struct => "struct",
            ColumnKind::List => "list",
            ColumnKind::Map => "map",
        }
    }

    /// Whether writes to this column are kept.
    #[getter]
    fn is_projected(&self, py: Python<'_>) -> bool {
        self.loader.borrow(py).inner.is_projected(self.id)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let l = self.loader.borrow(py);
        format!(
            "ColumnWriter('{}', {})",
            l.inner.path(self.id),
            l.inner.field(self.id).data_type()
        )
    }
}

fn element_of(l: &ResultSetLoader, id: ColumnId) -> PyResult<ColumnId> {
    match l.kind(id) {
        ColumnKind::List | ColumnKind::Map => Ok(l.element(id).expect("list child")),
        _ => Err(PyTypeError::new_err(format!(
            "column '{}' is not a list or map",
            l.path(id)
        ))),
    }
}

/// The iterator `write_rows` returns: pulls rows lazily, yields bounded batches.
#[pyclass(module = "batchloader._core", name = "BatchIterator")]
pub struct PyBatchIterator {
    loader: Py<PyResultSetLoader>,
    rows: Py<pyo3::types::PyIterator>,
    index: u64,
    exhausted: bool,
}

#[pymethods]
impl PyBatchIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let mut rows = self.rows.bind(py).clone();
        let mut l = self.loader.borrow_mut(py);
        loop {
            let finished = self.exhausted && l.inner.total_row_count() == l.inner.harvested_total();
            if !l.inner.is_active() && (finished || !l.inner.start_batch().map_err(to_pyerr)?) {
                return Ok(None);
            }
            if l.inner.is_full() {
                let batch = l.inner.harvest().map_err(to_pyerr)?;
                return batch_to_py(py, batch).map(Some);
            }
            let next = if self.exhausted {
                None
            } else {
                // Release the loader while user code produces the row.
                drop(l);
                let next = rows.next();
                l = self.loader.borrow_mut(py);
                next
            };
            match next {
                None => {
                    self.exhausted = true;
                    if l.inner.row_count() == 0 {
                        return Ok(None);
                    }
                    let batch = l.inner.harvest().map_err(to_pyerr)?;
                    return batch_to_py(py, batch).map(Some);
                }
                Some(row) => {
                    let row = row?;
                    let index = self.index;
                    self.index += 1;
                    l.row_writer()
                        .row(&row)
                        .map_err(|e| e.context(&format!("row {index}: ")).into_pyerr())?;
                }
            }
        }
    }
}
