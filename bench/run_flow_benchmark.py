#!/usr/bin/env python3
"""Attention flow's time against its size, in one run: `attn-viz draw --view flow` over random
peaked causal maps ([12, 12, n, n], each row a softmax of 3 × N(0, 1) scores: sharper than a
random model's, closer to a trained one's), with `--view rollout` on the same file as the
baseline measured in the same run, and optionally another build's flow (--exe-before) on the
same files. Whole processes, median of --rounds; prints a table and appends records to --out.

usage: /usr/bin/python3 bench/run_flow_benchmark.py [--exe build/attn-viz] [--exe-before EXE]
       [--sizes 64,128,256] [--layers 12] [--rounds 3] [--threads 2] [--out FILE]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def peaked_causal_maps(layers, heads, n, seed):
    rng = np.random.default_rng(seed)
    out = np.empty((layers, heads, n, n), np.float32)
    upper = np.triu(np.ones((n, n), bool), 1)
    for l in range(layers):
        s = rng.standard_normal((heads, n, n)).astype(np.float32) * 3
        s[:, upper] = -np.inf
        a = np.exp(s - s.max(-1, keepdims=True))
        out[l] = a / a.sum(-1, keepdims=True)
    return out


def seconds(exe, threads, weights, view, folder):
    """Wall seconds, or None when the build refuses (an older flow stopped at 64 tokens)."""
    start = time.perf_counter()
    proc = subprocess.run([exe, "--threads", str(threads), "draw", "--weights", weights, "--view",
                           view, "--npy", folder], capture_output=True)
    if proc.returncode == 2:
        return None
    proc.check_returncode()
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--exe", default=os.path.join(HERE, "..", "build", "attn-viz"))
    p.add_argument("--exe-before")
    p.add_argument("--sizes", default="64,128,256")
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default=os.path.join(HERE, "results-flow.jsonl"))
    a = p.parse_args()
    version = subprocess.run([a.exe, "--version"], capture_output=True, text=True).stdout.strip().replace("\n", "; ")
    print(f"{version}, {a.threads} threads, {platform.machine()}\n")
    print("| n | layers | cells (L·n⁴/12) | flow s | ns a cell | rollout s | flow / rollout | before s | before / flow |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in map(int, a.sizes.split(",")):
            weights = os.path.join(tmp, f"maps{n}.npy")
            np.save(weights, peaked_causal_maps(a.layers, 12, n, n))
            out = os.path.join(tmp, "out")
            runs = {"flow": (a.exe, "flow"), "rollout": (a.exe, "rollout")}
            if a.exe_before:
                runs["before"] = (a.exe_before, "flow")
            med = {}
            for k, (exe, view) in runs.items():
                times = [seconds(exe, a.threads, weights, view, out) for _ in range(a.rounds)]
                med[k] = None if None in times else statistics.median(times)
            cells = a.layers * n ** 4 / 12
            flow, rollout, before = med["flow"], med["rollout"], med.get("before")
            then = "| refused | |" if before is None else f"| {before:.2f} | {before / flow:.1f}× |"
            if "before" not in runs:
                then = "| | |"
            print(f"| {n} | {a.layers} | {cells:.2e} | {flow:.2f} | {flow / cells * 1e9:.1f} | "
                  f"{rollout:.3f} | {flow / rollout:.0f}× {then}")
            with open(a.out, "a") as f:
                f.write(json.dumps({"n": n, "layers": a.layers, "seconds": med, "rounds": a.rounds,
                                    "threads": a.threads, "version": version,
                                    "date": time.strftime("%Y-%m-%dT%H:%M:%S")}) + "\n")


if __name__ == "__main__":
    main()
