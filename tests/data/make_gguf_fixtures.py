#!/usr/bin/env python3
"""tests/data/gguf/blocks.gguf: for every block type attn-viz reads, random blocks and their
values as tests/data/gguf_writer.py decodes them from the specification (NumPy, float32 rounding
in the specification's order). tests/unit/params/test_gguf.cpp decodes the blocks with attn-viz
and compares bit for bit.

  /usr/bin/python3 tests/data/make_gguf_fixtures.py [OUT_DIR]

Tensors (a GGUF v3 file, 64-byte alignment): blocks.<TYPE> [rows 3, 2 blocks each] of random
bytes, expected.<TYPE> F32 of the same shape; metadata of every value type for the parser's
test (fixture.* keys).

tests/data/gguf/spm_bpe.json: a SentencePiece BPE model (byte fallback, identity normalization,
split digits, as Llama's) trained here with Debian's python3-sentencepiece on the samples'
texts, as llama.cpp's converter reads it (pieces, scores, token types) with the ids
SentencePiece itself gives a set of texts (<s> first): the reference for the "llama" tokenizer
of GGUF metadata."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer as g  # noqa: E402

QUANTIZED = ["Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"]
ROWS, BLOCKS_PER_ROW = 3, 2


TEXTS_FROM = ["samples/document.txt", "samples/sentences.txt", "README.md"]
SPM_TEXTS = [
    "Hello world", "The cat sat on the mat because it was tired.",
    "  leading spaces and  double  spaces   and trailing   ",
    "I'm sure you've seen they'll do it, we'd say; it's 'quoted'",
    "Numbers: 3.14159, 1,000,000 and 2024-11-25 or 0x1F",
    "Tabs\there\tand\nnewlines\n\nand \r\n windows",
    "Émigré naïve café Ångström façade — über straße",
    "中文没有空格，机器学习很有趣。", "emoji: 😀🎉👍🏽", "attention heads and their maps",
    "<s> inside </s> text", "unknown: ☃ ∑ ğ",
]


def spm_fixture(out):
    import sentencepiece as spm
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    corpus = os.path.join(out, "spm_corpus.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        for name in TEXTS_FROM:
            f.write(open(os.path.join(root, name), encoding="utf-8").read() + "\n")
    prefix = os.path.join(out, "spm_bpe")
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=prefix, vocab_size=600, model_type="bpe", byte_fallback=True,
        normalization_rule_name="identity", remove_extra_whitespaces=False, split_digits=True,
        character_coverage=1.0, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    types = []
    for i in range(sp.get_piece_size()):
        types.append(2 if sp.is_unknown(i) else 3 if sp.is_control(i) else 5 if sp.is_unused(i)
                     else 6 if sp.is_byte(i) else 1)
    fixture = {"producer": f"sentencepiece {spm.__version__}",
               "tokens": [sp.id_to_piece(i) for i in range(sp.get_piece_size())],
               "scores": [sp.get_score(i) for i in range(sp.get_piece_size())],
               "types": types, "bos": sp.bos_id(), "unk": sp.unk_id(), "texts": SPM_TEXTS,
               "ids": [[sp.bos_id()] + sp.encode(t) for t in SPM_TEXTS]}
    with open(os.path.join(out, "spm_bpe.json"), "w", encoding="utf-8") as f:
        json.dump(fixture, f, ensure_ascii=False, indent=0)
    for leftover in (corpus, prefix + ".model", prefix + ".vocab"):
        os.remove(leftover)


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
    spm_fixture(out)


if __name__ == "__main__":
    main()
