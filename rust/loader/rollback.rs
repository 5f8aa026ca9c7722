//! Undoing the schema changes made since a mark: the columns a failed row added, the list
//! elements it retyped and the int64 columns it widened, so that schema discovery from a row
//! that is then discarded leaves nothing behind (a corrupt line must not add a column, or
//! type one that later lines need).

use arrow_buffer::{Buffer, MutableBuffer};
use arrow_schema::DataType;

use super::lifecycle::ResultSetLoader;
use super::node::{ColumnId, Data, Physical, Role, ROOT};

/// A widening `forget_columns_since` can undo: column `id`'s `len` entries as int64 then.
pub(crate) struct Widened {
    pub id: ColumnId,
    pub len: usize,
    pub ints: MutableBuffer,
    /// How many of those entries a batch set aside since has (an overflow in the row);
    /// `None`: no batch was set aside since.
    pub set_aside: Option<usize>,
}

/// The loader's columns at one moment (see [`ResultSetLoader::forget_columns_since`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SchemaMark(ColumnId);

impl SchemaMark {
    /// Whether column `id` existed when the mark was taken.
    pub fn covers(&self, id: ColumnId) -> bool {
        id < self.0
    }

    /// How many column ids were taken then.
    pub(crate) fn columns(&self) -> usize {
        self.0
    }
}

impl ResultSetLoader {
    /// Mark the columns as they are now. Widenings before it can no longer be undone.
    pub fn schema_mark(&mut self) -> SchemaMark {
        if !self.widened.is_empty() {
            self.widened.clear();
        }
        SchemaMark(self.nodes.len())
    }

    /// Undo every `add_column`, `replace_element` and `widen_to_float64` since `mark` (the
    /// newest one): the columns go with whatever they hold, a retyped list gets its element
    /// column back, a widened column its int64 values. Call it on a row being discarded
    /// (before or after `discard_row`); it is meant for what was discovered from that row.
    /// Returns whether anything was undone: the ids of forgotten columns will be given to
    /// new ones. A batch set aside since (an overflow in the same row) loses the new columns
    /// too, and a list retyped or a column widened since gets its old type back there as
    /// well; only if a retyped list's old element there is not a scalar (discovery's guess
    /// always is) do the columns stay.
    pub fn forget_columns_since(&mut self, mark: SchemaMark) -> bool {
        let first = mark.0;
        let narrowed = self.narrow_widened(first);
        if self.nodes.len() <= first {
            return narrowed;
        }
        if self.frozen.is_some() && !self.forget_in_set_aside(first) {
            return narrowed;
        }
        for id in (first..self.nodes.len()).rev() {
            if self.nodes[id].projected {
                self.bytes -= self.nodes[id].counted;
            }
            match self.nodes[id].role {
                Role::Member(parent) if parent < first => self.detach_member(parent, id),
                Role::Element(list) if list < first => self.restore_element(list),
                _ => {} // inside a column forgotten with it
            }
        }
        self.nodes.truncate(first);
        self.breach = None;
        self.row_shape = None;
        self.schema_version += 1;
        true
    }

    /// The batch set aside by an overflow since the mark: the new columns go from it and
    /// its retyped lists get their old elements back. `false` (nothing changed) if one of
    /// them cannot.
    fn forget_in_set_aside(&mut self, first: ColumnId) -> bool {
        let retyped: Vec<(ColumnId, ColumnId)> = (first..self.nodes.len())
            .filter_map(|id| match self.nodes[id].role {
                Role::Element(list) if list < first => Some((list, id)),
                _ => None,
            })
            .collect();
        if !retyped
            .iter()
            .all(|&(list, new)| self.can_refreeze(list, new))
        {
            return false;
        }
        for (list, new) in retyped {
            self.refreeze_element(list, new);
        }
        // new columns set aside with the batch (back-fill only)
        if let Some(frozen) = &mut self.frozen {
            frozen.nodes.truncate(first);
        }
        true
    }

    /// Give the columns widened since the mark (that existed before it) their int64 values
    /// back, in a batch set aside since too; entries written since the widening go (the row
    /// is being discarded).
    fn narrow_widened(&mut self, first: ColumnId) -> bool {
        let widened = std::mem::take(&mut self.widened);
        let mut narrowed = false;
        for w in widened.into_iter().rev().filter(|w| w.id < first) {
            let (id, width) = (w.id, 8);
            let n = w.set_aside.map_or(0, |n| n.min(w.len));
            let frozen = self.frozen.as_mut().filter(|_| w.set_aside.is_some());
            if let Some(Some(head)) = frozen.and_then(|f| f.nodes.get_mut(id)) {
                head.buffers = vec![Buffer::from_slice_ref(&w.ints.as_slice()[..n * width])];
                head.data_type = DataType::Int64;
            }
            // the entries that stayed: the overflow row's, from position `n` on
            self.truncate(id, w.len - n);
            let node = &mut self.nodes[id];
            if let Data::Fixed { values, .. } = &mut node.data {
                let kept = &w.ints.as_slice()[n * width..(n + node.len) * width];
                let mut ints = MutableBuffer::new(kept.len());
                ints.extend_from_slice(kept);
                *values = ints;
            }
            node.physical = Some(Physical::Int {
                width,
                signed: true,
            });
            node.set_data_type(DataType::Int64);
            if node.projected {
                let own = node.own_bytes();
                self.account(id, own);
                self.schema_version += 1;
            }
            narrowed = true;
        }
        if narrowed {
            self.row_shape = None;
        }
        narrowed
    }

    /// Remove member `id`, the last one added, from struct `parent`.
    fn detach_member(&mut self, parent: ColumnId, id: ColumnId) {
        let name = self.nodes[id].field.name().to_lowercase();
        if let Data::Struct { members, index } = &mut self.nodes[parent].data {
            debug_assert_eq!(members.last(), Some(&id), "members are added at the end");
            members.retain(|&m| m != id);
            index.remove(&name);
        }
        if parent == ROOT {
            self.top_writes.pop();
        }
    }

    /// The element column list `list` had before element `newest` replaced it: the newest
    /// of the older nodes that are its elements.
    fn previous_element(&self, list: ColumnId, newest: ColumnId) -> Option<ColumnId> {
        (0..newest)
            .rev()
            .find(|&id| self.nodes[id].role == Role::Element(list))
    }

    /// The entries of element `new` in the batch set aside, if it has it.
    fn set_aside_len(&self, new: ColumnId) -> Option<usize> {
        let frozen = self.frozen.as_ref()?;
        frozen.nodes.get(new)?.as_ref().map(|f| f.len)
    }

    /// Whether `refreeze_element` can take back list `list`'s element `new`: the element it
    /// replaced is a scalar (a discovery guess) holding the entries set aside.
    fn can_refreeze(&self, list: ColumnId, new: ColumnId) -> bool {
        let Some(n) = self.set_aside_len(new) else {
            return true; // set aside before the replacement: it has the old element
        };
        self.previous_element(list, new)
            .is_some_and(|old| self.nodes[old].physical.is_some() && self.nodes[old].len >= n)
    }

    /// A batch set aside since list `list` got element `new` (see `can_refreeze`): its
    /// elements, nulls (only a list holding no element but nulls is retyped), are set aside
    /// again from the element column `new` replaced.
    fn refreeze_element(&mut self, list: ColumnId, new: ColumnId) {
        let (Some(n), Some(old)) = (self.set_aside_len(new), self.previous_element(list, new))
        else {
            return;
        };
        let (head, _) = self.nodes[old].split_own(n);
        let frozen = self.frozen.as_mut().expect("a batch set aside");
        let replaced = frozen.nodes[new].take().map_or(0, |f| f.bytes());
        frozen.bytes = frozen.bytes + head.bytes() - replaced;
        frozen.nodes[old] = Some(head);
        if let Some(Some(set_aside)) = frozen.nodes.get_mut(list) {
            set_aside.children = vec![old];
        }
    }

    /// Give list `list` back the element column it had before its newest replacement.
    fn restore_element(&mut self, list: ColumnId) {
        let newest = self.child_of(list).expect("a list");
        let Some(old) = self.previous_element(list, newest) else {
            return;
        };
        if let Data::List { child, .. } = &mut self.nodes[list].data {
            *child = old;
        }
        // `replace_element` took it out of the count (counted 0)
        self.nodes[old].projected = self.nodes[list].projected;
        // elements of the row being discarded may have gone into it before the replacement
        let end = self.nodes[list].last_offset();
        self.truncate(old, end);
        if self.nodes[old].projected {
            let own = self.nodes[old].own_bytes();
            self.account(old, own);
        }
        let element = self.nodes[old].field.clone();
        self.set_list_element(list, element);
    }
}
