//! Schema discovery bookkeeping shared by every writer that adds columns from the data (the
//! Python row path, the JSON reader): which columns were discovered (their int64 may widen to
//! float64) and which lists got a guessed element type because they were first seen empty.
//! A row that fails takes back what it discovered (`begin_row`, `undo_row`).

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields};

use super::error::LoaderError;
use super::lifecycle::ResultSetLoader;
use super::node::{ColumnId, ColumnKind};
use super::options::Projection;
use super::rollback::SchemaMark;

/// What a key cache (the NDJSON reader's, the Python rows') holds as the target of a key
/// whose field has been seen only as null, without a column yet: each null is noted again
/// ([`Discovery::note_null`]) until a value makes the column. Not a column id.
pub const NULL_ONLY: ColumnId = ColumnId::MAX;

/// What discovery remembers about the columns it created.
#[derive(Default, Debug)]
pub struct Discovery {
    /// Indexed by column id (ids are dense): asked for every value, so no hashing.
    discovered: Vec<bool>,
    guessed: Vec<bool>,
    /// Fields seen so far only as null: (struct, name).
    null_only: Vec<(ColumnId, String)>,
    /// Columns created by `settle_nulls` (typed by the null type, not by a value).
    null_typed: Vec<bool>,
    /// The row being written: the columns before it, how many null-only fields were noted
    /// before it, and the lists whose guess it settled.
    row: Option<(SchemaMark, usize)>,
    /// The loader's schema version when the row being written began.
    row_schema: u64,
    settled: Vec<ColumnId>,
    /// The loader's columns before and after the last `settle_nulls` that created some.
    null_settled: Option<(SchemaMark, SchemaMark)>,
    /// Fields the row being written gave a null while they had no column: (struct, the
    /// struct's entry, name). A key naming one again names that column twice.
    row_nulls: RowNulls,
}

/// Whether two field names are one column's, by the loader's rule (equal lowercase forms),
/// without allocating for ASCII names: a row with many null fields compares names for each.
fn same_name(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        a.eq_ignore_ascii_case(b)
    } else {
        a.to_lowercase() == b.to_lowercase()
    }
}

/// The fields a row gave a null while they had no column. A file with such a field notes
/// it on every row: the names' buffers are kept from row to row, not allocated each time.
#[derive(Default, Debug)]
struct RowNulls {
    entries: Vec<(ColumnId, usize, String)>,
    /// How many of `entries` the current row noted (the rest are spare buffers).
    len: usize,
}

impl RowNulls {
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn push(&mut self, parent: ColumnId, entry: usize, name: &str) {
        match self.entries.get_mut(self.len) {
            Some(spare) => {
                spare.0 = parent;
                spare.1 = entry;
                spare.2.clear();
                spare.2.push_str(name);
            }
            None => self.entries.push((parent, entry, name.to_string())),
        }
        self.len += 1;
    }

    fn iter(&self) -> impl Iterator<Item = &(ColumnId, usize, String)> {
        self.entries[..self.len].iter()
    }
}

/// Set flag `id`, growing the vector as needed.
fn set_flag(flags: &mut Vec<bool>, id: ColumnId, on: bool) {
    if flags.len() <= id {
        flags.resize(id + 1, false);
    }
    flags[id] = on;
}

impl Discovery {
    /// Remember `id` and everything below it as discovered.
    pub fn mark(&mut self, l: &ResultSetLoader, id: ColumnId) {
        set_flag(&mut self.discovered, id, true);
        match l.kind(id) {
            ColumnKind::Struct => {
                for i in 0..l.column_count(id) {
                    self.mark(l, l.column_at(id, i).expect("member"));
                }
            }
            ColumnKind::List | ColumnKind::Map => {
                self.mark(l, l.element(id).expect("element"));
            }
            ColumnKind::Scalar => {}
        }
    }

    /// Whether `id` was created by discovery.
    pub fn is_discovered(&self, id: ColumnId) -> bool {
        self.discovered.get(id).copied().unwrap_or(false)
    }

    /// Whether column `id` came with the row being written (its type given by a value of
    /// that row, not an earlier one).
    pub fn is_new_in_row(&self, id: ColumnId) -> bool {
        self.row.as_ref().is_some_and(|(mark, _)| !mark.covers(id))
    }

    /// Whether int64 column `id` may widen to float64 when a float comes: discovery created
    /// it, or its type was inferred from earlier data (`LoaderOptions::inferred`).
    pub fn may_widen(&self, l: &ResultSetLoader, id: ColumnId) -> bool {
        self.is_discovered(id) || l.is_inferred(id)
    }

    /// Record that list `list`'s element type is a guess.
    pub fn guess(&mut self, list: ColumnId) {
        set_flag(&mut self.guessed, list, true);
    }

    /// Whether list `list`'s element type is still a guess.
    pub fn is_guess(&self, list: ColumnId) -> bool {
        self.guessed.get(list).copied().unwrap_or(false)
    }

    /// The guess about `list` is settled (confirmed or replaced).
    pub fn settle(&mut self, list: ColumnId) {
        set_flag(&mut self.guessed, list, false);
        if self.row.is_some() {
            self.settled.push(list);
        }
    }

    /// A row starts: what it discovers can be taken back by `undo_row`.
    #[inline]
    pub fn begin_row(&mut self, l: &mut ResultSetLoader) {
        self.row = Some((l.schema_mark(), self.null_only.len()));
        self.row_schema = l.schema_version();
        if !self.settled.is_empty() {
            self.settled.clear();
        }
        self.row_nulls.clear();
    }

    /// Whether the row being written changed the loader's schema (added, widened or
    /// retyped a column).
    pub fn row_changed_schema(&self, l: &ResultSetLoader) -> bool {
        l.schema_version() != self.row_schema
    }

    /// The row begun last is written again from its start (a faster path gave up on it
    /// having added no column): the null-only fields it noted are forgotten.
    pub fn retry_row(&mut self) {
        if let Some((_, nulls)) = self.row {
            self.null_only.truncate(nulls);
        }
        self.row_nulls.clear();
    }

    /// The row begun last (`begin_row`) failed: discard it, with the columns it added or
    /// widened, the list element types it settled and the null-only fields it noted (see
    /// [`ResultSetLoader::forget_columns_since`]), as if it had never been read. Returns
    /// whether the schema was undone: ids of forgotten columns will be reused, so caches of
    /// ids must go.
    pub fn undo_row(&mut self, l: &mut ResultSetLoader) -> bool {
        let undone = match self.row.take() {
            Some((mark, nulls)) => self.undo_since(l, mark, nulls),
            None => false,
        };
        if l.row_open() {
            l.discard_row();
        }
        undone
    }

    /// `undo_row`'s undoing, back to `mark` and `nulls` null-only fields.
    fn undo_since(&mut self, l: &mut ResultSetLoader, mark: SchemaMark, nulls: usize) -> bool {
        let undone = l.forget_columns_since(mark);
        self.null_only.truncate(nulls);
        for list in std::mem::take(&mut self.settled) {
            // a guess stands again unless its replacement was kept
            if mark.covers(list) && l.element(list).is_some_and(|e| mark.covers(e)) {
                set_flag(&mut self.guessed, list, true);
            }
        }
        if undone {
            self.forget_flags_from(mark);
        }
        undone
    }

    /// Drop what is remembered about the columns created since `mark` (they are gone).
    fn forget_flags_from(&mut self, mark: SchemaMark) {
        for flags in [
            &mut self.discovered,
            &mut self.guessed,
            &mut self.null_typed,
        ] {
            flags.truncate(mark.columns());
        }
    }

    /// Field `name` of struct `parent` was seen as null, with no column yet (it gets one,
    /// null-typed, if it stays null to the batch's end). A name no column can have is
    /// refused now, while its record is known.
    pub fn note_null(
        &mut self,
        l: &ResultSetLoader,
        parent: ColumnId,
        name: &str,
    ) -> Result<(), LoaderError> {
        l.check_member_name(parent, name)?;
        self.note_row_null(l, parent, name)?;
        if !self
            .null_only
            .iter()
            .any(|(p, n)| *p == parent && n == name)
        {
            self.null_only.push((parent, name.to_string()));
        }
        Ok(())
    }

    /// The row being written gave field `name` of struct `parent` a null while it has no
    /// column (so the loader cannot see a second key naming it): refused if the row named
    /// that field before in the same entry, remembered otherwise.
    pub fn note_row_null(
        &mut self,
        l: &ResultSetLoader,
        parent: ColumnId,
        name: &str,
    ) -> Result<(), LoaderError> {
        self.check_new_field(l, parent, name)?;
        self.row_nulls.push(parent, l.pos(parent), name);
        Ok(())
    }

    /// Refuse a column for field `name` of struct `parent` if the row being written gave
    /// that field a null before it had one (`{"a": null, "A": 1}` names `a` twice, as it
    /// does once the column exists).
    pub fn check_new_field(
        &self,
        l: &ResultSetLoader,
        parent: ColumnId,
        name: &str,
    ) -> Result<(), LoaderError> {
        if self.row_nulls.is_empty() {
            return Ok(());
        }
        let entry = l.pos(parent);
        match self
            .row_nulls
            .iter()
            .find(|(p, e, n)| *p == parent && *e == entry && same_name(n, name))
        {
            // named as the row named it first, as the loader names a column
            Some((_, _, first)) => Err(LoaderError::GivenTwice(l.member_path(parent, first))),
            None => Ok(()),
        }
    }

    /// The name a new column for field `name` of struct `parent` takes: as the batch first
    /// spelled that field, if it was null then (`{"a": null}` then `{"A": 1}` is column `a`).
    pub fn first_spelling<'a>(&'a self, parent: ColumnId, name: &'a str) -> &'a str {
        if self.null_only.is_empty() {
            return name;
        }
        self.null_only
            .iter()
            .find(|(p, n)| *p == parent && same_name(n, name))
            .map_or(name, |(_, n)| n.as_str())
    }

    /// Whether `id` got its type from `settle_nulls` (it was null in a whole batch).
    pub fn took_null_type(&self, id: ColumnId) -> bool {
        self.null_typed.get(id).copied().unwrap_or(false)
    }

    /// Give every field seen only as null a column (back-filled with nulls), so it is not
    /// lost: of the shape its projection asks for (`c[1]`: a list, `m.x`: a struct) with
    /// `null_type` where nothing says more. Fields that got a value meanwhile have theirs.
    pub fn settle_nulls(
        &mut self,
        l: &mut ResultSetLoader,
        null_type: &DataType,
    ) -> Result<(), LoaderError> {
        self.null_settled = None;
        if self.null_only.is_empty() {
            return Ok(());
        }
        let before = l.schema_mark();
        for (parent, name) in std::mem::take(&mut self.null_only) {
            if l.column(parent, &name).is_some() {
                continue;
            }
            if let Some(projection) = l.member_projection(parent, &name) {
                let dt = null_shape(projection, null_type);
                // the rows that had it only null may be a batch set aside by an overflow
                let id = l.add_null_column_set_aside_too(parent, Field::new(name, dt, true))?;
                self.mark(l, id);
                set_flag(&mut self.null_typed, id, true);
            }
        }
        let after = l.schema_mark();
        self.null_settled = (after != before).then_some((before, after));
        Ok(())
    }

    /// The batch about to be handed over fixes the schema (types may not change after it):
    /// every column that took the null type in `settle_nulls`, and the element of every
    /// list still seen only empty, keeps its guessed type and takes any later value, a
    /// non-string as its JSON text (`ResultSetLoader::take_any_text`; Drill's JSON reader
    /// reads a field null in a whole batch as JSON text too). The lists' guesses are settled.
    pub fn fix_guesses(&mut self, l: &mut ResultSetLoader) {
        for (id, &null_typed) in self.null_typed.iter().enumerate() {
            if null_typed {
                l.take_any_text(id);
            }
        }
        for list in 0..self.guessed.len() {
            if self.guessed[list] {
                self.guessed[list] = false;
                if let Some(element) = l.element(list) {
                    l.take_any_text(element);
                }
            }
        }
    }

    /// Take back the columns the last `settle_nulls` created, before the next batch's first
    /// row (call it when schema changes are allowed): the batch handed over keeps them, and
    /// the next batch types each from its first value, or gives it the null type again.
    /// Nothing happens if the loader has had columns added since. Returns whether columns
    /// went (their ids will be reused: caches of ids must go).
    pub fn forget_null_typed(&mut self, l: &mut ResultSetLoader) -> bool {
        let Some((before, after)) = self.null_settled.take() else {
            return false;
        };
        if l.row_open() || l.schema_mark() != after || !l.forget_columns_since(before) {
            return false;
        }
        self.forget_flags_from(before);
        true
    }
}

/// The type of a list column that no element has typed yet, member `name` of `parent`: a
/// list of what its projection implies of the elements (`c.x`: structs), else of
/// `null_type`. A guess (see [`Discovery::guess`]) the first element replaces if it is of
/// another type.
pub fn unknown_list_type(
    l: &ResultSetLoader,
    parent: ColumnId,
    name: &str,
    null_type: &DataType,
) -> DataType {
    let element = l
        .member_projection(parent, name)
        .map_or(null_type.clone(), |p| {
            unknown_element_type(p.element(), null_type)
        });
    DataType::List(Arc::new(Field::new("item", element, true)))
}

/// The guessed type of the elements of a list seen only empty, the elements projected as
/// `element`: the shape the projection implies (`c.x`: structs), else `null_type` (utf8 by
/// default: DESIGN.md's null type).
pub fn unknown_element_type(element: &Projection, null_type: &DataType) -> DataType {
    null_shape(element, null_type)
}

/// The type of a column seen only as null: the shape its projection implies, else `null_type`.
fn null_shape(projection: &Projection, null_type: &DataType) -> DataType {
    match projection {
        Projection::All => null_type.clone(),
        Projection::Some(_) | Projection::AllMembers(_) => DataType::Struct(Fields::empty()),
        Projection::Elements { element, .. } | Projection::EveryElement(element) => {
            let element = null_shape(element, null_type);
            DataType::List(Arc::new(Field::new("item", element, true)))
        }
    }
}
