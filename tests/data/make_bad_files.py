#!/usr/bin/env python3
"""Writes the small broken inputs of tests/data/bad/ (run once; the files are checked in).

Each file is broken in one way; tests/e2e/test_bad_inputs.py says what attn-viz must answer."""
import json
import pathlib
import struct

bad = pathlib.Path(__file__).resolve().parent / "bad"
bad.mkdir(exist_ok=True)


def text(name, content):
    (bad / name).write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


# --- embedding files -----------------------------------------------------------------------
text("empty.txt", b"")
text("header-only.txt", "3 4\n")
text("header-count-lies.txt", "5 3\nthe 0.1 0.2 0.3\ncat 0.4 0.5 0.6\n")
text("header-dim-lies.txt", "2 4\nthe 0.1 0.2 0.3\ncat 0.4 0.5 0.6\n")
text("ragged.txt", "the 0.1 0.2 0.3\ncat 0.4 0.5\n")
text("not-a-number.txt", "the 0.1 0.2 0.3\ncat 0.4 abc 0.6\n")
text("nan.txt", "the 0.1 0.2 0.3\ncat 0.4 NaN 0.6\n")
text("inf.txt", "the 0.1 0.2 0.3\ncat 0.4 inf 0.6\n")
text("huge.txt", "the 0.1 0.2 0.3\ncat 0.4 1e39 0.6\n")
text("dimension-change.txt", "2 3\nthe 0.1 0.2 0.3\ncat 0.4 0.5 0.6 0.7\n")
text("invalid-utf8-token.txt", b"the 0.1 0.2 0.3\nca\xfft 0.4 0.5 0.6\n")
text("no-values.txt", "the 0.1 0.2 0.3\ncat\n")
# accepted: CRLF, a BOM, a duplicated word (the first row wins)
text("crlf-bom-duplicate.txt", b"\xef\xbb\xbfthe 1 0 0\r\ncat 0 1 0\r\ncat 9 9 9\r\n")


# --- safetensors ---------------------------------------------------------------------------
def safetensors(name, header, data=b"", raw_header=None):
    h = raw_header if raw_header is not None else json.dumps(header).encode()
    (bad / name).write_bytes(struct.pack("<Q", len(h)) + h + data)


def f32(*values):
    return struct.pack(f"<{len(values)}f", *values)


safetensors("header-too-long.safetensors", None, raw_header=b"{}", data=b"")
(bad / "header-too-long.safetensors").write_bytes(struct.pack("<Q", 256) + b"{}")
safetensors("not-json.safetensors", None, raw_header=b"{not json at all", data=b"")
safetensors("offsets-out-of-range.safetensors",
            {"score.W": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, f32(1.0))
safetensors("overlapping.safetensors",
            {"score.W": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
             "score.v": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, f32(1, 2, 3))
safetensors("shape-bytes-mismatch.safetensors",
            {"score.W": {"dtype": "F32", "shape": [3, 3], "data_offsets": [0, 8]}}, f32(1, 2))
safetensors("dtype-i32.safetensors",
            {"score.W": {"dtype": "I32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8)
safetensors("too-short.safetensors", None, raw_header=b"")
(bad / "too-short.safetensors").write_bytes(b"\x01\x02")
safetensors("wrong-name.safetensors",
            {"score.weight": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, f32(1))
safetensors("wrong-shape.safetensors",
            {"score.W": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}},
            f32(1, 2, 3, 4, 5, 6))
# multi-head, one head over tiny3d.txt (d = 3) with a negative head share
eye = f32(1, 0, 0, 0, 1, 0, 0, 0, 1)
safetensors("kappa-negative.safetensors",
            {"q_proj.weight": {"dtype": "F32", "shape": [3, 3], "data_offsets": [0, 36]},
             "k_proj.weight": {"dtype": "F32", "shape": [3, 3], "data_offsets": [36, 72]},
             "v_proj.weight": {"dtype": "F32", "shape": [3, 3], "data_offsets": [72, 108]},
             "out_proj.weight": {"dtype": "F32", "shape": [3, 3], "data_offsets": [108, 144]},
             "combine.kappa": {"dtype": "F32", "shape": [1], "data_offsets": [144, 148]}},
            eye * 4 + f32(-1))
print("written to", bad)
