//! Writing values: scalars, nulls, appended bytes, list elements.

use arrow_schema::DataType;

use super::append::{extend, push};
use super::error::{LoaderError, Result};
use super::lifecycle::ResultSetLoader;
use super::node::{
    offset_get, offset_push, offset_width, ColumnId, ColumnKind, Data, EncodeError, Encoded, Node,
    Physical, Role, ROOT,
};
use super::options::{ElementFate, Projection};
use super::rollback::Widened;
use super::value::Value;

impl ResultSetLoader {
    #[inline(always)]
    fn check_writable(&self, id: ColumnId) -> Result<()> {
        if self.row_open && id < self.nodes.len() {
            return Ok(());
        }
        self.not_writable(id)
    }

    #[cold]
    #[inline(never)]
    fn not_writable(&self, id: ColumnId) -> Result<()> {
        if !self.row_open {
            self.check_active("write")?;
            return Err(LoaderError::State(format!(
                "cannot write column '{}': no row started; call start() first",
                self.nodes.get(id).map_or("?", |n| n.path.as_str())
            )));
        }
        if id >= self.nodes.len() {
            return Err(LoaderError::InvalidArgument(format!(
                "no column with id {id}"
            )));
        }
        Ok(())
    }

    /// The position of `id`'s entry if that entry can be written without further ado: its
    /// parent's entry is open and `id` has not been written in it yet. A member is never
    /// shorter than its struct's position, so a member one entry short of its (valid) struct
    /// entry is exactly that case; a top-level column compares with the row index.
    #[inline(always)]
    fn fresh_entry(&self, id: ColumnId) -> Option<usize> {
        let node = &self.nodes[id];
        match node.role {
            Role::Member(ROOT) => (node.len == self.row_pos).then_some(node.len),
            // a member with one entry a row is at the row too: one whose nulls were deferred
            // may be short of an earlier entry of its struct
            Role::Member(s) => ((node.anchor.is_some() || node.len == self.row_pos)
                && self.is_open_at(s, node.len))
            .then_some(node.len),
            _ => None,
        }
    }

    /// Make the entry that writes to `id` land in exist: the parent struct or list entry,
    /// and, if `id` was already written in this entry, drop that value (a write overwrites).
    #[inline(always)]
    fn prepare_entry(&mut self, id: ColumnId) -> usize {
        self.catch_up(id);
        if let Some(p) = self.fresh_entry(id) {
            self.count_first_write(id);
            return p;
        }
        let p = self.pos(id);
        if self.nodes[id].len > p {
            self.truncate(id, p);
        }
        if let Some(parent) = self.parent(id) {
            self.ensure_open(parent);
        }
        // the entry the caller writes: a column whose nulls are deferred notes it (a member
        // whose struct was not open yet, as much as one written over)
        self.note_lazy_write(id);
        p
    }

    /// Write `value` to column `id` in the current row (or list element). Writing a column
    /// twice overwrites. `Value::Null` works on any nullable column; on a non-nullable
    /// struct, list or map it stores the back-fill value (struct of defaults, `[]`, `{}`).
    #[inline(always)]
    pub fn set(&mut self, id: ColumnId, value: Value<'_>) -> Result<()> {
        match self.set_first(id, value) {
            Some(()) => self.after_write(id),
            None => self.set_any(id, value),
        }
    }

    /// `set` if it is its common case (see `set_first`), for a caller that would otherwise
    /// check the column's type first: `false` if nothing was written (then call `set`, or
    /// whatever the caller does for other columns). It does not check the limits: the
    /// caller calls [`limits_hold`](Self::limits_hold) before it saves the row, and if they
    /// do not, writes the row again through `set` (which overflows at the write that broke
    /// them); or it leaves them to the next `set` or to `save_row`, which overflow (or
    /// refuse the row) for a limit any write of the row broke.
    #[inline(always)]
    pub fn set_plain(&mut self, id: ColumnId, value: Value<'_>) -> bool {
        self.set_first(id, value).is_some() || self.set_first_after_nulls(id, value)
    }

    /// `set_first` on a column owed deferred nulls (`lazy.rs`), which it appends first: the
    /// usual write to a sparse column. `false` (nothing written) for any other column.
    #[inline(never)]
    fn set_first_after_nulls(&mut self, id: ColumnId, value: Value<'_>) -> bool {
        if !self.row_open || !self.is_owed_nulls(id) {
            return false;
        }
        self.pad(id);
        self.set_first(id, value).is_some()
    }

    /// `set`'s common case in one pass over one node: the first write, in an open entry (or
    /// as the next element of an open list entry), of a null or of a value stored as it comes
    /// (int64, float64, utf8, bool, timestamp) to a scalar column. `None` (nothing written):
    /// any other case, left to `set_any`.
    #[inline(always)]
    fn set_first(&mut self, id: ColumnId, value: Value<'_>) -> Option<()> {
        if !self.row_open {
            return None;
        }
        // (a column short of the rows, its nulls deferred, is not fresh: `set_any` pads it)
        let node = self.nodes.get(id)?;
        let fresh = match node.role {
            Role::Element(_) => self.fresh_element(id),
            _ => node.projected && self.fresh_entry(id).is_some(),
        };
        if !fresh {
            return None;
        }
        self.push_first(id, value)
    }

    /// Whether `id` is the element node of a list whose current entry is open, with no
    /// element of it written yet: its next write is a first write.
    #[inline(always)]
    fn fresh_element(&self, id: ColumnId) -> bool {
        let Some(node) = self.nodes.get(id) else {
            return false;
        };
        let Role::Element(list) = node.role else {
            return false;
        };
        node.projected
            && node.len == self.nodes[list].last_offset()
            && self.is_open_at(list, self.pos(list))
    }

    /// The first write of `value` to scalar `id`, whose entry is known to be next, in one
    /// pass if the value is stored as it comes (or is a null); `None`: nothing written.
    #[inline(always)]
    fn push_first(&mut self, id: ColumnId, value: Value<'_>) -> Option<()> {
        let node = &mut self.nodes[id];
        let valid = value != Value::Null;
        if !valid && node.validity.is_none() {
            return None;
        }
        let at = node.len;
        // the bytes the entry adds: its value, its offset, its validity bit's new byte
        let mut grown = match (node.physical?, value, &mut node.data) {
            (_, Value::Null, _) => {
                let before = node.own_bytes();
                node.push_null();
                node.own_bytes() - before
            }
            (
                Physical::Int {
                    width: 8,
                    signed: true,
                },
                Value::Int(i),
                Data::Fixed { values, .. },
            )
            | (
                Physical::Timestamp,
                Value::Timestamp(i) | Value::Int(i),
                Data::Fixed { values, .. },
            ) => {
                push(values, i);
                8
            }
            (Physical::Float64, Value::Float(x), Data::Fixed { values, .. }) => {
                push(values, x);
                8
            }
            (
                Physical::Utf8,
                Value::Str(text),
                Data::Var {
                    large,
                    offsets,
                    data,
                },
            ) => {
                extend(data, text.as_bytes());
                offset_push(offsets, *large, data.len());
                text.len() + offset_width(*large)
            }
            (Physical::Bool, Value::Bool(b), Data::Bool(bits)) => {
                bits.append(b);
                usize::from(at.is_multiple_of(8))
            }
            // narrower or unsigned ints and dates: range-checked as `set` checks them (a
            // value out of range is left to `set`, which says so); not float32 or decimals,
            // whose readers convert from the text
            (Physical::Int { .. } | Physical::Date32, _, Data::Fixed { width, .. }) => {
                let width = *width;
                let encoded = node.encode(&value).ok()?;
                let validity_grew = node.validity.is_some() && at.is_multiple_of(8);
                node.push_encoded(&encoded);
                self.first_entry_grew(id, width + usize::from(validity_grew));
                return Some(());
            }
            _ => return None,
        };
        if valid {
            if let Some(v) = node.validity.as_mut() {
                v.append(true);
                grown += usize::from(at.is_multiple_of(8));
            }
            node.len = at + 1;
        }
        self.first_entry_grew(id, grown);
        Some(())
    }

    /// Node `id` took a new entry by a first write, `grown` bytes more: count both.
    #[inline(always)]
    fn first_entry_grew(&mut self, id: ColumnId, grown: usize) {
        let own = self.nodes[id].counted + grown;
        debug_assert_eq!(own, self.nodes[id].own_bytes(), "{}", self.nodes[id].path);
        self.account(id, own);
        self.count_first_write(id);
    }

    /// Count a first write to node `id` in the row (nodes in lists are not counted).
    #[inline(always)]
    fn count_first_write(&mut self, id: ColumnId) {
        let node = &self.nodes[id];
        if node.anchor.is_none() {
            if node.deferrable_null_bytes().is_some() {
                return self.note_lazy_write(id); // not walked by the commit: noted
            }
            if let Some(count) = self.top_writes.get_mut(node.top) {
                // Saturating: usize::MAX marks a column the commit walks whatever follows.
                *count = count.saturating_add(1);
            }
        }
    }

    /// `set` past its common case: checks, conversions, overwrites, opening the parent
    /// entry, compound columns, and the errors.
    #[inline(never)]
    fn set_any(&mut self, id: ColumnId, value: Value<'_>) -> Result<()> {
        // A list's next element, or a column owed nulls: the same one pass, out of `set`'s
        // inlined path.
        if self.row_open && self.fresh_element(id) && self.push_first(id, value).is_some() {
            return self.after_write(id);
        }
        if self.set_first_after_nulls(id, value) {
            return self.after_write(id);
        }
        self.set_checked(id, value)
    }

    /// `set` without its one-pass case: every check, the conversion, then the push. It must
    /// store what `push_first` stores for every value both take (tested type by type).
    pub(crate) fn set_checked(&mut self, id: ColumnId, value: Value<'_>) -> Result<()> {
        self.check_writable(id)?;
        self.refuse_second_write(id)?;
        let node = &self.nodes[id];
        if !node.projected {
            return Ok(());
        }
        if node.physical.is_none() {
            return self.set_compound(id, value);
        }
        let encoded = match node.encode(&value) {
            Ok(encoded) => encoded,
            Err(e) => return Err(self.refuse(id, &value, Some(e))),
        };
        if matches!(encoded, Encoded::Null) && !node.nullable() {
            return Err(self.refuse(id, &value, None));
        }
        self.prepare_entry(id);
        self.mutate(id, |n| n.push_encoded(&encoded));
        self.after_write(id)
    }

    /// `set` on a struct, list or map: only a null (the back-fill value if not nullable).
    #[inline(never)]
    fn set_compound(&mut self, id: ColumnId, value: Value<'_>) -> Result<()> {
        if value != Value::Null {
            return Err(LoaderError::SchemaConflict(format!(
                "column '{}' is a {}: write its members or elements, not {} value {value}",
                self.nodes[id].path,
                self.current_field(id).data_type(),
                value.kind()
            )));
        }
        self.prepare_entry(id);
        self.mutate(id, Node::push_fill);
        if let Data::Struct { .. } = self.nodes[id].data {
            let p = self.nodes[id].len - 1;
            self.finalize(id, p)?;
        }
        self.after_write(id)
    }

    /// Why scalar column `id` refuses `value`: it does not encode, or (`None`) it is a null
    /// for a non-nullable column.
    #[cold]
    #[inline(never)]
    fn refuse(&self, id: ColumnId, value: &Value<'_>, error: Option<EncodeError>) -> LoaderError {
        let node = &self.nodes[id];
        LoaderError::SchemaConflict(match error {
            Some(e) => format!("column '{}': {}", node.path, node.encode_error(value, e)),
            None => format!(
                "column '{}' is not nullable ({}) and cannot take None",
                node.path,
                node.field.data_type()
            ),
        })
    }

    /// In a record (`start_record`), whether `id` has its value in the entry being written
    /// already: another write to it names the column twice.
    #[inline]
    pub fn has_value_in_record(&self, id: ColumnId) -> bool {
        let node = &self.nodes[id];
        self.record && node.projected && id != ROOT && node.len > self.pos(id)
    }

    /// In a record (`start_record`), the error of a second write to `id` in the entry being
    /// written; `Ok` otherwise.
    pub(crate) fn refuse_second_write(&self, id: ColumnId) -> Result<()> {
        if self.has_value_in_record(id) {
            return Err(LoaderError::GivenTwice(self.nodes[id].path.clone()));
        }
        Ok(())
    }

    /// Write SQL NULL to column `id`.
    pub fn set_null(&mut self, id: ColumnId) -> Result<()> {
        self.set(id, Value::Null)
    }

    /// Extend the utf8/binary value being written to `id` (starting it if it is not yet
    /// written in this entry). UTF-8 is validated when the row or element is committed.
    pub fn append_bytes(&mut self, id: ColumnId, bytes: &[u8]) -> Result<()> {
        self.check_writable(id)?;
        let node = &self.nodes[id];
        if !node.projected {
            return Ok(());
        }
        let Data::Var { .. } = node.data else {
            return Err(LoaderError::SchemaConflict(format!(
                "column '{}' is {}: append_bytes needs a utf8 or binary column",
                node.path,
                node.field.data_type()
            )));
        };
        let is_utf8 = matches!(node.physical, Some(super::node::Physical::Utf8));
        self.catch_up(id);
        let p = self.pos(id);
        if self.nodes[id].len == p {
            if let Some(parent) = self.parent(id) {
                self.ensure_open(parent);
            }
            self.mutate(id, |n| n.push_encoded(&Encoded::Bytes(bytes)));
            self.note_lazy_write(id); // (if its nulls are deferred: `lazy.rs`)
        } else {
            self.mutate(id, |n| n.extend_last(bytes));
        }
        if is_utf8 {
            self.nodes[id].check_utf8 = true;
            self.uncount_column(id); // the commit must validate it
            if self.nodes[id].deferrable_null_bytes().is_some() {
                self.lazy_utf8.push(id); // (it does not walk it: `lazy.rs`)
            }
        }
        self.after_write(id)
    }

    /// Mark the current entry of struct/list/map `id` present (non-null) even if nothing is
    /// written into it: an empty list, an empty map, a struct of back-filled members.
    pub fn open(&mut self, id: ColumnId) -> Result<()> {
        if !self.check_compound(id)? {
            return Ok(());
        }
        self.ensure_open(id);
        self.after_write(id)
    }

    /// Checks shared by `open` and `begin`; `Ok(false)`: writes to `id` are dropped.
    fn check_compound(&self, id: ColumnId) -> Result<bool> {
        self.check_writable(id)?;
        if !self.nodes[id].projected || id == ROOT {
            return Ok(false);
        }
        if self.nodes[id].kind() == ColumnKind::Scalar {
            return Err(LoaderError::SchemaConflict(format!(
                "column '{}' is a scalar; set() a value",
                self.nodes[id].path
            )));
        }
        Ok(true)
    }

    /// Start a new value of struct/list/map `id` in the current entry: whatever was written
    /// to it in this entry is dropped, and it is opened (present, non-null, empty). The same
    /// as `clear` then `open`, in one walk.
    pub fn begin(&mut self, id: ColumnId) -> Result<()> {
        match self.begin_first(id) {
            Some(()) => self.after_write(id),
            None => self.begin_any(id),
        }
    }

    /// `begin` if it is its common case (see `begin_first`): `false` if nothing was written
    /// (then call `begin`). Like [`set_plain`](Self::set_plain), it leaves the limits to
    /// the caller's [`limits_hold`](Self::limits_hold).
    #[inline(always)]
    pub fn begin_plain(&mut self, id: ColumnId) -> bool {
        self.begin_first(id).is_some()
    }

    /// `begin`'s common case in one pass: the first value of a struct, list or map in an
    /// open entry, or the next element of an open list entry. `None` (nothing written): any
    /// other case, left to `begin_any`.
    #[inline(always)]
    fn begin_first(&mut self, id: ColumnId) -> Option<()> {
        if !self.row_open || id == ROOT {
            return None;
        }
        let node = self.nodes.get(id)?;
        if !node.projected || node.physical.is_some() {
            return None;
        }
        let fresh = match node.role {
            Role::Element(_) => self.fresh_element(id),
            _ => self.fresh_entry(id).is_some(),
        };
        if !fresh {
            return None;
        }
        let node = &mut self.nodes[id];
        let at = node.len;
        node.open_entry();
        // the bytes the entry adds: a list's offset, its validity bit's new byte
        let mut grown = usize::from(node.validity.is_some() && at.is_multiple_of(8));
        if let Data::List { large, .. } = node.data {
            grown += offset_width(large);
        }
        self.first_entry_grew(id, grown);
        Some(())
    }

    /// `begin` past its common case: checks, overwrites, opening the parent entry.
    #[inline(never)]
    fn begin_any(&mut self, id: ColumnId) -> Result<()> {
        if !self.check_compound(id)? {
            return Ok(());
        }
        self.refuse_second_write(id)?;
        self.prepare_entry(id);
        self.mutate(id, Node::open_entry);
        self.after_write(id)
    }

    /// Commit the element being written to list (or map) `list`: one more element. Members
    /// of a struct element that were not written are back-filled.
    pub fn save_element(&mut self, list: ColumnId) -> Result<()> {
        self.save_element_plain(list)?;
        self.after_write(list)
    }

    /// `save_element` without the limit check, for a caller that checks once per row (see
    /// [`set_plain`](Self::set_plain)).
    #[inline]
    pub fn save_element_plain(&mut self, list: ColumnId) -> Result<()> {
        self.check_writable(list)?;
        let node = &self.nodes[list];
        if !node.projected {
            return Ok(());
        }
        let Data::List { child, .. } = node.data else {
            return Err(LoaderError::SchemaConflict(format!(
                "column '{}' is not a list or map: save() commits list elements",
                node.path
            )));
        };
        self.ensure_open(list);
        let q = self.nodes[list].last_offset();
        if self.selects_elements(list) {
            if let Some(skipped) = self.skip_unkept(list, child, q) {
                return skipped;
            }
        }
        if self.needs_finalize_deep(child, q) {
            if let Err(e) = self.finalize(child, q) {
                self.truncate(child, q);
                return Err(e);
            }
        }
        self.nodes[list].set_last_offset(q + 1);
        Ok(())
    }

    /// Whether list `id` is projected by element index (`c[1]`): only then can
    /// `element_fate` be anything but `Keep`.
    #[inline]
    pub fn selects_elements(&self, id: ColumnId) -> bool {
        matches!(self.nodes[id].projection, Projection::Elements { .. })
    }

    /// What happens to the next element saved into the current entry of list `list`: kept,
    /// nulled or dropped by an element projection (`c[1]`). Readers use it to skip parsing
    /// what would not be kept; `save_element` applies it whatever was written.
    pub fn element_fate(&self, list: ColumnId) -> ElementFate {
        let node = &self.nodes[list];
        let Data::List { offsets, large, .. } = &node.data else {
            return ElementFate::Keep;
        };
        let p = self.pos(list);
        let start = if node.len > p {
            offset_get(offsets, *large, p)
        } else {
            node.last_offset()
        };
        node.projection.element_fate(node.last_offset() - start)
    }

    /// `save_element_plain` for a list projected by index: `None` if the element is kept. Else
    /// what was written is dropped, and if a later position is kept a null (the fill value
    /// of a non-nullable element) stands in for it. Out of line: it must not weigh on every
    /// `save_element`.
    #[cold]
    #[inline(never)]
    fn skip_unkept(&mut self, list: ColumnId, child: ColumnId, q: usize) -> Option<Result<()>> {
        let fate = self.element_fate(list);
        if fate == ElementFate::Keep {
            return None;
        }
        self.truncate(child, q);
        if fate == ElementFate::Drop {
            return Some(Ok(()));
        }
        if let Err(e) = self.finalize(child, q) {
            return Some(Err(e));
        }
        self.nodes[list].set_last_offset(q + 1);
        Some(Ok(()))
    }

    /// Discard whatever was written to `id` in the current entry (used to undo a compound
    /// value that failed half-way). The parent entry stays open.
    pub fn clear(&mut self, id: ColumnId) -> Result<()> {
        self.check_writable(id)?;
        if self.nodes[id].projected && id != ROOT {
            let p = self.pos(id);
            // Nothing below a struct or list can be written without opening its entry.
            if self.nodes[id].len > p {
                self.truncate(id, p);
            }
        }
        Ok(())
    }

    /// Widen an int64 column to float64 (schema discovery: an int column met a float). The
    /// current batch's values are converted; batches already set aside keep int64. Counts as
    /// a schema change. Until the next schema mark it can be undone (`forget_columns_since`):
    /// the int64 values are kept.
    pub fn widen_to_float64(&mut self, id: ColumnId) -> Result<()> {
        self.check_open()?;
        self.catch_up(id); // the values it keeps to narrow back are the rows' whole
        let node = &self.nodes[id];
        if node.field.data_type() != &DataType::Int64 {
            return Err(LoaderError::SchemaConflict(format!(
                "column '{}' is {}: only int64 widens to float64",
                node.path,
                node.field.data_type()
            )));
        }
        let node = &self.nodes[id];
        if let Data::Fixed { values, .. } = &node.data {
            let mut ints = arrow_buffer::MutableBuffer::new(values.len());
            ints.extend_from_slice(values.as_slice());
            self.widened.push(Widened {
                id,
                len: node.len,
                ints,
                set_aside: None,
            });
        }
        self.nodes[id].widen_to_float64();
        if self.nodes[id].projected {
            self.schema_version += 1;
        }
        Ok(())
    }
}
