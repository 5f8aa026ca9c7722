"""Byte accounting of Arrow arrays, as DESIGN.md section 1 defines it.

Values n x width (bool ceil(n/8)), validity ceil(n/8) for nullable fields, offsets
4 x (n+1) (8x for large types), variable-width data bytes. Used to check the loader's limits
against batches (and against single rows built by pyarrow).
"""

from __future__ import annotations

import pyarrow as pa


def _bits(n: int) -> int:
    return (n + 7) // 8


def _child_range(arr: pa.Array) -> tuple[int, int]:
    """The range of its child a list or map array (maybe a slice) uses."""
    if not len(arr):
        return 0, 0
    offsets = arr.offsets.to_pylist()
    return offsets[0], offsets[-1]


def buffer_sizes(arr: pa.Array, field: pa.Field) -> list[int]:
    """The size of every buffer of `arr` (children included) as the loader counts them."""
    n = len(arr)
    t = arr.type
    sizes = [_bits(n)] if field.nullable else []
    if pa.types.is_boolean(t):
        sizes.append(_bits(n))
    elif pa.types.is_struct(t):
        for i in range(t.num_fields):
            sizes += buffer_sizes(arr.field(i), t.field(i))
    elif pa.types.is_map(t):
        sizes.append(4 * (n + 1))
        # `keys` and `items` are the whole child arrays, a slice's or not
        first, last = _child_range(arr)
        sizes += buffer_sizes(arr.keys.slice(first, last - first), t.key_field)
        sizes += buffer_sizes(arr.items.slice(first, last - first), t.item_field)
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        width = 8 if pa.types.is_large_list(t) else 4
        sizes.append(width * (n + 1))
        first, last = _child_range(arr)
        sizes += buffer_sizes(arr.values.slice(first, last - first), t.value_field)
    elif (
        pa.types.is_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_string(t)
        or pa.types.is_large_binary(t)
    ):
        large = pa.types.is_large_string(t) or pa.types.is_large_binary(t)
        width = 8 if large else 4
        offsets = pa.Array.from_buffers(
            pa.int64() if large else pa.int32(), n + 1, [None, arr.buffers()[1]], offset=arr.offset
        ).to_pylist()
        sizes += [width * (n + 1), offsets[-1] - offsets[0]]
    else:
        sizes.append(n * t.bit_width // 8)
    return sizes


def batch_buffer_sizes(batch: pa.RecordBatch) -> list[int]:
    """Every buffer size of a batch, as the loader counts them."""
    sizes: list[int] = []
    for field, column in zip(batch.schema, batch.columns, strict=True):
        sizes += buffer_sizes(column, field)
    return sizes


def exported_buffer_sizes(batch: pa.RecordBatch) -> list[int]:
    """The sizes of the buffers pyarrow actually holds for `batch` (recounted, not computed)."""
    return [b.size for column in batch.columns for b in column.buffers() if b is not None]
