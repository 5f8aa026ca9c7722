"""Joining small batches (a file's last batch, a small file's only one) into bigger ones that
stay within the loader's limits: a scan of many small files should not hand out as many tiny
batches as it has files."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from batchloader._core import DEFAULT_ROW_LIMIT, DEFAULT_VECTOR_BYTE_LIMIT


@dataclass(frozen=True)
class BatchLimits:
    """The limits a joined batch keeps: rows, and bytes as the loader counts them."""

    row_limit: int
    #: bytes of the whole batch: a buffer is never bigger than its batch, so this bounds
    #: the vector limit too
    byte_limit: int

    @staticmethod
    def of(loader_limits: Mapping[str, Any]) -> BatchLimits:
        """The limits of a loader built with `loader_limits` (its keyword arguments)."""
        byte_limit = loader_limits.get("vector_byte_limit", DEFAULT_VECTOR_BYTE_LIMIT)
        if loader_limits.get("batch_byte_limit") is not None:
            byte_limit = min(byte_limit, loader_limits["batch_byte_limit"])
        return BatchLimits(loader_limits.get("row_limit", DEFAULT_ROW_LIMIT), byte_limit)


def coalesce(
    batches: Iterable[tuple[pa.RecordBatch, bool, int | None]], limits: BatchLimits
) -> Iterator[pa.RecordBatch]:
    """`batches` (each with whether it is full and, if it is not, an upper bound of its
    bytes: `columns_bound`) with small neighbours joined while the joined batch keeps
    `limits` and one schema. A full batch is handed out at once: only small ones
    wait, at most one batch's worth. Bytes are bounded from above by the parts' total
    (joining never makes a buffer bigger than the same buffers of the parts together)."""
    pending: list[pa.RecordBatch] = []
    try:
        yield from _joined(batches, limits, pending)
    except Exception:
        # the rows before an error are handed out before it
        if pending:
            yield concat_batches(pending)
        raise
    if pending:
        yield concat_batches(pending)


def _joined(
    batches: Iterable[tuple[pa.RecordBatch, bool, int | None]],
    limits: BatchLimits,
    pending: list[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    """`coalesce`'s batches but the last small ones, which wait in `pending`."""
    rows = size = 0

    def flush() -> pa.RecordBatch:
        nonlocal rows, size
        joined = concat_batches(pending)
        pending.clear()
        rows = size = 0
        return joined

    for batch, full, bound in batches:
        if full:
            if pending:
                yield flush()
            yield batch
            continue
        more = batch.num_rows
        assert bound is not None, "a small batch comes with its byte bound"
        if pending and not (
            rows + more <= limits.row_limit
            and size + bound <= limits.byte_limit
            and len(batch.schema) > 0  # no columns: nothing to join but a row count
            and batch.schema.equals(pending[0].schema)
        ):
            yield flush()
        pending.append(batch)
        rows, size = rows + more, size + bound
        if rows >= limits.row_limit:  # nothing more can join
            yield flush()


def byte_bound(batch: pa.RecordBatch) -> int:
    """At least the bytes the loader would count for `batch` (see `columns_bound`; a scan
    gives the coalescer its own, from the arrays it built and its schema's array count)."""
    return columns_bound(batch.columns, batch.num_rows, schema_arrays(batch.schema))


def columns_bound(columns: Iterable[pa.Array], rows: int, arrays: int) -> int:
    """At least the bytes the loader would count for a batch of `columns` (`rows` each,
    made of `arrays` arrays with their children): their buffers plus, for every array, a
    validity bitmap it may lack and the one offset more the loader counts (pyarrow's
    `nbytes` of a slice leaves it out).

    A column without children that holds a value counts its buffers whole
    (`get_total_buffer_size`: 0.1 µs, where `nbytes` takes 2 µs a column). That total
    counts a buffer address once, at the first size it meets, so it is a bound only where
    an array's buffers are apart: not in an array of nulls (`pa.nulls` puts all of them at
    one zero-filled address, a 1-byte bitmap first) nor among a nested column's children.
    Those count what they hold as `nbytes` does (a shared buffer once per use)."""
    held = 0
    for column in columns:
        if not column.type.num_fields and column.null_count < len(column):
            held += column.get_total_buffer_size()
        else:
            held += column.nbytes
    return held + ((rows + 7) // 8 + 8) * arrays


def schema_arrays(schema: pa.Schema) -> int:
    """The arrays the columns of `schema` are made of (children included)."""
    return sum(type_arrays(f.type) for f in schema)


def type_arrays(t: pa.DataType) -> int:
    """The arrays a column of type `t` is made of (itself and its children)."""
    return 1 + sum(type_arrays(t.field(i).type) for i in range(t.num_fields))


def concat_batches(batches: list[pa.RecordBatch]) -> pa.RecordBatch:
    """One batch of `batches`' rows in order (the batch itself if there is one)."""
    if len(batches) == 1:
        return batches[0]
    return pa.concat_batches(batches)  # a quarter faster than joining a table's chunks
