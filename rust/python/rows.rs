//! Rows and nested values into loader writes, walking each value once: dicts by key (through
//! a per-struct key cache), tuples and lists by position, iterables for lists, dicts or pairs
//! for maps; and schema discovery for loaders built without a schema.

use arrow_schema::DataType;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use super::convert::{
    conflict, is_float, short_repr, type_name, write_scalar, WriteError, WriteResult,
};
use super::infer::{infer_element, infer_field, Guesses, Step};
use crate::loader::{
    ColumnId, ColumnKind, Discovery, ElementFate, LoaderError, Projection, ResultSetLoader, Value,
    NULL_ONLY, ROOT,
};

/// A key of a struct that has no column and is not projected: skipped without converting.
const SKIP: isize = -1;

/// The key object of the last dict at one position of a struct, and where it went.
struct OrderedKey {
    key: Py<PyAny>,
    /// A column, `None` (skipped) or [`NULL_ONLY`].
    target: Option<ColumnId>,
    /// For [`NULL_ONLY`]: the loader's column ids then (a column added since may be the
    /// field's own).
    columns: usize,
}

/// What the bindings remember between rows: key lookups and discovered columns.
#[derive(Default)]
pub(crate) struct RowState {
    /// Per struct node: its row dicts' key objects -> column id (or SKIP). Python's own dict
    /// makes a known key cost one hash-cached lookup, case-insensitive resolution included.
    keys: Vec<Option<Py<PyDict>>>,
    /// Per struct node: the key objects of the last dict, by position, and where each went.
    /// Dicts built by the same code share their key objects and their order, so most keys
    /// are resolved by one pointer comparison.
    order: Vec<Vec<OrderedKey>>,
    /// Add unknown keys as columns (the loader was built without a schema).
    discover: bool,
    /// Columns created by discovery, and lists whose element type is still a guess.
    discovery: Discovery,
    /// Top-level keys of written rows that are neither columns nor projected (dropped).
    pub ignored: Vec<String>,
}

impl RowState {
    /// Row state for a loader; `discover`: add unknown keys as columns.
    pub fn new(discover: bool) -> Self {
        RowState {
            discover,
            ..RowState::default()
        }
    }
}

/// A loader and its row state, for one write.
pub(crate) struct RowWriter<'a> {
    pub l: &'a mut ResultSetLoader,
    pub state: &'a mut RowState,
}

impl RowWriter<'_> {
    /// Write any Python value to column `id`.
    #[inline(always)]
    pub fn value(&mut self, id: ColumnId, obj: &Bound<'_, PyAny>) -> WriteResult {
        if !self.l.is_projected(id) {
            return Ok(());
        }
        let kind = self.l.kind(id);
        if kind != ColumnKind::Scalar {
            return self.compound(id, kind, obj);
        }
        if self.state.discover
            && self.l.field(id).data_type() == &DataType::Int64
            && self.state.discovery.may_widen(self.l, id)
            && is_float(obj)?
        {
            self.l.widen_to_float64(id)?;
        }
        write_scalar(self.l, id, obj)
    }

    /// `value` for a struct, list or map column (`kind`).
    #[inline(never)]
    fn compound(&mut self, id: ColumnId, kind: ColumnKind, obj: &Bound<'_, PyAny>) -> WriteResult {
        // `obj` may be borrowed from a dict that Python code below could change: own it.
        let obj = &obj.clone();
        if obj.is_none() {
            return Ok(self.l.set(id, Value::Null)?);
        }
        let r = match kind {
            ColumnKind::Struct => self.struct_value(id, obj),
            ColumnKind::List => {
                if obj.is_instance_of::<PyString>()
                    || obj.is_instance_of::<PyBytes>()
                    || obj.is_instance_of::<PyDict>()
                {
                    return Err(conflict(
                        self.l,
                        id,
                        obj,
                        "a list needs a sequence of elements",
                    ));
                }
                self.elements(id, obj)
            }
            ColumnKind::Map => self.entries(id, obj),
            ColumnKind::Scalar => unreachable!(),
        };
        // A compound value that failed half-way leaves nothing behind.
        if r.is_err() && self.l.row_open() {
            let _ = self.l.clear(id);
        }
        r
    }

    fn struct_value(&mut self, id: ColumnId, obj: &Bound<'_, PyAny>) -> WriteResult {
        self.l.begin(id)?;
        self.members(id, obj)
    }

    /// The column a dict key names in struct `parent`: from the cache, else resolved
    /// (case-insensitively), discovered, or marked SKIP; [`NULL_ONLY`] if the value, None,
    /// was noted for a field without a column.
    fn member_for(
        &mut self,
        parent: ColumnId,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> Result<Option<ColumnId>, WriteError> {
        let py = key.py();
        if self.state.keys.len() <= parent {
            self.state.keys.resize_with(parent + 1, || None);
        }
        let cache = self.state.keys[parent]
            .get_or_insert_with(|| PyDict::new(py).unbind())
            .bind(py)
            .clone();
        if let Some(hit) = cache.get_item(key)? {
            let id: isize = hit.extract()?;
            return Ok((id != SKIP).then_some(id as ColumnId));
        }
        let Ok(name) = key.cast::<PyString>() else {
            return Err(conflict(self.l, parent, key, "keys must be strings"));
        };
        let name = name.to_str()?;
        let id = match self.l.column(parent, name) {
            Some(id) => id,
            None if !self.l.would_project(parent, name) => {
                cache.set_item(key, SKIP)?;
                if parent == ROOT {
                    self.state.ignored.push(name.to_string());
                }
                return Ok(None);
            }
            None if self.state.discover => {
                let projection = self.l.member_projection(parent, name);
                let projection = projection.unwrap_or(&Projection::All);
                let field = infer_field(name, value, projection).map_err(|why| {
                    WriteError::Loader(LoaderError::SchemaConflict(format!(
                        "new column '{name}': {why}"
                    )))
                })?;
                // A None does not tell the type: wait for a value that does (the column
                // takes the spelling the field had then).
                let Some((field, guesses)) = field else {
                    self.state.discovery.note_null(self.l, parent, name)?;
                    return Ok(Some(NULL_ONLY));
                };
                let discovery = &self.state.discovery;
                discovery.check_new_field(self.l, parent, name)?;
                let spelled = discovery.first_spelling(parent, name);
                let field = if spelled == name {
                    field
                } else {
                    field.with_name(spelled)
                };
                let id = self.l.add_column(parent, field)?;
                self.mark_discovered(id, &guesses);
                id
            }
            None => {
                let owner = if parent == ROOT {
                    "the row".to_string()
                } else {
                    format!("struct '{}'", self.l.path(parent))
                };
                return Err(WriteError::Loader(LoaderError::SchemaConflict(format!(
                    "{owner} has no column '{name}' (value {}); add it with add_column()",
                    short_repr(value)
                ))));
            }
        };
        cache.set_item(key, id)?;
        Ok(Some(id))
    }

    /// Remember the columns of a discovered subtree, and its lists whose element type is a
    /// guess.
    fn mark_discovered(&mut self, id: ColumnId, guesses: &Guesses) {
        self.state.discovery.mark(self.l, id);
        for path in guesses {
            let mut node = Some(id);
            for step in path {
                node = node.and_then(|n| match step {
                    Step::Member(name) => self.l.column(n, name),
                    Step::Element => self.l.element(n),
                });
            }
            if let Some(list) = node {
                self.state.discovery.guess(list);
            }
        }
    }

    /// The element writer of list `id`, retyped from `item` if its element type was a guess.
    fn element_for(
        &mut self,
        id: ColumnId,
        item: &Bound<'_, PyAny>,
    ) -> Result<ColumnId, WriteError> {
        let child = self.l.element(id).expect("a list");
        if item.is_none() || !self.state.discovery.is_guess(id) {
            return Ok(child);
        }
        self.state.discovery.settle(id);
        let guessed = self.l.field(child).data_type();
        if guessed == &DataType::Utf8 && item.is_instance_of::<PyString>() {
            return Ok(child); // the usual guess, and right
        }
        let projection = self.l.projection(id).element();
        let (field, guesses) = infer_element(item, projection).map_err(|why| {
            WriteError::Loader(LoaderError::SchemaConflict(format!(
                "list '{}': {why}",
                self.l.path(id)
            )))
        })?;
        let child = if field.data_type() == guessed {
            child // the guess was right
        } else {
            self.l.replace_element(id, field)?
        };
        self.mark_discovered(child, &guesses);
        Ok(child)
    }

    /// Write the members of a struct (or the row, `ROOT`) from a dict, tuple or list.
    pub fn members(&mut self, id: ColumnId, obj: &Bound<'_, PyAny>) -> WriteResult {
        if let Ok(dict) = obj.cast::<PyDict>() {
            return self.dict_members(id, dict);
        }
        let owner = |l: &ResultSetLoader| {
            if id == ROOT {
                "the row".to_string()
            } else {
                format!("struct '{}'", l.path(id))
            }
        };
        let items: Vec<Bound<'_, PyAny>> = if let Ok(t) = obj.cast::<PyTuple>() {
            t.iter().collect()
        } else if let Ok(list) = obj.cast::<PyList>() {
            list.iter().collect()
        } else {
            return Err(WriteError::Loader(LoaderError::SchemaConflict(format!(
                "{} must be a dict, tuple or list, got {} {}",
                owner(self.l),
                type_name(obj),
                short_repr(obj)
            ))));
        };
        let n = self.l.column_count(id);
        if items.len() != n {
            return Err(WriteError::Loader(LoaderError::SchemaConflict(format!(
                "{} has {} values but {} has {n} columns",
                short_repr(obj),
                items.len(),
                owner(self.l)
            ))));
        }
        for (i, v) in items.iter().enumerate() {
            let m = self.l.column_at(id, i).expect("member");
            self.value(m, v)?;
        }
        Ok(())
    }

    /// `members` from a dict. Its items are borrowed, not reference-counted: a scalar's
    /// inline conversion runs no Python code, and every path that may (a compound value,
    /// another scalar type, a new key) takes its own reference first, so a dict changed by
    /// such code cannot free what is being read. A change in size is an error, as in Python.
    fn dict_members(&mut self, id: ColumnId, dict: &Bound<'_, PyDict>) -> WriteResult {
        let py = dict.py();
        if self.state.order.len() <= id {
            self.state.order.resize_with(id + 1, Vec::new);
        }
        let size = dict.len();
        let (mut ppos, mut pos): (ffi::Py_ssize_t, usize) = (0, 0);
        let mut key: *mut ffi::PyObject = std::ptr::null_mut();
        let mut value: *mut ffi::PyObject = std::ptr::null_mut();
        // SAFETY: the GIL is held and `dict` is alive; PyDict_Next stays in bounds even if
        // the dict changes.
        while unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut ppos, &mut key, &mut value) } != 0 {
            // SAFETY: PyDict_Next gave non-null borrowed references, valid while the dict
            // holds them: until Python code runs, and every such path owns them (above).
            let (k, v) = unsafe { (Borrowed::from_ptr(py, key), Borrowed::from_ptr(py, value)) };
            match self.state.order[id].get(pos) {
                // the key object of the last dict at this position: nothing ran
                Some(cached) if cached.key.as_ptr() == key => match cached.target {
                    Some(m) if m != NULL_ONLY => self.value(m, &v)?,
                    Some(_) => self.null_only(id, pos, &k.to_owned(), &v.to_owned())?,
                    None => {}
                },
                // resolving may hash the key (Python code for a str subclass): own both
                _ => {
                    let (k, v) = (k.to_owned(), v.to_owned());
                    if let Some(m) = self.resolve_key(id, pos, &k, &v)? {
                        self.value(m, &v)?;
                    }
                }
            }
            pos += 1;
        }
        if dict.len() != size {
            return Err(WriteError::Py(pyo3::exceptions::PyRuntimeError::new_err(
                "dictionary changed size during iteration",
            )));
        }
        Ok(())
    }

    /// The column of the `pos`-th key of a dict written to struct `id`, remembered by
    /// position for the next dict.
    #[inline(never)]
    fn resolve_key(
        &mut self,
        id: ColumnId,
        pos: usize,
        k: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
    ) -> Result<Option<ColumnId>, WriteError> {
        let target = self.member_for(id, k, v)?;
        if target == Some(NULL_ONLY) {
            self.remember_key(id, pos, k, target);
            return Ok(None); // a None noted: nothing to write
        }
        // A new column's id is cached once it exists (the next dict).
        if target.is_some() || self.l.column(id, &k.to_string()).is_some() || !self.state.discover {
            self.remember_key(id, pos, k, target);
        }
        Ok(target)
    }

    /// Remember key `k` at position `pos` of struct `id`'s dicts, going to `target`.
    fn remember_key(
        &mut self,
        id: ColumnId,
        pos: usize,
        k: &Bound<'_, PyAny>,
        target: Option<ColumnId>,
    ) {
        let order = &mut self.state.order[id];
        let entry = OrderedKey {
            key: k.clone().unbind(),
            target,
            columns: self.l.column_ids(),
        };
        if pos < order.len() {
            order[pos] = entry;
        } else if pos == order.len() {
            order.push(entry);
        }
    }

    /// The `pos`-th key of a dict written to struct `id`, known as a field seen only as
    /// None: another None is noted as the first was; a value, or a column made since,
    /// resolves the key anew.
    #[cold]
    #[inline(never)]
    fn null_only(
        &mut self,
        id: ColumnId,
        pos: usize,
        k: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
    ) -> WriteResult {
        let current = self.state.order[id][pos].columns == self.l.column_ids();
        if current && v.is_none() {
            if let Ok(name) = k.cast::<PyString>() {
                let name = name.to_str()?;
                return Ok(self.state.discovery.note_null(self.l, id, name)?);
            }
        }
        if let Some(m) = self.resolve_key(id, pos, k, v)? {
            self.value(m, v)?;
        }
        Ok(())
    }

    fn elements(&mut self, id: ColumnId, obj: &Bound<'_, PyAny>) -> WriteResult {
        let mut child = self.l.element(id).expect("a list");
        self.l.begin(id)?;
        let selective = self.l.selects_elements(id);
        let mut element = |w: &mut Self, item: &Bound<'_, PyAny>| -> WriteResult {
            // `c[1]` projected: elements not asked for are not converted
            match selective.then(|| w.l.element_fate(id)) {
                Some(ElementFate::Null) => return Ok(w.l.save_element(id)?),
                Some(ElementFate::Drop) => return Ok(()),
                _ => {}
            }
            if w.state.discover {
                child = w.element_for(id, item)?;
            }
            w.value(child, item)?;
            Ok(w.l.save_element(id)?)
        };
        if let Ok(list) = obj.cast::<PyList>() {
            for item in list.iter() {
                element(self, &item)?;
            }
        } else if let Ok(t) = obj.cast::<PyTuple>() {
            for item in t.iter() {
                element(self, &item)?;
            }
        } else {
            let items = obj
                .try_iter()
                .map_err(|_| conflict(self.l, id, obj, "a list needs a sequence of elements"))?;
            for item in items {
                element(self, &item?)?;
            }
        }
        Ok(())
    }

    fn entries(&mut self, id: ColumnId, obj: &Bound<'_, PyAny>) -> WriteResult {
        let entries = self.l.element(id).expect("a map");
        let key = self.l.column_at(entries, 0).expect("map key");
        let value = self.l.column_at(entries, 1).expect("map value");
        self.l.begin(id)?;
        if let Ok(dict) = obj.cast::<PyDict>() {
            for (k, v) in dict.iter() {
                self.value(key, &k)?;
                self.value(value, &v)?;
                self.l.save_element(id)?;
            }
        } else {
            let pairs = obj.try_iter().map_err(|_| {
                conflict(self.l, id, obj, "a map needs a dict or (key, value) pairs")
            })?;
            for pair in pairs {
                let pair = pair?;
                let (k, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) =
                    pair.extract().map_err(|_| {
                        conflict(self.l, id, &pair, "map entries must be (key, value) pairs")
                    })?;
                self.value(key, &k)?;
                self.value(value, &v)?;
                self.l.save_element(id)?;
            }
        }
        Ok(())
    }

    /// `start` + members + `save`; on any failure the row is discarded (with what it
    /// discovered).
    pub fn row(&mut self, row: &Bound<'_, PyAny>) -> WriteResult {
        if !self.l.start_record()? {
            return Err(WriteError::Loader(LoaderError::State(
                "the batch is full: harvest() it, then start_batch()".into(),
            )));
        }
        if self.state.discover {
            self.state.discovery.begin_row(self.l);
        }
        let r = self.members(ROOT, row).and_then(|_| Ok(self.l.save_row()?));
        if r.is_err() {
            self.discard();
        }
        r
    }

    /// A row failed: discard it, with what it discovered (a row begun without discovery
    /// has nothing to undo); the key caches, which hold column ids, start over if ids went.
    fn discard(&mut self) {
        if self.state.discovery.undo_row(self.l) {
            self.state.keys.clear();
            self.state.order.clear();
        }
    }
}
