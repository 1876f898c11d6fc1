#!/usr/bin/env python3
"""What a measure (`attn-viz model --measure`) costs beside the weights, in one run on this
machine: whole `attn-viz model` processes over the same ids, alternating, each round

  weights npy        --npy DIR                    every map written (attention.npy)
  MEASURE npy        --measure MEASURE --npy DIR  the same, and the measure's arrays
  weights received   --view received --png F      the maps' column sums drawn (no map kept)
  MEASURE received   --measure MEASURE --view received --png F   the measure's

and the ratio of each MEASURE run to the weights run with the same outputs, per round (median,
lowest–highest): "received" is the measure's own work, "npy" adds its arrays' writing. The model folders are
bench/make_bench_models.py's (random weights in Hugging Face's names and shapes).

usage: /usr/bin/python3 bench/run_measure_benchmark.py --models DIR [--shape gpt2-small:1024]
       [--measures norms,contrib] [--rounds 3] [--exe build/attn-viz] [--threads 2]
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(argv):
    """Wall seconds and peak RSS (MiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], check=True, capture_output=True,
                          text=True)
    return time.perf_counter() - start, int(proc.stderr.strip().splitlines()[-1]) / 1024


def cpu_name():
    for line in open("/proc/cpuinfo", encoding="utf-8"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--models", required=True)
    p.add_argument("--shape", default="gpt2-small:1024")
    p.add_argument("--measures", default="norms,contrib")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--exe", default=os.path.join(HERE, "..", "build", "attn-viz"))
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    shape, n = a.shape.split(":")
    folder = os.path.join(a.models, shape)
    ids = ",".join(str((i * 7919 + 13) % 50000) for i in range(int(n)))
    version = subprocess.run([a.exe, "--version"], capture_output=True, text=True).stdout.strip().replace("\n", "; ")
    print(f"{cpu_name()}, {os.cpu_count()} cores; {version}; {a.threads} threads; {shape}, n = {n}")
    scratch = tempfile.mkdtemp()
    base = [a.exe, "--threads", str(a.threads), "model", "--model", folder, "--ids", ids, "-q"]
    received = ["--view", "received", "--png", os.path.join(scratch, "r.png")]
    runs = {}
    for m in ["weights"] + a.measures.split(","):
        runs[f"{m} npy"] = base + ["--measure", m, "--npy", os.path.join(scratch, m)]
        runs[f"{m} received"] = base + ["--measure", m] + received
    seconds = {k: [] for k in runs}
    rss = {k: 0.0 for k in runs}
    try:
        timed(runs["weights received"])  # the weights into the page cache
        for _ in range(a.rounds):
            for k, argv in runs.items():
                wall, peak = timed(argv)
                seconds[k].append(wall)
                rss[k] = max(rss[k], peak)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("| run | median s | peak RSS MiB | ratio to weights with the same outputs, median (lowest–highest) |")
    print("| --- | --- | --- | --- |")
    for k in runs:
        same = "weights " + k.split(" ", 1)[1]
        ratios = [t / w for t, w in zip(seconds[k], seconds[same])]
        print(f"| {k} | {statistics.median(seconds[k]):.3f} | {rss[k]:.0f} | "
              f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f}) |")
    print(json.dumps({"shape": shape, "n": int(n), "threads": a.threads, "cpu": cpu_name(),
                      "version": version, "seconds": seconds, "peak_rss_mib": rss}))


if __name__ == "__main__":
    main()
