#!/usr/bin/env python3
"""Cut samples/glove.6B.50d.sample.txt from the GloVe 6B 50d file.

Keeps, in the original (frequency) order, the first TOP rows plus every row whose word
occurs in samples/sentences.txt, samples/pairs.tsv or samples/document.txt, so the demo has no OOV tokens and
users can try their own everyday sentences. Usage:
    python3 samples/make_sample_embeddings.py ../shared/data/glove.6B.50d.top10k.txt
"""
import pathlib
import re
import sys

TOP = 1000
here = pathlib.Path(__file__).resolve().parent
text = ""
for name in ("sentences.txt", "pairs.tsv", "document.txt"):
    for line in (here / name).read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            text += " " + line.lower()
# Close to attn-viz's tokenizer for English: words, clitics ('s, n't) and punctuation.
text = re.sub(r"(\w)n't\b", r"\1 n't", text)
text = re.sub(r"([^\sn])'(\w)", r"\1 '\2", text)
words = set(re.findall(r"n't|'\w+|\w+|[^\w\s]", text))

out = []
with open(sys.argv[1], encoding="utf-8") as f:
    for i, row in enumerate(f):
        word = row.split(" ", 1)[0]
        if i < TOP or word in words:
            out.append(row)
            words.discard(word)
if words:
    sys.exit(f"not in the GloVe file: {sorted(words)}")
(here / "glove.6B.50d.sample.txt").write_text("".join(out), encoding="utf-8")
print(f"{len(out)} rows written")
