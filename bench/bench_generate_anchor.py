#!/usr/bin/env python3
"""The anchor for `attn-viz model --generate` (bench/run_generation_benchmarks.py runs this, one
cell per process so that ru_maxrss is the cell's): greedy generation with a key/value cache in
PyTorch, the way a careful user writes the loop, on the shapes of ../shared/bench/bench_model.py:

  gpt2-small  12 layers, d 768, 12 heads, MLP 3072 (GELU tanh), pre-LayerNorm, learned
              positions, tied output over 50,257 tokens
  llama-1b    16 layers, d 2048, 32 query / 8 KV heads of 64, MLP 8192 (SwiGLU), RMSNorm,
              rotate-half RoPE (theta 500000), tied output over 128,256 tokens; weights rounded
              to BF16 and held as float32 (converted once, outside the timing)

The prompt (--prompt random ids) runs in one pass that fills the caches; then --new steps, each
one row through every layer over the cache, the logits over the vocabulary and their argmax.
No attention maps are kept (PyTorch's loop needs none; attn-viz keeps every one). Timed: the
prompt pass and every step; tokens/s = new / that time.

  --impl torch   PyTorch's default CPU path (Debian's build: reference BLAS)

usage: bench_generate_anchor.py --shape gpt2-small --prompt 128 --new 256 --threads 2
       [--shared ../shared/bench] [--out results.jsonl]
"""
import argparse
import math
import os
import sys

p = argparse.ArgumentParser()
p.add_argument("--shape", required=True, choices=["gpt2-small", "llama-1b"])
p.add_argument("--impl", default="torch", choices=["torch"])
p.add_argument("--prompt", type=int, default=128)
p.add_argument("--new", type=int, default=64)
p.add_argument("--threads", type=int, default=2)
p.add_argument("--shared", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                "shared", "bench"))
p.add_argument("--out", default=None)
a = p.parse_args()
sys.path.insert(0, a.shared)
from common import emit, maxrss_mib, run_cell, set_threads_env, summarize  # noqa: E402

set_threads_env(a.threads)
import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(a.threads)
torch.set_grad_enabled(False)
GPT2 = a.shape == "gpt2-small"
L, d, H, KV, I, V = (12, 768, 12, 12, 3072, 50257) if GPT2 else (16, 2048, 32, 8, 8192, 128256)
dh = d // H
rng = np.random.default_rng(0)


def w(*shape):
    x = rng.standard_normal(shape, dtype=np.float32) / np.float32(math.sqrt(shape[-1]))
    if not GPT2:  # BF16 weights: the high 16 bits
        x = (x.view(np.uint32) & 0xFFFF0000).view(np.float32)
    return torch.from_numpy(np.ascontiguousarray(x))


emb = w(V, d)
pos = w(1024, d) if GPT2 else None
layers = []
for _ in range(L):
    if GPT2:
        layers.append(dict(qkv=w(3 * d, d), o=w(d, d), fc=w(I, d), proj=w(d, I)))
    else:
        layers.append(dict(q=w(H * dh, d), k=w(KV * dh, d), v=w(KV * dh, d), o=w(d, H * dh),
                           gate=w(I, d), up=w(I, d), down=w(d, I)))
inv = 1.0 / (500000.0 ** (torch.arange(0, dh, 2, dtype=torch.float32) / dh))


def norm(x):
    if GPT2:
        return torch.nn.functional.layer_norm(x, (d,))
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5)


def rope(x, first):  # x [heads, n, dh]
    ang = torch.arange(first, first + x.shape[1], dtype=torch.float32)[:, None] * inv[None]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
    half = torch.cat([-x[..., dh // 2:], x[..., :dh // 2]], -1)
    return x * cos + half * sin


def run(ids, first, cache):
    """Rows for positions [first, first + n) over the caches (appended to); the last row's logits."""
    n = len(ids)
    x = emb[ids] + (pos[first:first + n] if GPT2 else 0)
    for l, P in enumerate(layers):
        h = norm(x)
        if GPT2:
            q, k, v = (h @ P["qkv"].T).split(d, -1)
        else:
            q, k, v = h @ P["q"].T, h @ P["k"].T, h @ P["v"].T
        q = q.view(n, H, dh).transpose(0, 1)
        k = k.view(n, KV, dh).transpose(0, 1)
        v = v.view(n, KV, dh).transpose(0, 1)
        if not GPT2:
            q, k = rope(q, first), rope(k, first)
        ck, cv = cache[l]
        ck, cv = torch.cat([ck, k], 1), torch.cat([cv, v], 1)
        cache[l] = (ck, cv)
        kk, vv = ck.repeat_interleave(H // KV, 0), cv.repeat_interleave(H // KV, 0)
        s = q @ kk.transpose(1, 2) / math.sqrt(dh)
        if n > 1:
            s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
        ctx = (torch.softmax(s, -1) @ vv).transpose(0, 1).reshape(n, d)
        x = x + ctx @ P["o"].T
        h = norm(x)
        if GPT2:
            x = x + torch.nn.functional.gelu(h @ P["fc"].T, approximate="tanh") @ P["proj"].T
        else:
            g = h @ P["gate"].T
            x = x + (torch.nn.functional.silu(g) * (h @ P["up"].T)) @ P["down"].T
    return norm(x[-1:]) @ emb.T


prompt = torch.from_numpy(rng.integers(0, V, a.prompt))


def generate():
    cache = [(torch.empty(KV, 0, dh), torch.empty(KV, 0, dh)) for _ in range(L)]
    logits = run(prompt, 0, cache)
    out = []
    for t in range(a.new):
        token = int(torch.argmax(logits[0]))
        out.append(token)
        logits = run(torch.tensor([token]), a.prompt + t, cache)
    return out


ts, _, _ = run_cell(generate, min_reps=1, min_total_s=0.0, keep_first_if_s=5.0)
rec = dict(task="generate", shape=a.shape, prompt=a.prompt, new=a.new, impl=a.impl, threads=a.threads,
           torch=torch.__version__, maxrss_mib=round(maxrss_mib(), 1), **summarize(ts))
rec["tokens_per_s"] = round(a.new / rec["median_s"], 2)
emit(rec, a.out)
