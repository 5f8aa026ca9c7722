//! Undoing the schema changes made since a mark: the columns a failed row added, the list
//! elements it retyped and the int64 columns it widened, so that schema discovery from a row
//! that is then discarded leaves nothing behind (a corrupt line must not add a column, or
//! type one that later lines need).

use arrow_schema::DataType;

use super::lifecycle::ResultSetLoader;
use super::node::{ColumnId, Data, Physical, Role, ROOT};

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
    /// too; but if it holds a retyped list, the columns stay, and a column widened before
    /// it stays widened.
    pub fn forget_columns_since(&mut self, mark: SchemaMark) -> bool {
        let first = mark.0;
        let narrowed = self.narrow_widened(first);
        if self.nodes.len() <= first {
            return narrowed;
        }
        if let Some(frozen) = &mut self.frozen {
            // A batch set aside since, with a retyped list: its elements have the new type.
            let retyped = |id: usize| {
                matches!(self.nodes[id].role, Role::Element(list) if list < first)
                    && frozen.nodes.get(id).is_some_and(Option::is_some)
            };
            if (first..self.nodes.len()).any(retyped) {
                return narrowed;
            }
            // New columns set aside with it (back-fill only) go from it too.
            frozen.nodes.truncate(first);
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

    /// Give the columns widened since the mark (that existed before it) their int64 values
    /// back; entries written since the widening go (the row is being discarded).
    fn narrow_widened(&mut self, first: ColumnId) -> bool {
        let widened = std::mem::take(&mut self.widened);
        let mut narrowed = false;
        for (id, len, mut ints) in widened.into_iter().rev().filter(|w| w.0 < first) {
            self.truncate(id, len);
            let node = &mut self.nodes[id];
            if let Data::Fixed { values, .. } = &mut node.data {
                // the row may already be discarded: fewer entries than at the widening
                ints.truncate(node.len.min(len) * 8);
                *values = ints;
            }
            node.physical = Some(Physical::Int {
                width: 8,
                signed: true,
            });
            let field = node.field.as_ref().clone().with_data_type(DataType::Int64);
            node.field = std::sync::Arc::new(field);
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

    /// Give list `list` back the element column it had before its newest replacement: the
    /// newest of the older nodes that are its elements.
    fn restore_element(&mut self, list: ColumnId) {
        let newest = self.child_of(list).expect("a list");
        let Some(old) = (0..newest)
            .rev()
            .find(|&id| self.nodes[id].role == Role::Element(list))
        else {
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
        let dt = match self.nodes[list].field.data_type() {
            DataType::LargeList(_) => DataType::LargeList(element),
            _ => DataType::List(element),
        };
        let field = self.nodes[list].field.as_ref().clone().with_data_type(dt);
        self.nodes[list].field = std::sync::Arc::new(field);
    }
}
