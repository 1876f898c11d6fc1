#!/usr/bin/env python3
"""tests/data/gguf/blocks.gguf: for every block type attn-viz reads, random blocks and their
values as tests/data/gguf_writer.py decodes them from the specification (NumPy, float32 rounding
in the specification's order). tests/unit/params/test_gguf.cpp decodes the blocks with attn-viz
and compares bit for bit.

  /usr/bin/python3 tests/data/make_gguf_fixtures.py [OUT_DIR]

Tensors (a GGUF v3 file, 64-byte alignment): blocks.<TYPE> [rows 3, 2 blocks each] of random
bytes, expected.<TYPE> F32 of the same shape; metadata of every value type for the parser's
test (fixture.* keys)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer as g  # noqa: E402

QUANTIZED = ["Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"]
ROWS, BLOCKS_PER_ROW = 3, 2


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "gguf")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)
    tensors = []
    for t in QUANTIZED + ["F16", "BF16"]:
        _, block, nbytes = g.TYPES[t]
        cols = block * BLOCKS_PER_ROW if block > 1 else 64
        if block > 1:
            raw = g.random_blocks(t, ROWS * BLOCKS_PER_ROW, rng)
        else:
            raw = rng.integers(0, 2**16, size=ROWS * cols, dtype=np.uint16)
            raw[(raw & 0x7C00) == 0x7C00] &= 0xBFFF  # no inf / NaN: finite expectations
            raw = raw.astype("<u2").tobytes()
        want = g.dequantize(t, raw, ROWS * cols)
        tensors.append((f"blocks.{t}", t, raw, [cols, ROWS]))
        tensors.append((f"expected.{t}", "F32", want.astype("<f4").tobytes(), [cols, ROWS]))
    metadata = [
        ("general.architecture", "string", "fixture"),
        ("general.alignment", "u32", 64),
        ("fixture.u8", "u8", 200), ("fixture.i8", "i8", -100), ("fixture.u16", "u16", 60000),
        ("fixture.i16", "i16", -30000), ("fixture.u32", "u32", 4000000000),
        ("fixture.i32", "i32", -2000000000), ("fixture.f32", "f32", 0.25),
        ("fixture.bool", "bool", True), ("fixture.string", "string", "naïve ▁text"),
        ("fixture.u64", "u64", 2**63 + 5), ("fixture.i64", "i64", -(2**62)),
        ("fixture.f64", "f64", -1.5),
        ("fixture.strings", ("array", "string"), ["a", "", "Ġthe", "<0x0A>"]),
        ("fixture.floats", ("array", "f32"), [0.5, -2.0]),
        ("fixture.nested", ("array", ("array", "i32")), [[1, 2], [], [3]]),
    ]
    with open(os.path.join(out, "blocks.gguf"), "wb") as f:
        f.write(g.gguf_bytes(metadata, tensors, alignment=64))


if __name__ == "__main__":
    main()
