#!/usr/bin/env python3
"""`attn-viz model` on an encoder-decoder against its anchors, in one run, on this machine: a
BART-base-shaped model (6 + 6 layers, d 768, 12 heads, MLP 3072, vocabulary 50,265; random
weights, F32, in Hugging Face's names: this script writes the folder).

  teacher forcing  ns = nt = 512, every map of the three stacks kept ([L, H, n, n] float32 each)
                   attn-viz: one whole `attn-viz model --ids … --target-ids …` process (loading
                   the mapped weights included, no files written); the anchors
                   (bench_seq2seq_anchor.py --task forward): the forward alone
  generation       greedy, 128 new tokens after a 256-token source (the config's end token is
                   pushed out of reach by final_logits_bias, so every run makes 128); attn-viz:
                   one whole process (`--max-new 128`: the encoder, the steps with the key/value
                   cache, the logits and their argmax each step, every map kept); the anchors
                   (--task generate): PyTorch loops with a key/value cache, no maps kept.
                   tokens/s = 128 / (encoder + decoding)
  anchors          torch: Debian's PyTorch 1.13 default CPU path (reference BLAS), once;
                   dnnl: every matrix product through oneDNN's JIT sgemm, the rest in PyTorch
The FMA peak comes from ../shared/bench/fma_peak.cpp, compiled and run in the same run. attn-viz
and the dnnl anchor alternate --rounds times; medians and per-round ratios are printed.

usage: /usr/bin/python3 bench/run_seq2seq_benchmarks.py [--exe build/attn-viz] [--models DIR]
       [--shared ../shared/bench] [--threads 2] [--rounds 3] [--skip-torch] [--out FILE]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from formats import write_safetensors  # noqa: E402
from run_benchmarks import fma_peak, run_json  # noqa: E402

L, D, H, I, V, P = 6, 768, 12, 3072, 50265, 1024


def write_model(folder):
    """BART-base's names and shapes, random weights; the end token (2) made unreachable."""
    if os.path.exists(os.path.join(folder, "model.safetensors")):
        return
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(0)
    w = lambda *s: (rng.standard_normal(s, dtype=np.float32) / np.sqrt(s[-1])).astype(np.float32)  # noqa: E731
    t = {"model.shared.weight": w(V, D), "final_logits_bias": np.zeros((1, V), np.float32)}
    t["final_logits_bias"][0, 2] = -100.0
    for stack in ("encoder", "decoder"):
        s = f"model.{stack}."
        t[s + "embed_positions.weight"] = w(P + 2, D)
        t[s + "layernorm_embedding.weight"], t[s + "layernorm_embedding.bias"] = np.ones(D, np.float32), np.zeros(D, np.float32)
        for l in range(L):
            p = f"{s}layers.{l}."
            for a in ["self_attn"] + (["encoder_attn"] if stack == "decoder" else []):
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    t[f"{p}{a}.{proj}.weight"], t[f"{p}{a}.{proj}.bias"] = w(D, D), np.zeros(D, np.float32)
                t[f"{p}{a}_layer_norm.weight"], t[f"{p}{a}_layer_norm.bias"] = np.ones(D, np.float32), np.zeros(D, np.float32)
            t[p + "fc1.weight"], t[p + "fc1.bias"] = w(I, D), np.zeros(I, np.float32)
            t[p + "fc2.weight"], t[p + "fc2.bias"] = w(D, I), np.zeros(D, np.float32)
            t[p + "final_layer_norm.weight"], t[p + "final_layer_norm.bias"] = np.ones(D, np.float32), np.zeros(D, np.float32)
    write_safetensors(os.path.join(folder, "model.safetensors"), t)
    json.dump({"model_type": "bart", "d_model": D, "encoder_layers": L, "decoder_layers": L,
               "encoder_attention_heads": H, "decoder_attention_heads": H, "encoder_ffn_dim": I,
               "decoder_ffn_dim": I, "max_position_embeddings": P, "vocab_size": V,
               "activation_function": "gelu", "decoder_start_token_id": 2, "eos_token_id": 2,
               "pad_token_id": 1}, open(os.path.join(folder, "config.json"), "w"))


def ids(n, salt):
    return ",".join(str((i * 7919 + salt) % (V - 10) + 5) for i in range(n))


def attnviz(exe, folder, threads, args):
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", exe, "--threads", str(threads), "model", "--model",
                           folder, *args, "--quiet"], check=True, capture_output=True, text=True)
    return time.perf_counter() - start, int(proc.stderr.strip().splitlines()[-1]) / 1024


def anchor(shared, impl, task, threads):
    return run_json([sys.executable, os.path.join(HERE, "bench_seq2seq_anchor.py"), "--task", task,
                     "--impl", impl, "--threads", str(threads), "--shared", shared, "--ns",
                     "512" if task == "forward" else "256", "--nt", "512", "--new", "128"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "attn-viz"))
    ap.add_argument("--models", default="/tmp/attnviz-bench-seq2seq")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "bench"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--skip-torch", action="store_true")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    folder = os.path.join(a.models, "bart-base-shape")
    write_model(folder)
    peak = fma_peak(a.shared)[a.threads]
    forward_args = ["--ids", ids(512, 1), "--target-ids", ids(512, 2)]
    generate_args = ["--ids", ids(256, 3), "--max-new", "128"]
    rows = {"forward": [], "generate": []}
    for _ in range(a.rounds):
        for task, args in (("forward", forward_args), ("generate", generate_args)):
            s, rss = attnviz(a.exe, folder, a.threads, args)
            rows[task].append({"attn-viz": s, "rss": rss, "dnnl": anchor(a.shared, "dnnl", task, a.threads)})
    torch_rows = {} if a.skip_torch else {t: anchor(a.shared, "torch", t, a.threads) for t in rows}
    gflop = rows["forward"][0]["dnnl"]["gflop"]
    result = {"date": datetime.date.today().isoformat(), "machine": platform.processor() or platform.machine(),
              "threads": a.threads, "fma_peak_gflops": peak, "shape": "bart-base (6+6, d 768, 12 heads, V 50265)"}
    for task in rows:
        av = statistics.median(r["attn-viz"] for r in rows[task])
        dn = statistics.median(r["dnnl"]["median_s"] for r in rows[task])
        ratios = [r["dnnl"]["median_s"] / r["attn-viz"] for r in rows[task]]
        entry = {"attn-viz_s": round(av, 3), "attn-viz_peak_rss_mib": round(max(r["rss"] for r in rows[task]), 1),
                 "dnnl_s": round(dn, 3), "dnnl_over_attnviz": [round(x, 2) for x in ratios]}
        if task in torch_rows:
            entry["torch_s"] = torch_rows[task]["median_s"]
            entry["torch_over_attnviz"] = round(torch_rows[task]["median_s"] / av, 1)
        if task == "forward":
            entry.update(gflop=gflop, attnviz_gflops=round(gflop / av, 1),
                         percent_of_peak=round(100 * gflop / av / peak, 1))
        else:
            entry.update(attnviz_tokens_per_s=round(128 / av, 2), dnnl_tokens_per_s=round(128 / dn, 2))
            if task in torch_rows:
                entry["torch_tokens_per_s"] = round(128 / torch_rows[task]["median_s"], 2)
        result[task] = entry
    print(json.dumps(result, indent=1))
    if a.out:
        with open(a.out, "a") as f:
            f.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
