//! The loader itself: options, lifecycle, counters and column lookup.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef, Fields, Schema};

use super::error::{LoaderError, Result};
use super::node::{ColumnId, ColumnKind, Data, Node, Physical, Role, ROOT};
use super::options::{LoaderOptions, Projection};
use super::overflow::FrozenBatch;
use super::path::{self, Step};
use super::tree::{validate_field, RowShape};

/// Where the loader is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Created; no batch started yet.
    Idle,
    /// A batch is being written.
    Active,
    /// The last batch was harvested; `start_batch` comes next.
    Harvested,
    /// Closed: every call fails.
    Closed,
}

/// Writes rows into Arrow buffers and hands back record batches that respect a row limit and
/// byte limits, moving a row that does not fit to the next batch whole (see the module docs).
pub struct ResultSetLoader {
    /// Unique per loader in the process (caches keyed by column id check it).
    pub(crate) instance: u64,
    pub(crate) nodes: Vec<Node>,
    pub(crate) options: LoaderOptions,
    pub(crate) state: State,
    /// Rows committed in the active buffers.
    pub(crate) row_pos: usize,
    /// A row was started and not yet saved.
    pub(crate) row_open: bool,
    /// The open row is one record (`start_record`): each column takes one value per entry,
    /// and a second write is refused instead of overwriting.
    pub(crate) record: bool,
    /// Exported bytes of the active buffers.
    pub(crate) bytes: usize,
    /// The first node a mutation took over `vector_byte_limit` since the last check.
    pub(crate) breach: Option<ColumnId>,
    /// Active rows (`budget_rows`) and the byte count below which no limit breaks with them
    /// (`budget`): the check after each write is one comparison while the rows stay the same.
    pub(crate) budget_rows: usize,
    pub(crate) budget: usize,
    /// What the row's nodes outside lists are (commit fast path); `None` once the schema
    /// changes, measured again at the next commit.
    pub(crate) row_shape: Option<RowShape>,
    /// First writes in the current row to the nodes outside lists, per top-level column (by
    /// position): a column whose count is its shape's needs no back-fill at commit.
    /// `usize::MAX`: the commit walks that column whatever.
    pub(crate) top_writes: Vec<usize>,
    /// The rows every column whose nulls are deferred is counted as holding (`lazy.rs`):
    /// `row_pos`, or one more while a commit that deferred its nulls checks the limits.
    pub(crate) lazy_rows: usize,
    /// The bytes of the nulls deferred and not yet appended (part of `bytes`).
    pub(crate) lazy_debt: usize,
    /// What a null would have added to the columns whose nulls are deferred that the row
    /// being written holds a value of (`Node::deferrable_null_bytes`, summed): they are
    /// owed none for it.
    pub(crate) lazy_written: (usize, usize),
    /// ... of them, those built with `append_bytes` (their UTF-8 is checked at commit).
    pub(crate) lazy_utf8: Vec<ColumnId>,
    /// The number of the row being written (one more at every row begun or begun again):
    /// a column notes its first write in it once (`Node::noted_in`).
    pub(crate) row_stamp: u64,
    /// The full batch set aside when a row overflowed.
    pub(crate) frozen: Option<FrozenBatch>,
    pub(crate) harvested_rows: u64,
    pub(crate) harvested_batches: u64,
    pub(crate) schema_version: u64,
    /// Columns widened to float64 since the last schema mark, with their int64 values then,
    /// so that `forget_columns_since` can narrow them back exactly.
    pub(crate) widened: Vec<super::rollback::Widened>,
    /// Per top-level column (by position): its type was inferred from earlier data
    /// (`LoaderOptions::inferred`), so discovering writers may widen its int64s.
    pub(crate) inferred: Vec<bool>,
    /// How many top-level columns the schema given made: those after them were discovered.
    pub(crate) schema_tops: usize,
    /// What the row being written did that its reader reports, per column, once per value
    /// (`note_text_kept`, `note_whole_rounded`): counted when the row is saved.
    pub(crate) row_notes: Vec<(RowNote, ColumnId)>,
    /// Per kind and column, the values so noted in rows saved since it was last taken.
    pub(crate) notes: HashMap<(RowNote, ColumnId), u64>,
}

/// A value's fate a reader reports per column (counted in rows saved only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RowNote {
    /// A value that is not a string, kept as its JSON text in a column typed by a guess.
    TextKept,
    /// A whole number past int64 rounded to the nearest float64 in a column the data typed.
    WholeRounded,
}

impl ResultSetLoader {
    /// A loader with `options`; the schema's columns (if any) are defined at once.
    pub fn new(options: LoaderOptions) -> Result<Self> {
        options.validate()?;
        let root_field = Arc::new(Field::new("", DataType::Struct(Fields::empty()), false));
        let root_projection = options.projection.clone();
        static INSTANCES: AtomicU64 = AtomicU64::new(1);
        let mut loader = ResultSetLoader {
            instance: INSTANCES.fetch_add(1, Ordering::Relaxed),
            nodes: Vec::new(),
            options,
            state: State::Idle,
            row_pos: 0,
            row_open: false,
            record: false,
            bytes: 0,
            breach: None,
            budget_rows: usize::MAX,
            budget: 0,
            row_shape: None,
            top_writes: Vec::new(),
            lazy_rows: 0,
            lazy_debt: 0,
            lazy_written: (0, 0),
            lazy_utf8: Vec::new(),
            row_stamp: 1,
            frozen: None,
            harvested_rows: 0,
            harvested_batches: 0,
            schema_version: 0,
            widened: Vec::new(),
            inferred: Vec::new(),
            schema_tops: 0,
            row_notes: Vec::new(),
            notes: HashMap::new(),
        };
        loader.build_node(
            &root_field,
            Role::Root,
            Some(root_projection),
            String::new(),
            true,
        )?;
        if let Some(schema) = loader.options.schema.clone() {
            for field in schema.fields() {
                loader.add_column(ROOT, field.clone())?;
            }
        }
        loader.schema_tops = loader.top_writes.len();
        loader.inferred = loader.top_flags(&loader.options.inferred, "inferred")?;
        let index = loader.columns_by_path();
        for name in loader.options.declared.clone() {
            let id = loader.column(ROOT, &name);
            let id = id.or_else(|| index.get(&name.to_lowercase()).copied());
            let id = id.ok_or_else(|| {
                LoaderError::InvalidArgument(format!(
                    "declared column '{name}' is not in the schema"
                ))
            })?;
            loader.for_subtree(id, |n| n.declared = true);
        }
        for path in loader.options.text_guesses.clone() {
            let id = *index.get(&path.to_lowercase()).ok_or_else(|| {
                LoaderError::InvalidArgument(format!("text_guesses: no column '{path}'"))
            })?;
            loader.take_any_text(id);
        }
        Ok(loader)
    }

    /// Per top-level column (by position), whether `names` names it; `what` says which
    /// list a name that is not in the schema came from.
    fn top_flags(&self, names: &[String], what: &str) -> Result<Vec<bool>> {
        let mut flags = Vec::new();
        for name in names {
            let Some(id) = self.column(ROOT, name) else {
                return Err(LoaderError::InvalidArgument(format!(
                    "{what} column '{name}' is not in the schema"
                )));
            };
            let top = self.nodes[id].top;
            if flags.len() <= top {
                flags.resize(top + 1, false);
            }
            flags[top] = true;
        }
        Ok(flags)
    }

    /// Whether column `id` belongs to a top-level column whose type was inferred from
    /// earlier data (`LoaderOptions::inferred`): a discovering writer may widen it as if it
    /// had discovered it.
    pub fn is_inferred(&self, id: ColumnId) -> bool {
        self.nodes
            .get(id)
            .and_then(|n| self.inferred.get(n.top))
            .copied()
            .unwrap_or(false)
    }

    /// Whether column `id`'s type came from data, not from the user: it is not declared, and
    /// its top-level column was inferred from earlier data (`LoaderOptions::inferred`) or
    /// discovered by this loader's writers (not in the schema it was given).
    pub fn typed_by_data(&self, id: ColumnId) -> bool {
        !self.is_declared(id)
            && self
                .nodes
                .get(id)
                .is_some_and(|n| n.top >= self.schema_tops || self.is_inferred(id))
    }

    /// Whether column `id` is a utf8 column that takes any JSON value, a non-string as its
    /// text: in a column the user declared (`LoaderOptions::declared`), or
    /// typed by a guess the schema fixed (`take_any_text`).
    pub fn takes_any_text(&self, id: ColumnId) -> bool {
        self.nodes.get(id).is_some_and(|n| {
            matches!(n.physical, Some(Physical::Utf8)) && (n.any_text || self.is_declared(id))
        })
    }

    /// Whether column `id` lies in a column whose type the user declared
    /// (`LoaderOptions::declared`), not one the data typed.
    pub fn is_declared(&self, id: ColumnId) -> bool {
        self.nodes.get(id).is_some_and(|n| n.declared)
    }

    /// Mark column `id` and everything below it as typed by a guess the schema fixed (no
    /// value had shown the type): its utf8 columns take any JSON value, a non-string as its
    /// text (`takes_any_text`), so a later value of another type is kept as text rather
    /// than refused, as Drill's JSON reader does with a field null in a whole batch; a
    /// member a reader finds later in a struct among them is such a column too
    /// (`is_fixed_guess`).
    pub fn take_any_text(&mut self, id: ColumnId) {
        if id < self.nodes.len() {
            self.for_subtree(id, |n| n.any_text = true);
        }
    }

    /// Apply `change` to column `id` and every column below it.
    fn for_subtree(&mut self, id: ColumnId, change: impl Fn(&mut Node)) {
        let mut pending = vec![id];
        while let Some(id) = pending.pop() {
            change(&mut self.nodes[id]);
            pending.extend(self.children(id));
        }
    }

    /// `take_any_text` for the parts of `schema` at `paths` (as `LoaderOptions::text_guesses`
    /// names them), each added first if the loader lacks it (a column no row had, a member
    /// the projection asked for): a scan whose first batch fixed types it guessed tells the
    /// loader of a file being read, whose reader would otherwise type them anew from a
    /// later value. A path `schema` does not have is left alone.
    pub fn fix_text_guesses(&mut self, schema: &Schema, paths: &[String]) -> Result<()> {
        let mut index = self.columns_by_path();
        for path in paths {
            let id = match index.get(&path.to_lowercase()) {
                Some(&id) => id,
                None => match self.add_from_schema(schema, path, &index)? {
                    Some(id) => {
                        index = self.columns_by_path();
                        id
                    }
                    None => continue,
                },
            };
            self.take_any_text(id);
        }
        Ok(())
    }

    /// Add the column at `path` (`m.x`: a member of `m`, which must be a struct here) typed
    /// as `schema` has it; `None` if either lacks what it takes (a list's element is never
    /// missing: it comes with its list).
    fn add_from_schema(
        &mut self,
        schema: &Schema,
        path: &str,
        index: &HashMap<String, ColumnId>,
    ) -> Result<Option<ColumnId>> {
        let Some(field) = field_at(schema, path) else {
            return Ok(None);
        };
        let Some((top, mut steps)) = path::steps(path) else {
            return Ok(None);
        };
        let parent = match steps.pop() {
            None => ROOT,
            Some(Step::Member(_)) => match index.get(&path::join(&top, &steps).to_lowercase()) {
                Some(&id) if self.kind(id) == ColumnKind::Struct => id,
                _ => return Ok(None),
            },
            Some(Step::Elements) => return Ok(None),
        };
        self.add_column(parent, field).map(Some)
    }

    /// Whether column `id` was marked by `take_any_text` (its type a guess the schema fixed).
    pub fn is_fixed_guess(&self, id: ColumnId) -> bool {
        self.nodes.get(id).is_some_and(|n| n.any_text)
    }

    /// Note that the row being written keeps a value that is not a string (a number, an
    /// object...) as its JSON text in column `id` (`takes_any_text`). Counted only for a
    /// column typed by a guess (`is_fixed_guess`; a declared utf8 column asks for text), and
    /// only once the row is saved: a row discarded or written again is not counted.
    pub fn note_text_kept(&mut self, id: ColumnId) {
        if self.is_fixed_guess(id) {
            self.row_notes.push((RowNote::TextKept, id));
        }
    }

    /// Note that the row being written has a whole number past int64 that column `id`
    /// (typed by the data: float64) holds rounded to the nearest float64, digits lost.
    /// Counted once the row is saved, as `note_text_kept` is.
    pub fn note_whole_rounded(&mut self, id: ColumnId) {
        self.row_notes.push((RowNote::WholeRounded, id));
    }

    /// The values kept as text in columns typed by a guess (`note_text_kept`), by column
    /// path (`m.x`, `l[]`, in path order), in rows saved since the last call; the counts
    /// start again.
    pub fn take_text_kept(&mut self) -> Vec<(String, u64)> {
        self.take_notes(RowNote::TextKept)
    }

    /// The whole numbers rounded to float64 (`note_whole_rounded`), as `take_text_kept`.
    pub fn take_wholes_rounded(&mut self) -> Vec<(String, u64)> {
        self.take_notes(RowNote::WholeRounded)
    }

    /// The values noted `kind` by column path, in rows saved since they were last taken.
    fn take_notes(&mut self, kind: RowNote) -> Vec<(String, u64)> {
        let mut taken = Vec::new();
        self.notes.retain(|&(k, id), &mut n| {
            if k == kind {
                taken.push((self.nodes[id].path.clone(), n));
            }
            k != kind
        });
        taken.sort_unstable();
        taken
    }

    /// The column whose path (`ResultSetLoader::path`: `m.x`, `l[]`) is `path`, in any case
    /// (a map's entries share the map's path: the map is found).
    pub fn column_by_path(&self, path: &str) -> Option<ColumnId> {
        self.columns_by_path().get(&path.to_lowercase()).copied()
    }

    /// Every column the row reaches, by its path in lower case (one walk of the tree, for
    /// callers that look up many paths).
    fn columns_by_path(&self) -> HashMap<String, ColumnId> {
        let mut index = HashMap::new();
        let mut pending = self.children(ROOT);
        while let Some(id) = pending.pop() {
            // a map before its entries, which share its path
            index
                .entry(self.nodes[id].path.to_lowercase())
                .or_insert(id);
            pending.extend(self.children(id));
        }
        index
    }

    /// The members of struct `id`, or the element of list `id` (none for a scalar).
    pub(crate) fn children(&self, id: ColumnId) -> Vec<ColumnId> {
        match &self.nodes[id].data {
            Data::Struct { members, .. } => members.clone(),
            Data::List { child, .. } => vec![*child],
            _ => Vec::new(),
        }
    }

    pub(crate) fn check_open(&self) -> Result<()> {
        if self.state == State::Closed {
            return Err(LoaderError::State("the loader is closed".into()));
        }
        Ok(())
    }

    pub(crate) fn check_active(&self, what: &str) -> Result<()> {
        match self.state {
            State::Active => Ok(()),
            State::Closed => Err(LoaderError::State(format!("{what}: the loader is closed"))),
            State::Idle => Err(LoaderError::State(format!(
                "{what}: no batch started; call start_batch() first"
            ))),
            State::Harvested => Err(LoaderError::State(format!(
                "{what}: the batch was harvested; call start_batch() to begin the next one"
            ))),
        }
    }

    /// Begin a batch. Returns `false` (and starts nothing) once `limit` rows were harvested.
    pub fn start_batch(&mut self) -> Result<bool> {
        match self.state {
            State::Closed => return Err(LoaderError::State("the loader is closed".into())),
            State::Active => {
                return Err(LoaderError::State(
                    "start_batch() called twice: harvest() the current batch first".into(),
                ))
            }
            State::Idle | State::Harvested => {}
        }
        if self.options.limit.is_some_and(|l| self.harvested_rows >= l) {
            return Ok(false);
        }
        self.state = State::Active;
        Ok(true)
    }

    /// The most rows the current batch may hold: the row limit, or what `limit` leaves.
    fn batch_row_limit(&self) -> usize {
        let mut n = self.options.row_limit;
        if let Some(limit) = self.options.limit {
            let left = limit.saturating_sub(self.harvested_rows);
            n = n.min(usize::try_from(left).unwrap_or(usize::MAX));
        }
        n
    }

    /// True at the row limit (or `limit`), or as soon as a row overflowed.
    pub fn is_full(&self) -> bool {
        self.frozen.is_some() || self.row_pos >= self.batch_row_limit()
    }

    /// Begin a row. Returns `false` if the batch is full. A row started and not saved is
    /// discarded here.
    pub fn start_row(&mut self) -> Result<bool> {
        self.check_active("start()")?;
        if self.row_open {
            self.discard_row();
        }
        if self.is_full() {
            return Ok(false);
        }
        self.row_open = true;
        self.record = false;
        self.clear_top_writes();
        Ok(true)
    }

    /// `start_row` for a row written from one record (a JSON object, a Python dict): a column
    /// given twice in it (`{"A": 1, "a": 2}`: names are case-insensitive) is refused with a
    /// `SchemaConflict`, where a row from `start_row` overwrites.
    pub fn start_record(&mut self) -> Result<bool> {
        let started = self.start_row()?;
        self.record = started;
        Ok(started)
    }

    /// Whether a row is started and not yet saved.
    pub fn row_open(&self) -> bool {
        self.row_open
    }

    /// Commit the row: back-fill the columns it did not write. The commit itself can overflow
    /// (a fill takes a buffer over its limit) or reject the row (`RowTooLarge`).
    pub fn save_row(&mut self) -> Result<()> {
        self.commit_row(false).map(|_| ())
    }

    /// `save_row`, unless the row overflowed (in a write, or now, in its commit): then it
    /// is left open and unsaved, the rows before it set aside as the batch to harvest, and
    /// `false` is returned; discard it next (`discard_row`, or a discovery's `undo_row`).
    /// For a reader whose row changed the schema: written again at the start of the next
    /// batch, after its consumer has seen the batch set aside (and perhaps fixed its
    /// schema), it is read as if it had not been written before that batch ended.
    pub fn save_row_unless_moved(&mut self) -> Result<bool> {
        self.commit_row(true)
    }

    /// Whether the row being written overflowed: it is the first of the look-ahead batch,
    /// the rows before it set aside as the batch to harvest.
    pub fn row_moved(&self) -> bool {
        self.row_open && self.row_pos == 0 && self.frozen.is_some()
    }

    /// `save_row`; if `unless_moved`, a row that overflowed is left open (`false`).
    fn commit_row(&mut self, unless_moved: bool) -> Result<bool> {
        self.check_active("save()")?;
        if !self.row_open {
            return Err(LoaderError::State("save() without start()".into()));
        }
        if unless_moved && self.row_moved() {
            return Ok(false);
        }
        if let Err(e) = self.finalize_row(self.row_pos) {
            self.discard_row();
            return Err(e);
        }
        self.defer_row_nulls(self.row_pos);
        self.after_write(ROOT)?;
        if unless_moved && self.row_moved() {
            // its commit overflowed: the nulls it deferred go with it (`discard_row`)
            return Ok(false);
        }
        self.row_pos += 1;
        self.row_open = false;
        for note in self.row_notes.drain(..) {
            *self.notes.entry(note).or_default() += 1;
        }
        Ok(true)
    }

    /// Drop what the row being written wrote and begin it again in its place (a reader
    /// that tried a quick way of writing a record and must write it another way), open even
    /// if a write rejected it (`RowTooLarge` closes the row): written again, it meets the same
    /// rejection. A batch the row overflowed from stays set aside: the row goes on in the
    /// look-ahead batch. Call it only for a row begun (`start_row`) and not saved.
    pub fn restart_row(&mut self) {
        if self.state != State::Active {
            return;
        }
        self.truncate(ROOT, self.row_pos);
        self.row_open = true;
        self.breach = None;
        self.clear_top_writes();
    }

    /// Zero the row's first-write counts. Not for an empty list: its pointer is dangling,
    /// and glibc's AVX-512 `memset` of 0 bytes there is a masked store to an unmapped page,
    /// which costs a microcode assist (~60 ns a row, a third of a CSV scan with no column).
    /// A wide schema's row zeroes only what it can have counted: the columns the commit
    /// walks (writes to columns whose nulls are deferred are noted, not counted).
    #[inline(always)]
    fn clear_top_writes(&mut self) {
        match &self.row_shape {
            Some(shape) if self.top_writes.len() > 64 => {
                for top in shape.walked_columns() {
                    self.top_writes[top] = 0;
                }
            }
            _ if !self.top_writes.is_empty() => self.top_writes.fill(0),
            _ => {}
        }
        self.lazy_written = (0, 0);
        self.lazy_utf8.clear();
        self.row_notes.clear();
        self.row_stamp += 1;
    }

    /// Drop everything written for the current row, at every level.
    pub fn discard_row(&mut self) {
        self.truncate(ROOT, self.row_pos);
        self.row_notes.clear();
        self.forget_uncommitted_nulls();
        self.row_open = false;
        self.breach = None;
    }

    /// Close the loader and release its buffers.
    pub fn close(&mut self) {
        self.frozen = None;
        if self.state != State::Closed {
            self.truncate(ROOT, 0);
        }
        self.lazy_rows = 0;
        self.lazy_debt = 0;
        self.row_open = false;
        self.state = State::Closed;
    }

    /// A number no other loader of this process has: caches of column ids check it.
    pub fn instance_id(&self) -> u64 {
        self.instance
    }

    /// Whether a batch is being written (started and not yet harvested).
    pub fn is_active(&self) -> bool {
        self.state == State::Active
    }

    /// Whether a member `name` of struct `parent` would be kept if it were added.
    pub fn would_project(&self, parent: ColumnId, name: &str) -> bool {
        self.member_projection(parent, name).is_some()
    }

    /// How a member `name` of struct `parent` would be projected (`None`: it would not be).
    pub fn member_projection(&self, parent: ColumnId, name: &str) -> Option<&Projection> {
        let node = &self.nodes[parent];
        node.projected.then(|| node.projection.member(name))?
    }

    /// How column `id` is projected: which of its members and elements are kept, and the
    /// shape the projection implies for them.
    pub fn projection(&self, id: ColumnId) -> &Projection {
        &self.nodes[id].projection
    }

    /// Whether the loader was closed.
    pub fn is_closed(&self) -> bool {
        self.state == State::Closed
    }

    /// Rows of the batch being built (not counting a pending overflow row).
    pub fn row_count(&self) -> usize {
        match (&self.frozen, self.state) {
            (Some(f), _) => f.rows,
            (None, State::Active) => self.row_pos,
            _ => 0,
        }
    }

    /// Rows saved over the loader's life, including a pending overflow row.
    pub fn total_row_count(&self) -> u64 {
        self.harvested_rows
            + self.frozen.as_ref().map_or(0, |f| f.rows as u64)
            + self.row_pos as u64
    }

    /// Rows handed out in harvested batches so far.
    pub fn harvested_total(&self) -> u64 {
        self.harvested_rows
    }

    /// Batches harvested, plus one if the current batch has rows.
    pub fn batch_count(&self) -> u64 {
        self.harvested_batches + u64::from(self.row_count() > 0)
    }

    /// Exported bytes of the batch being built.
    pub fn batch_bytes(&self) -> usize {
        match (&self.frozen, self.state) {
            (Some(f), _) => f.bytes,
            (None, State::Active) => self.active_bytes(),
            _ => 0,
        }
    }

    /// Exported bytes of the active buffers (a running total kept by every mutation).
    pub(crate) fn active_bytes(&self) -> usize {
        self.bytes
    }

    /// +1 for every projected column added, nested members too.
    pub fn schema_version(&self) -> u64 {
        self.schema_version
    }

    /// The options the loader was built with.
    pub fn options(&self) -> &LoaderOptions {
        &self.options
    }

    /// Member `name` (case-insensitive) of struct `parent` (`ROOT` for top-level columns).
    pub fn column(&self, parent: ColumnId, name: &str) -> Option<ColumnId> {
        match &self.nodes.get(parent)?.data {
            Data::Struct { members, index } => {
                let i = match index.get(name) {
                    Some(i) => *i,
                    None => *index.get(&name.to_lowercase())?,
                };
                Some(members[i])
            }
            _ => None,
        }
    }

    /// Member `i` of struct `parent`, in the order of addition.
    pub fn column_at(&self, parent: ColumnId, i: usize) -> Option<ColumnId> {
        self.member_at(parent, i)
    }

    /// How many column ids the loader has given (every column's, nested ones too): it
    /// changes whenever a column is added or forgotten.
    #[inline]
    pub fn column_ids(&self) -> usize {
        self.nodes.len()
    }

    /// Number of members of struct `parent`.
    pub fn column_count(&self, parent: ColumnId) -> usize {
        match &self.nodes[parent].data {
            Data::Struct { members, .. } => members.len(),
            _ => 0,
        }
    }

    /// The element writer of a list (the entries struct of a map).
    pub fn element(&self, list: ColumnId) -> Option<ColumnId> {
        self.child_of(list)
    }

    /// What column `id` holds.
    pub fn kind(&self, id: ColumnId) -> ColumnKind {
        self.nodes[id].kind()
    }

    /// The declared field of column `id` (struct types as declared when added).
    pub fn field(&self, id: ColumnId) -> &FieldRef {
        &self.nodes[id].field
    }

    /// The dotted path of column `id`, for messages.
    pub fn path(&self, id: ColumnId) -> &str {
        &self.nodes[id].path
    }

    /// Whether `id` is a decimal column (readers take its values from their text).
    #[inline]
    pub fn is_decimal(&self, id: ColumnId) -> bool {
        matches!(self.nodes[id].physical, Some(Physical::Decimal { .. }))
    }

    /// Whether `id` takes a number best from its text, not from an f64 made of it: a decimal
    /// (exact digits) or a float32 (rounded once).
    #[inline(always)]
    pub fn takes_number_text(&self, id: ColumnId) -> bool {
        matches!(
            self.nodes[id].physical,
            Some(Physical::Decimal { .. } | Physical::Float32)
        )
    }

    /// Whether writes to `id` are kept.
    pub fn is_projected(&self, id: ColumnId) -> bool {
        self.nodes[id].projected
    }

    /// Whether `id` is a member of a struct (not a list element or the row).
    pub fn is_member(&self, id: ColumnId) -> bool {
        matches!(self.nodes[id].role, Role::Member(_))
    }

    /// The schema of the projected columns as they stand now.
    pub fn schema(&self) -> Schema {
        match self.current_field(ROOT).data_type() {
            DataType::Struct(fields) => Schema::new(fields.clone()),
            _ => unreachable!("the row is a struct"),
        }
    }

    /// The field of a projected node, with struct members and list elements as they are now.
    pub(crate) fn current_field(&self, id: ColumnId) -> FieldRef {
        let node = &self.nodes[id];
        let dt = match (&node.data, node.field.data_type()) {
            (Data::Struct { members, .. }, _) => DataType::Struct(
                members
                    .iter()
                    .filter(|m| self.nodes[**m].projected)
                    .map(|m| self.current_field(*m))
                    .collect(),
            ),
            (Data::List { child, .. }, DataType::List(_)) => {
                DataType::List(self.current_field(*child))
            }
            (Data::List { child, .. }, DataType::LargeList(_)) => {
                DataType::LargeList(self.current_field(*child))
            }
            (Data::List { child, .. }, DataType::Map(_, sorted)) => {
                DataType::Map(self.current_field(*child), *sorted)
            }
            (_, dt) => dt.clone(),
        };
        Arc::new(node.field.as_ref().clone().with_data_type(dt))
    }

    /// Validate a field as `add_column` would, without adding it.
    pub fn check_field(field: &Field) -> Result<()> {
        validate_field(field, &path::step(field.name()), 1)
    }
}

/// The field of `schema` at `path` (`m.x`, `l[]`, `l[].x`; names in any case).
fn field_at(schema: &Schema, path: &str) -> Option<FieldRef> {
    let (top, steps) = path::steps(path)?;
    let named = |fields: &Fields, name: &str| {
        let name = name.to_lowercase();
        fields
            .iter()
            .find(|f| f.name().to_lowercase() == name)
            .cloned()
    };
    let mut field = named(schema.fields(), &top)?;
    for step in &steps {
        field = match (step, field.data_type()) {
            (Step::Elements, DataType::List(f) | DataType::LargeList(f)) => f.clone(),
            (Step::Member(name), DataType::Struct(members)) => named(members, name)?,
            _ => return None,
        };
    }
    Some(field)
}
