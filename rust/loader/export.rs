//! Harvest: turning a set-aside batch into Arrow arrays without copying its buffers.

use std::sync::Arc;

use arrow_array::{make_array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_buffer::NullBuffer;
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, FieldRef, Schema};

use super::error::Result;
use super::lifecycle::{ResultSetLoader, State};
use super::node::{ColumnId, Data, Frozen, ROOT};
use super::overflow::FrozenBatch;

impl ResultSetLoader {
    /// Hand back the completed batch: the rows saved before an overflow (the overflow row
    /// stays behind as row 0 of the next batch), or every saved row. An unsaved row is
    /// discarded. Then `start_batch()` begins the next batch.
    pub fn harvest(&mut self) -> Result<RecordBatch> {
        self.check_active("harvest()")?;
        if self.row_open {
            self.discard_row();
        }
        let batch = match self.frozen.take() {
            Some(frozen) => frozen,
            None => {
                let at = self.row_pos;
                let frozen = self.split_tree(at);
                self.row_pos = 0;
                frozen
            }
        };
        self.harvested_rows += batch.rows as u64;
        self.harvested_batches += 1;
        self.state = State::Harvested;
        Ok(self.export(batch))
    }

    fn export(&self, mut batch: FrozenBatch) -> RecordBatch {
        let root = batch.nodes[ROOT].take().expect("the row is always split");
        let mut fields = Vec::new();
        let mut columns: Vec<ArrayRef> = Vec::new();
        for &c in &root.children {
            if let Some((field, data)) = self.export_node(c, &mut batch.nodes) {
                fields.push(field);
                columns.push(make_array(data));
            }
        }
        let options = RecordBatchOptions::new().with_row_count(Some(batch.rows));
        RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), columns, &options)
            .expect("the loader builds consistent batches")
    }

    fn export_node(
        &self,
        id: ColumnId,
        frozen: &mut [Option<Frozen>],
    ) -> Option<(FieldRef, ArrayData)> {
        let Frozen {
            data_type: frozen_type,
            len,
            validity,
            buffers,
            children,
        } = frozen.get_mut(id)?.take()?;
        let node = &self.nodes[id];
        let mut child_fields = Vec::new();
        let mut child_data = Vec::new();
        for c in children {
            if let Some((f, d)) = self.export_node(c, frozen) {
                child_fields.push(f);
                child_data.push(d);
            }
        }
        let data_type = match (&node.data, node.field.data_type()) {
            (Data::Struct { .. }, _) => DataType::Struct(child_fields.into()),
            (_, DataType::List(_)) => DataType::List(child_fields.pop()?),
            (_, DataType::LargeList(_)) => DataType::LargeList(child_fields.pop()?),
            (_, DataType::Map(_, sorted)) => DataType::Map(child_fields.pop()?, *sorted),
            _ => frozen_type,
        };
        let field = Arc::new(Field::clone(&node.field).with_data_type(data_type.clone()));
        let builder = ArrayData::builder(data_type)
            .len(len)
            .nulls(validity.map(NullBuffer::new))
            .buffers(buffers)
            .child_data(child_data);
        let data = if cfg!(debug_assertions) {
            builder.build().expect("valid array data")
        } else {
            // SAFETY: the writers keep offsets monotonic and in bounds, lengths consistent
            // and utf8 validated at commit; debug builds (and the test suite) check this.
            unsafe { builder.build_unchecked() }
        };
        Some((field, data))
    }
}
