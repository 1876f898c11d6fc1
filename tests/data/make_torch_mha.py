#!/usr/bin/env python3
"""Fixtures from PyTorch's own torch.nn.MultiheadAttention, for the test that attn-viz loads a
saved MultiheadAttention state_dict as is and reproduces its per-head weights and its output.

Writes, for each case, <name>.safetensors (the module's state_dict, written here byte by byte in
the safetensors format since Debian's PyTorch 1.13 has no safetensors module) and <name>.json
(the tokens, the expected per-head weights from need_weights=True, average_attn_weights=False,
and the module's output).

  /usr/bin/python3 tests/data/make_torch_mha.py [OUT_DIR]      (needs Debian's python3-torch)

The e2e test (tests/e2e/test_torch.py) checks the checked-in files always, and when torch can be
imported, also makes a fresh set with other seeds and checks that too.
"""
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EMBEDDINGS = os.path.join(HERE, "..", "..", "samples", "glove.6B.50d.sample.txt")

CASES = [
    # name, seed, heads, query tokens, key/value tokens (None: self-attention)
    ("self_h5", 0, 5, "the cat sat on the floor because it was tired", None),
    ("cross_h2", 1, 2, "where did the cat go ?", "the cat sat on the floor"),
    ("self_h10", 2, 10, "he said that she would come back next year", None),
]


def read_vectors(path, words):
    found = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ")
            if parts[0] in words and parts[0] not in found:
                found[parts[0]] = [float(x) for x in parts[1:]]
    missing = [w for w in words if w not in found]
    if missing:
        raise SystemExit(f"not in {path}: {missing}")
    return found


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().to("cpu").float().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def make(out_dir, cases=CASES, embeddings=EMBEDDINGS):
    import torch  # Debian: python3-torch

    torch.set_num_threads(1)
    os.makedirs(out_dir, exist_ok=True)
    words = set()
    for _, _, _, q, kv in cases:
        words.update(q.split())
        words.update((kv or "").split())
    vectors = read_vectors(embeddings, words)
    for name, seed, heads, q_text, kv_text in cases:
        torch.manual_seed(seed)
        mha = torch.nn.MultiheadAttention(50, heads, bias=True)
        with torch.no_grad():  # torch starts the biases at 0; make them count
            mha.in_proj_bias.uniform_(-0.5, 0.5)
            mha.out_proj.bias.uniform_(-0.5, 0.5)
        mha.eval()
        q_tokens = q_text.split()
        kv_tokens = (kv_text or q_text).split()
        q = torch.tensor([vectors[w] for w in q_tokens], dtype=torch.float64).float().unsqueeze(1)
        kv = torch.tensor([vectors[w] for w in kv_tokens], dtype=torch.float64).float().unsqueeze(1)
        with torch.no_grad():
            out, weights = mha(q, kv, kv, need_weights=True, average_attn_weights=False)
        write_safetensors(os.path.join(out_dir, name + ".safetensors"), mha.state_dict())
        expected = {
            "producer": f"torch {torch.__version__} nn.MultiheadAttention(50, {heads}), seed {seed}",
            "heads": heads,
            "query_tokens": q_tokens,
            "key_tokens": kv_tokens,
            "self": kv_text is None,
            "weights": weights[0].tolist(),   # [heads, n_q, n_k]
            "output": out[:, 0, :].tolist(),  # [n_q, 50]
        }
        with open(os.path.join(out_dir, name + ".json"), "w") as f:
            json.dump(expected, f)
            f.write("\n")


if __name__ == "__main__":
    make(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "torch_mha"))
