//! Deferred nulls for sparse rows. A row that writes a few of many columns (NDJSON with
//! hundreds of optional keys, each line holding a handful) would have every other column
//! back-filled with a null at its commit: work per row in the number of columns rather than
//! in the values written. Instead a nullable top-level scalar column
//! ([`Node::deferrable_null_bytes`](super::node::Node::deferrable_null_bytes)) is left
//! short when a row does not write it, and takes the nulls it is owed in one go: before its
//! next write, and every such column when the batch is split (harvest, overflow).
//!
//! Nothing else changes: the byte count counts the deferred nulls (`lazy_debt` of
//! `ResultSetLoader::bytes`), so every limit sees the batch as if they had been written,
//! and at each commit the widest such column's buffers are checked against
//! `vector_byte_limit` as a written null would check them.

use super::lifecycle::ResultSetLoader;
use super::node::{ColumnId, Role, ROOT};

impl ResultSetLoader {
    /// Give column `id` the nulls it is owed before it is written: a top-level column short
    /// of the committed rows is one whose nulls were deferred.
    #[inline(always)]
    pub(crate) fn catch_up(&mut self, id: ColumnId) {
        if self.is_owed_nulls(id) {
            self.pad(id);
        }
    }

    /// Whether column `id` is a top-level column short of the committed rows: one whose
    /// nulls were deferred.
    #[inline(always)]
    pub(crate) fn is_owed_nulls(&self, id: ColumnId) -> bool {
        self.nodes
            .get(id)
            .is_some_and(|node| node.len < self.lazy_rows && node.role == Role::Member(ROOT))
    }

    /// Append the nulls column `id` is owed (its bytes were counted already).
    #[cold]
    #[inline(never)]
    pub(crate) fn pad(&mut self, id: ColumnId) {
        let rows = self.lazy_rows;
        let node = &mut self.nodes[id];
        if node.deferrable_null_bytes().is_none() || node.len >= rows {
            return;
        }
        let before = node.own_bytes();
        node.push_nulls(rows - node.len);
        let after = node.own_bytes();
        // counted as owed until now: the total stays
        self.lazy_debt -= after - before;
        self.bytes -= after - before;
        self.account(id, after);
    }

    /// Append every deferred null, so that every column holds the committed rows whole.
    pub(crate) fn catch_up_all(&mut self) {
        let mut i = 0;
        while let Some(id) = self.member_at(ROOT, i) {
            if self.nodes[id].len < self.lazy_rows {
                self.pad(id);
            }
            i += 1;
        }
        debug_assert_eq!(self.lazy_debt, 0, "every deferred null appended");
    }

    /// The bytes the deferred nulls will take, column by column.
    pub(crate) fn count_lazy_debt(&self) -> usize {
        let mut owed = 0;
        let mut i = 0;
        while let Some(id) = self.member_at(ROOT, i) {
            let node = &self.nodes[id];
            if node.len < self.lazy_rows && node.deferrable_null_bytes().is_some() {
                owed += node.own_bytes_at(self.lazy_rows) - node.own_bytes();
            }
            i += 1;
        }
        owed
    }

    /// Note the row's first write to column `id` (its count of first writes still 0: for
    /// a column whose nulls are deferred it is never set to `usize::MAX`, so it is 0 until
    /// this write): such a column is owed no null for the row if it still holds the write
    /// at the commit.
    #[inline(always)]
    pub(crate) fn note_lazy_write(&mut self, id: ColumnId) {
        if let Some((values, bitmaps)) = self.nodes[id].deferrable_null_bytes() {
            self.lazy_written.push((id, values, bitmaps));
        }
    }

    /// Commit row `p`'s deferred nulls: one for each column whose nulls are deferred and
    /// which the row did not write, counted, not appended. Call it after `finalize_row(p)`
    /// (which measures the row's shape).
    pub(crate) fn defer_row_nulls(&mut self, p: usize) {
        let shape = self
            .row_shape
            .as_ref()
            .expect("finalize_row measures the shape");
        let (mut values, mut bitmaps) = (shape.lazy_value_bytes, shape.lazy_bitmaps);
        let (widest, most_rows) = (shape.lazy_widest, shape.lazy_most_rows);
        for &(id, v, b) in &self.lazy_written {
            // (a column forgotten since, by a discarded row's discovery, is not counted)
            if self.nodes.get(id).is_some_and(|node| node.len == p + 1) {
                values -= v;
                bitmaps -= b;
            }
        }
        let owed = values + if p.is_multiple_of(8) { bitmaps } else { 0 };
        self.lazy_debt += owed;
        self.bytes += owed;
        self.lazy_rows = p + 1;
        // the buffers the nulls grow, as writing them would grow them: the widest first
        // passes `vector_byte_limit` past `most_rows` rows
        if p + 1 > most_rows && self.breach.is_none() {
            self.breach = widest;
        }
        debug_assert_eq!(self.lazy_debt, self.count_lazy_debt());
    }

    /// After the row being written was dropped: no row past the committed ones is owed
    /// nulls (a commit that then overflowed and was refused had deferred its own).
    pub(crate) fn forget_uncommitted_nulls(&mut self) {
        if self.lazy_rows != self.row_pos {
            self.bytes -= self.lazy_debt;
            self.lazy_rows = self.row_pos;
            self.lazy_debt = self.count_lazy_debt();
            self.bytes += self.lazy_debt;
        }
    }
}
