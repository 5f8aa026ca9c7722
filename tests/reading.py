"""Driving a built-in reader into a loader by hand, as the scan does."""

from __future__ import annotations

import batchloader as bl


def read_to_end(reader: bl.FileReader, loader: bl.ResultSetLoader, batches: list) -> None:
    """Fill `loader` from `reader` to the end of its input, appending each batch to
    `batches` (so the ones before an error are kept); a record that overflowed the last
    batch is row 0 of one more."""
    loader.start_batch()
    while reader.fill(loader):
        batches.append(loader.harvest())
        loader.start_batch()
    batches.append(loader.harvest())
    if loader.start_batch() and loader.row_count:
        batches.append(loader.harvest())
