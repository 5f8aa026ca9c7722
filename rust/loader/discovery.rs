//! Schema discovery bookkeeping shared by every writer that adds columns from the data (the
//! Python row path, the JSON reader): which columns were discovered (their int64 may widen to
//! float64) and which lists got a guessed element type because they were first seen empty.

use std::collections::HashSet;

use super::lifecycle::ResultSetLoader;
use super::node::{ColumnId, ColumnKind};

/// What discovery remembers about the columns it created.
#[derive(Default, Debug)]
pub struct Discovery {
    discovered: HashSet<ColumnId>,
    guessed: HashSet<ColumnId>,
}

impl Discovery {
    /// Remember `id` and everything below it as discovered.
    pub fn mark(&mut self, l: &ResultSetLoader, id: ColumnId) {
        self.discovered.insert(id);
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
        self.discovered.contains(&id)
    }

    /// Record that list `list`'s element type is a guess.
    pub fn guess(&mut self, list: ColumnId) {
        self.guessed.insert(list);
    }

    /// Whether list `list`'s element type is still a guess.
    pub fn is_guess(&self, list: ColumnId) -> bool {
        self.guessed.contains(&list)
    }

    /// The guess about `list` is settled (confirmed or replaced).
    pub fn settle(&mut self, list: ColumnId) {
        self.guessed.remove(&list);
    }
}
