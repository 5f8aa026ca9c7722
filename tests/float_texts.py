"""Number texts that tell a reader's float32 rounding apart."""

from __future__ import annotations

import random
import struct


def f32_midpoint_texts(n: int, seed: int = 7) -> list[str]:
    """The shortest spellings of `n` midpoints between neighbouring normal f32s. Each reads
    as the midpoint itself when parsed as an f64, which rounds to the even neighbour as an
    f32; the text itself lies a hair to one side, and rounded once it goes to that side."""
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        bits = rng.randrange(0x0080_0000, 0x7F00_0000)
        low, high = (struct.unpack("<f", struct.pack("<I", b))[0] for b in (bits, bits + 1))
        texts.append(repr((low + high) / 2))
    return texts
