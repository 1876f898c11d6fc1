#!/usr/bin/env python3
"""A tokenizer.json with a Unigram model, as Hugging Face's converter writes one for a
SentencePiece model (T5, mT5, XLM-R): the Precompiled normalizer with the model file's charsmap,
runs of spaces replaced by one (a Regex Replace), Metaspace splitting, </s> after the text. Made
from tests/data/tokenizers/spm/nfkc.model; make_unigram_fixtures.mjs then writes the ids npm's
@huggingface/tokenizers gives (ids.json), and python3-sentencepiece's for the same texts
(spm_ids) beside them.

    /usr/bin/python3 tests/data/make_unigram_fixtures.py
    cd tests/data && npm install --no-save @huggingface/tokenizers && node make_unigram_fixtures.mjs
"""
import base64
import json
import os
import sys

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from formats import varint  # noqa: E402
OUT = os.path.join(HERE, "tokenizers", "unigram_json")


def fields(b):
    """(field number, wire type, value) of one protobuf message."""
    i, out = 0, []
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            v, i = b[i:i + 8], i + 8
        out.append((f, w, v))
    return out


def main():
    path = os.path.join(HERE, "tokenizers", "spm", "nfkc.model")
    raw = open(path, "rb").read()
    normalizer = [v for f, w, v in fields(raw) if f == 3][0]
    charsmap = [v for f, w, v in fields(normalizer) if f == 2][0]
    sp = spm.SentencePieceProcessor(model_file=path)
    vocab = [[sp.id_to_piece(i), sp.get_score(i)] for i in range(sp.get_piece_size())]
    tok = {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": sp.id_to_piece(i), "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True} for i in (0, 1, 2)],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode()},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
                          "split": True},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "</s>", "type_id": 0}},
                                    {"Sequence": {"id": "B", "type_id": 0}},
                                    {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "special_tokens": {"</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}},
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": False},
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False)
    texts = json.load(open(os.path.join(HERE, "tokenizers", "spm", "nfkc.ids.json"), encoding="utf-8"))["texts"]
    with open(os.path.join(OUT, "texts.json"), "w", encoding="utf-8") as f:
        json.dump({"texts": texts, "spm_ids": [sp.encode(t) + [2] for t in texts]}, f, ensure_ascii=False, indent=0)


if __name__ == "__main__":
    main()
