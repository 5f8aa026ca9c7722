//! Undoing the schema changes made since a mark: the columns a failed row added and the list
//! elements it retyped, so that schema discovery from a row that is then discarded leaves
//! nothing behind (a corrupt line must not add a column, or type one that later lines need).

use arrow_schema::DataType;

use super::lifecycle::ResultSetLoader;
use super::node::{ColumnId, Data, Role, ROOT};

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
    /// Mark the columns as they are now.
    pub fn schema_mark(&self) -> SchemaMark {
        SchemaMark(self.nodes.len())
    }

    /// Undo every `add_column` and `replace_element` since `mark`: the columns go with
    /// whatever they hold, a retyped list gets its element column back. Call it on a row
    /// being discarded (before or after `discard_row`); it is meant for columns discovered
    /// from that row. Returns whether anything was undone: the ids of the forgotten columns
    /// will be given to new ones. A batch set aside since (an overflow in the same row)
    /// loses the new columns too; but if it holds a retyped list, nothing is undone.
    pub fn forget_columns_since(&mut self, mark: SchemaMark) -> bool {
        let first = mark.0;
        if self.nodes.len() <= first {
            return false;
        }
        if let Some(frozen) = &mut self.frozen {
            // A batch set aside since, with a retyped list: its elements have the new type.
            let retyped = |id: usize| {
                matches!(self.nodes[id].role, Role::Element(list) if list < first)
                    && frozen.nodes.get(id).is_some_and(Option::is_some)
            };
            if (first..self.nodes.len()).any(retyped) {
                return false;
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
