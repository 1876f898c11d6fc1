#!/usr/bin/env python3
"""The anchor for a vision transformer's forward pass that keeps every layer's attention
weights, in the manner of ../shared/bench/bench_model.py (its helpers and its two impls):

  shape   vit-b16: ViT-B/16 at 224 x 224 -- the 16 x 16 patches projected (the stride-16
          convolution as one product over the 196 flattened patches), CLS and learned positions,
          12 pre-LayerNorm layers of d 768, 12 heads, MLP 3072 with exact GELU, no mask: 197
          tokens; the final norm and the 1000-class classifier on CLS
  impls   torch : PyTorch's default CPU path (Debian's build: reference BLAS)
          dnnl  : every matrix product through oneDNN's JIT sgemm (../shared/bench/dnnl_gemm.py),
                  the rest in PyTorch in place
Random weights and pixels (speed does not depend on values). Output: the maps [L, H, n, n]
float32, the final hidden state and the logits. FLOPs: every matrix product (the patch
projection, projections, MLP, QK^T, AV).

usage: bench_vit_anchor.py --impl dnnl --threads 2 [--shared ../shared/bench] [--out F.jsonl]
"""
import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
p = argparse.ArgumentParser()
p.add_argument("--impl", required=True, choices=["torch", "dnnl"])
p.add_argument("--threads", type=int, default=2)
p.add_argument("--reps", type=int, default=3)
p.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared", "bench"))
p.add_argument("--out", default=None)
a = p.parse_args()
sys.path.insert(0, a.shared)
from common import emit, maxrss_mib, run_cell, set_threads_env, summarize  # noqa: E402

set_threads_env(a.threads)
import numpy as np  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(a.threads)
torch.set_grad_enabled(False)
L, d, H, I, P, IMG, CLASSES = 12, 768, 12, 3072, 16, 224, 1000
G = IMG // P
n, dh = 1 + G * G, d // H
rng = np.random.default_rng(0)


def w(*shape, fan_in):
    return torch.from_numpy(np.ascontiguousarray(
        rng.standard_normal(shape, dtype=np.float32) / math.sqrt(fan_in)))


patch_w = w(d, 3 * P * P, fan_in=3 * P * P)
cls, pos = w(1, d, fan_in=d), w(n, d, fan_in=d)
layers = [dict(q=w(d, d, fan_in=d), k=w(d, d, fan_in=d), v=w(d, d, fan_in=d), o=w(d, d, fan_in=d),
               up=w(I, d, fan_in=d), down=w(d, I, fan_in=I), b=torch.zeros(d), bi=torch.zeros(I),
               ln=torch.ones(d)) for _ in range(L)]
head = w(CLASSES, d, fan_in=d)
pixels = torch.from_numpy(rng.uniform(-1, 1, (3, IMG, IMG)).astype(np.float32))

if a.impl == "dnnl":
    sys.path.insert(0, a.shared)
    import dnnl_gemm

    def linear(x, W, b=None):
        y = torch.from_numpy(dnnl_gemm.sgemm(x.numpy(), W.numpy(), transb=True))
        return y.add_(b) if b is not None else y

    def scores(q, k):
        return torch.from_numpy(dnnl_gemm.sgemm(q.numpy(), k.numpy(), transb=True, alpha=1.0 / math.sqrt(dh)))

    def mix(p_, v, out):
        dnnl_gemm.sgemm(p_.numpy(), v.numpy(), C=out.numpy())
else:
    def linear(x, W, b=None):
        return torch.nn.functional.linear(x, W, b)

    def scores(q, k):
        return (q @ k.T).mul_(1.0 / math.sqrt(dh))

    def mix(p_, v, out):
        torch.mm(p_, v, out=out)


def forward():
    maps = torch.empty(L, H, n, n)
    patches = pixels.reshape(3, G, P, G, P).permute(1, 3, 0, 2, 4).reshape(G * G, 3 * P * P).contiguous()
    x = torch.cat([cls, linear(patches, patch_w)]) + pos
    for l, W in enumerate(layers):
        a_ = torch.nn.functional.layer_norm(x, (d,), W["ln"], W["b"], 1e-12)
        q, k, v = linear(a_, W["q"], W["b"]), linear(a_, W["k"], W["b"]), linear(a_, W["v"], W["b"])
        ctx = torch.empty(n, d)
        for h in range(H):
            s = scores(q[:, h * dh:(h + 1) * dh].contiguous(), k[:, h * dh:(h + 1) * dh].contiguous())
            torch.softmax(s, -1, out=maps[l, h])
            out = torch.empty(n, dh)
            mix(maps[l, h], v[:, h * dh:(h + 1) * dh].contiguous(), out)
            ctx[:, h * dh:(h + 1) * dh] = out
        x += linear(ctx, W["o"], W["b"])
        m = torch.nn.functional.layer_norm(x, (d,), W["ln"], W["b"], 1e-12)
        x += linear(torch.nn.functional.gelu(linear(m, W["up"], W["bi"])), W["down"], W["b"])
    x = torch.nn.functional.layer_norm(x, (d,), layers[0]["ln"], layers[0]["b"], 1e-12)
    return maps, x, linear(x[:1].contiguous(), head)


mm_flops = 2 * G * G * 3 * P * P * d + L * 2 * n * (4 * d * d + 2 * d * I)
attn_flops = L * H * 2 * (2 * n * n * dh)
ts, first, _ = run_cell(forward, min_reps=a.reps, min_total_s=0.0, keep_first_if_s=5.0)
rec = dict(shape="vit-b16", n=n, impl=a.impl, threads=a.threads, torch=torch.__version__,
           gflop=round((mm_flops + attn_flops) / 1e9, 2), maxrss_mib=round(maxrss_mib(), 1),
           maps_mib=round(L * H * n * n * 4 / 2**20, 1), **summarize(ts))
rec["gflops"] = round(rec["gflop"] / rec["median_s"], 1)
emit(rec, a.out)
