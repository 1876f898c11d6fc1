#!/usr/bin/env python3
"""GGUF's quantized weights against the same forward from BF16 safetensors, in one run: the
Llama-1B shape (bench/make_bench_models.py: 16 layers, d 2048, 32 query / 8 KV heads, MLP 8192,
vocab 128256) at n = 512 (--n; --n 1 is one generated token's products), every layer's every
head's map kept.

Files: DIR/llama-1b (BF16 safetensors, made when missing) and DIR/llama-1b.TYPE.gguf for each
of --types (default Q4_K,Q8_0; `all`: the ten block types attn-viz reads), written here when
missing from the same weights with tests/data/gguf_writer.py (every
matrix in the file's type, norms F32, Q/K rows permuted as llama.cpp's converter does; llama.cpp's
Q4_K_M would keep a few matrices in Q6_K).

Per file, alternating --rounds times: `attn-viz --threads T bench --model PATH --n N`
(loaded once, one untimed forward, then --reps timed; median) and one whole `attn-viz model
--ids ... --quiet` process under /usr/bin/time: wall seconds and peak RSS against the file's
size plus the maps kept (16 × 32 × N² floats: 512 MiB at 512).

usage: /usr/bin/python3 bench/run_gguf_benchmarks.py --models DIR [--exe build/attn-viz]
       [--threads 2] [--rounds 3] [--reps 3] [--n 512] [--types Q4_K,Q8_0 | all] [--out FILE]
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
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
from run_benchmarks import fma_peak, run_json, steal_seconds  # noqa: E402

TYPES = ["Q4_K", "Q8_0"]
ALL_TYPES = ["Q8_0", "Q6_K", "Q5_K", "Q5_1", "Q5_0", "Q4_K", "Q4_1", "Q4_0", "Q3_K", "Q2_K"]


def bf16_tensors(path):
    """(name, float32 array) of a BF16 safetensors file, one tensor at a time (memory-mapped)."""
    import struct
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    for name, e in header.items():
        if name == "__metadata__":
            continue
        assert e["dtype"] == "BF16", e["dtype"]
        lo, hi = e["data_offsets"]
        bits = np.frombuffer(data[lo:hi], dtype="<u2").astype(np.uint32) << 16
        yield name, bits.view(np.float32).reshape(e["shape"])


def write_gguf(folder, wtype, path):
    """The BF16 checkpoint as a GGUF file of `wtype` (matrices; norms F32), tensor by tensor."""
    import gguf_writer as g
    import make_gguf_models as m
    config = json.load(open(os.path.join(folder, "config.json")))
    config.setdefault("head_dim", config["hidden_size"] // config["num_attention_heads"])
    config.setdefault("eos_token_id", 0)
    config.setdefault("rms_norm_eps", 1e-5)
    config.setdefault("rope_theta", 10000.0)
    items = []
    for name, a in bf16_tensors(os.path.join(folder, "model.safetensors")):
        if name.endswith(("q_proj.weight", "k_proj.weight")):
            a = m.permute(a, config["num_attention_heads" if "q_proj" in name else
                                    "num_key_value_heads"])
        tname = wtype if a.ndim == 2 else "F32"
        items.append((m.gguf_name(name), tname, g.quantize(tname, a.reshape(-1)),
                      list(reversed(a.shape))))
    with open(path + ".tmp", "wb") as f:
        f.write(g.gguf_bytes(m.metadata_of(config, "llama", wtype, "llama-1b"), items))
    os.replace(path + ".tmp", path)


def process(exe, path, threads, n):
    ids = ",".join(str((i * 7919) % 50000) for i in range(n))
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", exe, "--threads", str(threads), "model",
                           "--model", path, "--ids", ids, "--quiet"],
                          check=True, capture_output=True, text=True)
    return time.perf_counter() - start, int(proc.stderr.strip().splitlines()[-1]) / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", required=True)
    p.add_argument("--exe", default=os.path.join(HERE, "..", "build", "attn-viz"))
    p.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared", "bench"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--n", type=int, default=512, help="tokens a forward (1: one generated token)")
    p.add_argument("--types", default=",".join(TYPES), help="GGUF block types, or `all`")
    p.add_argument("--out", default=os.path.join(HERE, "results-gguf.jsonl"))
    a = p.parse_args()
    folder = os.path.join(a.models, "llama-1b")
    if not os.path.exists(os.path.join(folder, "model.safetensors")):
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_bench_models.py"), a.models,
                        "--only", "llama-1b"], check=True)
    paths = {"BF16 safetensors": folder}
    types = ALL_TYPES if a.types == "all" else [t for t in a.types.split(",") if t]
    for t in types:
        path = os.path.join(a.models, f"llama-1b.{t}.gguf")
        if not os.path.exists(path):
            print(f"writing {path} ...", file=sys.stderr)
            write_gguf(folder, t, path)
        paths[f"{t} GGUF"] = path
    T = a.threads
    peak = fma_peak(a.shared)[T]
    version = subprocess.run([a.exe, "--version"], capture_output=True, text=True).stdout.strip().replace("\n", "; ")
    out = open(a.out, "a")
    runs = {k: [] for k in paths}
    for r in range(a.rounds):
        for label, path in paths.items():
            s0 = steal_seconds()
            x = run_json([a.exe, "--threads", str(T), "bench", "--model", path, "--n", str(a.n),
                          "--reps", str(a.reps), "--warmup", "1"])
            runs[label].append(x)
            out.write(json.dumps(dict(kind="round", file=label, round=r, attnviz=x, threads=T,
                                      stolen_s=steal_seconds() - s0)) + "\n")
    size = {k: sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(v) for f in fs)
            if os.path.isdir(v) else os.path.getsize(v) for k, v in paths.items()}
    maps_mib = 16 * 32 * a.n * a.n * 4 / 2**20
    print(f"FMA peak ({T} threads): {peak:.0f} GFLOP/s; attn-viz {version}; "
          f"{platform.processor() or platform.machine()}; {datetime.date.today()}\n")
    print("| weights | file MiB | median s (in process) | GFLOP/s | % FMA peak | vs BF16 | whole process s "
          "| peak RSS MiB | RSS / (file + maps) |")
    print("|---|---|---|---|---|---|---|---|---|")
    base = statistics.median(x["total_s"] for x in runs["BF16 safetensors"])
    for label, path in paths.items():
        wall, rss = process(a.exe, path, T, a.n)
        out.write(json.dumps(dict(kind="process", file=label, wall_s=wall, peak_rss_mib=rss,
                                  file_mib=size[label] / 2**20)) + "\n")
        xs = runs[label]
        t = statistics.median(x["total_s"] for x in xs)
        g = xs[0]["gflop"]["products"] + xs[0]["gflop"]["attention"]
        print(f"| {label} | {size[label] / 2**20:.0f} | {t:.3f} | {g / t:.0f} | {100 * g / t / peak:.0f} % "
              f"| {base / t:.2f}× | {wall:.2f} | {rss:.0f} | "
              f"{rss / (size[label] / 2**20 + maps_mib):.2f} |")
    out.close()


if __name__ == "__main__":
    main()
