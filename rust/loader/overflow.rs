//! Limits and overflow: deciding that a write does not fit, moving the row being written to
//! look-ahead buffers, and rejecting a row that cannot fit even an empty batch.

use super::error::LoaderError;
use super::lifecycle::ResultSetLoader;
use super::node::{ColumnId, Data, Frozen, ROOT};

/// A completed batch set aside at overflow (or at harvest): frozen buffers per node.
pub(crate) struct FrozenBatch {
    /// Indexed by node id; `None` for unprojected nodes and nodes added after the split.
    pub nodes: Vec<Option<Frozen>>,
    pub rows: usize,
    pub bytes: usize,
}

/// Which limit a write broke.
enum Breach {
    Vector {
        column: ColumnId,
        bytes: usize,
    },
    Batch {
        bytes: usize,
    },
    /// The columns the consumer adds would outgrow the vector limit.
    Reserved {
        bytes: usize,
    },
}

impl ResultSetLoader {
    fn node_breach(&self, id: ColumnId) -> Option<Breach> {
        let bytes = self.nodes[id].max_buffer_bytes();
        (bytes > self.options.vector_byte_limit).then_some(Breach::Vector { column: id, bytes })
    }

    /// Rows the active buffers hold, the row being written included.
    fn active_rows(&self) -> usize {
        self.row_pos + usize::from(self.row_open)
    }

    fn batch_breach(&self) -> Option<Breach> {
        let limit = self.options.batch_byte_limit?;
        let bytes = self.bytes + self.options.reserve.total(self.active_rows());
        (bytes > limit).then_some(Breach::Batch { bytes })
    }

    fn reserve_breach(&self) -> Option<Breach> {
        let bytes = self.options.reserve.largest_buffer(self.active_rows());
        (bytes > self.options.vector_byte_limit).then_some(Breach::Reserved { bytes })
    }

    /// A breach anywhere in the subtree of `id`.
    fn subtree_breach(&self, id: ColumnId) -> Option<Breach> {
        let node = &self.nodes[id];
        if !node.projected {
            return None;
        }
        if id != ROOT {
            if let Some(b) = self.node_breach(id) {
                return Some(b);
            }
        }
        match &node.data {
            Data::Struct { members, .. } => members.iter().find_map(|m| self.subtree_breach(*m)),
            Data::List { child, .. } => self.subtree_breach(*child),
            _ => None,
        }
    }

    /// Whether the batch, or a buffer under `id`, is past its limit now.
    pub(crate) fn limits_broken(&self, id: ColumnId) -> bool {
        self.batch_breach().is_some() || self.subtree_breach(id).is_some()
    }

    /// The active bytes below which, with `rows` active rows, neither the batch limit nor
    /// the reserve breaks (0: the reserve alone breaks the vector limit).
    fn budget_for(&self, rows: usize) -> usize {
        if self.options.reserve.largest_buffer(rows) > self.options.vector_byte_limit {
            return 0;
        }
        match self.options.batch_byte_limit {
            // bytes + reserve > limit  <=>  bytes >= limit - reserve + 1
            Some(limit) => limit
                .saturating_add(1)
                .saturating_sub(self.options.reserve.total(rows)),
            None => usize::MAX,
        }
    }

    /// The limit the mutations since the last check broke, if any.
    #[inline]
    fn pending_breach(&mut self) -> Option<Breach> {
        if let Some(b) = self.batch_breach().or_else(|| self.reserve_breach()) {
            self.breach = None;
            return Some(b);
        }
        self.breach.take().map(|column| Breach::Vector {
            column,
            bytes: self.nodes[column].max_buffer_bytes(),
        })
    }

    /// After a write to `id` (or a commit, or a list element): overflow if any buffer or the
    /// batch went over its limit. Every mutation records the first buffer it takes over the
    /// vector limit, so this costs nothing when nothing broke.
    #[inline(always)]
    pub(crate) fn after_write(&mut self, id: ColumnId) -> Result<(), LoaderError> {
        if self.breach.is_none()
            && self.bytes < self.budget
            && self.active_rows() == self.budget_rows
        {
            return Ok(());
        }
        self.check_limits(id)
    }

    /// Whether the batch and every buffer are within their limits with the row being
    /// written: what `after_write` checks, without overflowing. For a writer that checks
    /// once per row (see `set_plain`); `false` means the row must be written again through
    /// the checked calls.
    #[inline]
    pub fn limits_hold(&mut self) -> bool {
        let rows = self.active_rows();
        if rows != self.budget_rows {
            self.budget_rows = rows;
            self.budget = self.budget_for(rows);
        }
        self.breach.is_none() && self.bytes < self.budget
    }

    /// `after_write` past its fast path: the row count moved (a new budget) or a limit may
    /// have broken. Kept out of line so every write inlines only the comparison above.
    #[cold]
    #[inline(never)]
    fn check_limits(&mut self, id: ColumnId) -> Result<(), LoaderError> {
        if self.limits_hold() {
            return Ok(());
        }
        match self.pending_breach() {
            None => Ok(()),
            Some(b) => self.overflow(b, id),
        }
    }

    /// The row being written does not fit: move it to look-ahead buffers and set the
    /// completed rows aside as the batch to harvest. If the row alone does not fit an empty
    /// batch, reject it.
    fn overflow(&mut self, breach: Breach, written: ColumnId) -> Result<(), LoaderError> {
        if self.row_pos == 0 {
            return Err(self.reject_row(breach, written));
        }
        let at = self.row_pos;
        self.frozen = Some(self.split_tree(at));
        self.row_pos = 0;
        self.breach = None;
        let breach = self.batch_breach().or_else(|| self.reserve_breach());
        match breach.or_else(|| self.subtree_breach(ROOT)) {
            None => Ok(()),
            Some(b) => Err(self.reject_row(b, written)),
        }
    }

    fn reject_row(&mut self, breach: Breach, written: ColumnId) -> LoaderError {
        let what = match breach {
            Breach::Vector { column, bytes } => format!(
                "the value for column '{}' is larger than the maximum: the row needs a \
                 {bytes}-byte buffer, vector_byte_limit is {}",
                self.nodes[column].path, self.options.vector_byte_limit
            ),
            Breach::Reserved { bytes } => format!(
                "the columns added to every row (file and null columns) need a {bytes}-byte \
                 buffer for one row, vector_byte_limit is {}",
                self.options.vector_byte_limit
            ),
            Breach::Batch { bytes } => {
                let upto = match written {
                    ROOT => "the row (with its back-filled columns)".to_string(),
                    id => format!("the row written up to column '{}'", self.nodes[id].path),
                };
                format!(
                    "{upto} is larger than the maximum: it needs {bytes} bytes, \
                     batch_byte_limit is {}",
                    self.options.batch_byte_limit.unwrap_or(0)
                )
            }
        };
        self.discard_row();
        LoaderError::RowTooLarge(format!(
            "row rejected: {what}; it cannot fit even an empty batch"
        ))
    }

    /// Set entries `0..at` of every node aside (zero-copy) and keep the rest (the overflow
    /// row) as the active buffers, list offsets rebased at every level.
    pub(crate) fn split_tree(&mut self, at: usize) -> FrozenBatch {
        self.catch_up_all();
        debug_assert!(
            self.lazy_rows >= at,
            "{} rows owed nulls, split at {at}",
            self.lazy_rows
        );
        self.lazy_rows -= at;
        let mut nodes: Vec<Option<Frozen>> = (0..self.nodes.len()).map(|_| None).collect();
        self.split_node(ROOT, at, &mut nodes);
        let bytes = nodes.iter().flatten().map(Frozen::bytes).sum();
        for node in self.nodes.iter_mut().filter(|n| n.projected) {
            node.counted = node.own_bytes();
        }
        self.bytes = self.recount_bytes();
        self.breach = None;
        // a widening can still be undone: remember how many of its entries went
        for w in &mut self.widened {
            w.set_aside = Some(
                nodes
                    .get(w.id)
                    .and_then(Option::as_ref)
                    .map_or(0, |f| f.len),
            );
        }
        FrozenBatch {
            nodes,
            rows: at,
            bytes,
        }
    }

    fn split_node(&mut self, id: ColumnId, at: usize, out: &mut [Option<Frozen>]) {
        if !self.nodes[id].projected {
            return;
        }
        let (frozen, child_at) = if id == ROOT {
            let members = match &self.nodes[ROOT].data {
                Data::Struct { members, .. } => members.clone(),
                _ => unreachable!(),
            };
            let frozen = Frozen {
                data_type: self.nodes[ROOT].field.data_type().clone(),
                len: at,
                validity: None,
                buffers: vec![],
                children: members,
            };
            (frozen, at)
        } else {
            let is_struct = matches!(self.nodes[id].data, Data::Struct { .. });
            let (frozen, child_at) = self.nodes[id].split_own(at);
            (frozen, if is_struct { at } else { child_at })
        };
        for &c in &frozen.children {
            self.split_node(c, child_at, out);
        }
        out[id] = Some(frozen);
    }

    /// Exported bytes of all active buffers, counted from scratch, deferred nulls included.
    pub(crate) fn recount_bytes(&self) -> usize {
        let own: usize = self
            .nodes
            .iter()
            .filter(|n| n.projected)
            .map(|n| n.own_bytes())
            .sum();
        own + self.count_lazy_debt()
    }
}

impl ResultSetLoader {
    /// `add_column`, and if a batch is set aside (a row overflowed), the column in it too,
    /// all null: for a column of nulls the set-aside rows had (a field seen only as null,
    /// typed when the batch is handed over), which `add_column` alone would give only to
    /// the rows after them.
    pub fn add_null_column_set_aside_too(
        &mut self,
        parent: ColumnId,
        field: impl Into<arrow_schema::FieldRef>,
    ) -> Result<ColumnId, LoaderError> {
        let id = self.add_column(parent, field)?;
        let Some(mut frozen) = self.frozen.take() else {
            return Ok(id);
        };
        let len = frozen
            .nodes
            .get(parent)
            .and_then(|n| n.as_ref())
            .map(|n| n.len);
        if let (Some(len), true) = (len, self.nodes[id].projected) {
            frozen.bytes += self.freeze_nulls(id, len, &mut frozen.nodes);
            if let Some(Some(p)) = frozen.nodes.get_mut(parent) {
                p.children.push(id);
            }
        }
        self.frozen = Some(frozen);
        Ok(id)
    }

    /// Frozen buffers of `len` nulls for column `id` and the columns below it (a list's
    /// element, a struct's members), put in `frozen`; their bytes.
    fn freeze_nulls(&self, id: ColumnId, len: usize, frozen: &mut Vec<Option<Frozen>>) -> usize {
        let node = &self.nodes[id];
        let data_type = node.field.data_type().clone();
        let nulls = arrow_array::new_null_array(&data_type, len).to_data();
        let child_len = match node.data {
            Data::Struct { .. } => len,
            _ => 0, // a list's (or map's) element: its nulls have no entries
        };
        let children: Vec<ColumnId> = (self.children(id).into_iter())
            .filter(|&c| self.nodes[c].projected)
            .collect();
        let mut bytes = 0;
        for &c in &children {
            bytes += self.freeze_nulls(c, child_len, frozen);
        }
        let node = Frozen {
            data_type,
            len,
            validity: nulls.nulls().map(|n| n.inner().clone()),
            buffers: nulls.buffers().to_vec(),
            children,
        };
        bytes += node.bytes();
        if frozen.len() <= id {
            frozen.resize_with(id + 1, || None);
        }
        frozen[id] = Some(node);
        bytes
    }
}
