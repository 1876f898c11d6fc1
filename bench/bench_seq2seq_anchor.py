#!/usr/bin/env python3
"""The anchors for `attn-viz model` on an encoder-decoder (bench/run_seq2seq_benchmarks.py runs
this, one cell per process so that ru_maxrss is the cell's): a BART-base-shaped model (6 + 6
layers, d 768, 12 heads, MLP 3072, GELU, post-LayerNorm, vocabulary 50,265) written like
../shared/bench/bench_model.py, random weights.

  --task forward   teacher forcing, ns source and nt target tokens: the encoder, then the decoder
                   (causal self-attention, cross attention over the encoder), every layer's every
                   head's maps of the three stacks kept ([L, H, n, n] float32 each) and the final
                   hidden states; no logits. FLOPs: every matrix product, Q Kᵀ and A V over the
                   full maps.
  --task generate  greedy decoding of --new tokens after encoding ns source tokens, with a
                   key/value cache (each step projects one row and attends over the cached
                   ones), the logits over the vocabulary and their argmax every step; the maps
                   are not kept (PyTorch's loop needs none); tokens/s over the decoding steps.
  --impl torch     PyTorch's default CPU path (Debian's build: reference BLAS)
  --impl dnnl      every matrix product through oneDNN's JIT sgemm (../shared/bench/dnnl_gemm.py)

usage: bench_seq2seq_anchor.py --task forward --impl dnnl --ns 512 --nt 512 --threads 2
       --shared ../shared/bench [--out results.jsonl]
"""
import argparse
import math
import os
import sys

p = argparse.ArgumentParser()
p.add_argument("--task", required=True, choices=["forward", "generate"])
p.add_argument("--impl", required=True, choices=["torch", "dnnl"])
p.add_argument("--ns", type=int, default=512)
p.add_argument("--nt", type=int, default=512)
p.add_argument("--new", type=int, default=128)
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
L, d, H, I, V = 6, 768, 12, 3072, 50265
dh = d // H
rng = np.random.default_rng(0)


def w(*shape):
    return torch.from_numpy(rng.standard_normal(shape, dtype=np.float32) / math.sqrt(shape[-1]))


def attn_weights():
    return {k: w(d, d) for k in ("q", "k", "v", "o")}


enc = [dict(self=attn_weights(), fc1=w(I, d), fc2=w(d, I)) for _ in range(L)]
dec = [dict(self=attn_weights(), cross=attn_weights(), fc1=w(I, d), fc2=w(d, I)) for _ in range(L)]
emb = w(V, d)
zeros_d, ones_d, zeros_i = torch.zeros(d), torch.ones(d), torch.zeros(I)

if a.impl == "dnnl":
    import dnnl_gemm

    def linear(x, W):
        return torch.from_numpy(dnnl_gemm.sgemm(x.contiguous().numpy(), W.numpy(), transb=True))

    def scores(q, k):
        return torch.from_numpy(dnnl_gemm.sgemm(q.contiguous().numpy(), k.contiguous().numpy(), transb=True,
                                                alpha=1.0 / math.sqrt(dh)))

    def mix(p_, v):
        return torch.from_numpy(dnnl_gemm.sgemm(p_.contiguous().numpy(), v.contiguous().numpy()))
else:
    def linear(x, W):
        return torch.nn.functional.linear(x, W)

    def scores(q, k):
        return (q @ k.T).mul_(1.0 / math.sqrt(dh))

    def mix(p_, v):
        return p_ @ v


def ln(x):
    return torch.nn.functional.layer_norm(x, (d,), ones_d, zeros_d, 1e-5)


def attend(q, k, v, maps, mask):
    """Per head softmax(q kᵀ/√dh) v; the weights into maps[h] (or kept nowhere)."""
    ctx = torch.empty(q.shape[0], d)
    for h in range(H):
        s = scores(q[:, h * dh:(h + 1) * dh], k[:, h * dh:(h + 1) * dh])
        if mask is not None:
            s = s.masked_fill_(mask, float("-inf"))
        p_ = torch.softmax(s, -1)
        if maps is not None:
            maps[h].copy_(p_)
        ctx[:, h * dh:(h + 1) * dh] = mix(p_, v[:, h * dh:(h + 1) * dh])
    return ctx


def encoder(x, maps):
    for l, P in enumerate(enc):
        A = P["self"]
        c = attend(linear(x, A["q"]), linear(x, A["k"]), linear(x, A["v"]), maps[l] if maps is not None else None, None)
        x = ln(x + linear(c, A["o"]))
        x = ln(x + linear(torch.nn.functional.gelu(linear(x, P["fc1"])), P["fc2"]))
    return x


def forward():
    ns, nt = a.ns, a.nt
    enc_maps, dec_maps, cross_maps = torch.empty(L, H, ns, ns), torch.empty(L, H, nt, nt), torch.empty(L, H, nt, ns)
    memory = encoder(emb[:ns].clone(), enc_maps)
    y = emb[:nt].clone()
    causal = torch.ones(nt, nt, dtype=torch.bool).triu(1)
    for l, P in enumerate(dec):
        A, C = P["self"], P["cross"]
        c = attend(linear(y, A["q"]), linear(y, A["k"]), linear(y, A["v"]), dec_maps[l], causal)
        y = ln(y + linear(c, A["o"]))
        c = attend(linear(y, C["q"]), linear(memory, C["k"]), linear(memory, C["v"]), cross_maps[l], None)
        y = ln(y + linear(c, C["o"]))
        y = ln(y + linear(torch.nn.functional.gelu(linear(y, P["fc1"])), P["fc2"]))
    return enc_maps, dec_maps, cross_maps, y


def generate():
    memory = encoder(emb[:a.ns].clone(), None)
    ck = [linear(memory, P["cross"]["k"]) for P in dec]
    cv = [linear(memory, P["cross"]["v"]) for P in dec]
    sk, sv = [torch.empty(0, d) for _ in dec], [torch.empty(0, d) for _ in dec]
    token = 2
    for t in range(a.new):
        y = emb[token:token + 1].clone()
        for l, P in enumerate(dec):
            A, C = P["self"], P["cross"]
            sk[l] = torch.cat([sk[l], linear(y, A["k"])])
            sv[l] = torch.cat([sv[l], linear(y, A["v"])])
            y = ln(y + linear(attend(linear(y, A["q"]), sk[l], sv[l], None, None), A["o"]))
            y = ln(y + linear(attend(linear(y, C["q"]), ck[l], cv[l], None, None), C["o"]))
            y = ln(y + linear(torch.nn.functional.gelu(linear(y, P["fc1"])), P["fc2"]))
        token = int(torch.argmax(linear(y, emb)[0]))
    return token


ns, nt = a.ns, a.nt
if a.task == "forward":
    mm = L * 2 * ns * (4 * d * d + 2 * d * I) + L * 2 * (nt * (6 * d * d + 2 * d * I) + ns * 2 * d * d)
    att = L * H * 2 * 2 * dh * (ns * ns + nt * nt + nt * ns)
    ts, _, _ = run_cell(forward, min_reps=3 if a.impl == "dnnl" else 1, min_total_s=0.0, keep_first_if_s=5.0)
    rec = dict(task="forward", ns=ns, nt=nt, gflop=round((mm + att) / 1e9, 1))
else:
    ts, _, _ = run_cell(generate, min_reps=3 if a.impl == "dnnl" else 1, min_total_s=0.0, keep_first_if_s=5.0)
    rec = dict(task="generate", ns=ns, new=a.new)
rec.update(impl=a.impl, threads=a.threads, torch=torch.__version__, maxrss_mib=round(maxrss_mib(), 1),
           **summarize(ts))
if a.task == "forward":
    rec["gflops"] = round(rec["gflop"] / rec["median_s"], 1)
else:
    rec["tokens_per_s"] = round(a.new / rec["median_s"], 2)
emit(rec, a.out)
