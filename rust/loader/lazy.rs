//! Deferred nulls for sparse rows. A row that writes a few of many columns (NDJSON with
//! hundreds of optional keys, each line holding a handful, at the top level or in an object)
//! would have every other column back-filled with a null at its commit: work per row in the
//! number of columns rather than in the values written. Instead a nullable scalar with one
//! entry a row (top-level, or a member of structs outside lists:
//! [`Node::deferrable_null_bytes`](super::node::Node::deferrable_null_bytes)) is left short
//! when a row does not write it, and takes the nulls it is owed in one go: before its next
//! write, and every such column when the batch is split (harvest, overflow).
//!
//! Nothing else changes: the byte count counts the deferred nulls (`lazy_debt` of
//! `ResultSetLoader::bytes`), so every limit sees the batch as if they had been written,
//! and at each commit the widest such column's buffers are checked against
//! `vector_byte_limit` as a written null would check them. What a row wrote is noted as it
//! is written (`note_lazy_write`, undone if the value goes), so the commit's count is one
//! subtraction, not a walk.
//!
//! The invariant this moves: such a column may be shorter than the committed rows. Every
//! write to it must pad it first (`catch_up`, `pad`), as `set_first` (through
//! `set_first_after_nulls`), `prepare_entry` and `append_bytes` do, and anything that reads
//! its buffers whole must call `catch_up_all` first, as `split_tree` does.

use super::lifecycle::ResultSetLoader;
use super::node::ColumnId;

impl ResultSetLoader {
    /// Give column `id` the nulls it is owed before it is written.
    #[inline(always)]
    pub(crate) fn catch_up(&mut self, id: ColumnId) {
        if self.is_owed_nulls(id) {
            self.pad(id);
        }
    }

    /// Whether column `id` is one whose nulls are deferred, short of the committed rows.
    #[inline(always)]
    pub(crate) fn is_owed_nulls(&self, id: ColumnId) -> bool {
        self.nodes
            .get(id)
            .is_some_and(|node| node.len < self.lazy_rows && node.deferrable_null_bytes().is_some())
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
        for id in 1..self.nodes.len() {
            if self.nodes[id].len < self.lazy_rows {
                self.pad(id);
            }
        }
        debug_assert_eq!(self.lazy_debt, 0, "every deferred null appended");
    }

    /// The bytes the deferred nulls will take, column by column.
    pub(crate) fn count_lazy_debt(&self) -> usize {
        let deferred = self
            .nodes
            .iter()
            .filter(|node| node.deferrable_null_bytes().is_some());
        deferred
            .filter(|node| node.len < self.lazy_rows)
            .map(|node| node.own_bytes_at(self.lazy_rows) - node.own_bytes())
            .sum()
    }

    /// Note a write to column `id` in the row, once, if its nulls are deferred (else
    /// nothing): it is owed no null for the row (unless the value goes again, see
    /// `unnote_lazy_write`).
    #[inline(always)]
    pub(crate) fn note_lazy_write(&mut self, id: ColumnId) {
        let stamp = self.row_stamp;
        let node = &mut self.nodes[id];
        if let Some((values, bitmaps)) = node.deferrable_null_bytes() {
            if node.noted_in != stamp {
                node.noted_in = stamp;
                self.lazy_written.0 += values;
                self.lazy_written.1 += bitmaps;
            }
        }
    }

    /// Before column `id` is cut to `n` entries: if that takes the value the row being
    /// written noted (`note_lazy_write`), the row owes it a null again.
    #[inline]
    pub(crate) fn unnote_lazy_write(&mut self, id: ColumnId, n: usize) {
        let (stamp, row) = (self.row_stamp, self.row_pos);
        let node = &mut self.nodes[id];
        if node.noted_in == stamp && node.len > row && n <= row {
            if let Some((values, bitmaps)) = node.deferrable_null_bytes() {
                node.noted_in = 0;
                self.lazy_written.0 -= values;
                self.lazy_written.1 -= bitmaps;
            }
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
        let (widest, most_rows) = (shape.lazy_widest, shape.lazy_most_rows);
        // (saturating: a column forgotten since, by a discarded row's discovery, is in the
        // written sums but no longer in the shape's; such a row is not committed)
        let values = shape.lazy_value_bytes.saturating_sub(self.lazy_written.0);
        let bitmaps = shape.lazy_bitmaps.saturating_sub(self.lazy_written.1);
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
