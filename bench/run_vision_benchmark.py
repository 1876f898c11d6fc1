#!/usr/bin/env python3
"""A vision transformer's forward with every map kept, attn-viz against both anchors in one
run (#48): ViT-B/16 at 224 x 224 (197 tokens; bench/make_bench_models.py --only vit-b16),
`attn-viz bench --model` (random pixels at the model's size, a whole run_model_on_image call a
forward) against bench/bench_vit_anchor.py's PyTorch default path and oneDNN path, interleaved
round by round on the same host; the FMA peak measured in the same run
(../shared/bench/fma_peak.cpp).

  /usr/bin/python3 bench/run_vision_benchmark.py --models /tmp/benchmodels [--rounds 3]

Appends one JSON record to bench/results-vision.jsonl (host, CPU model, ISA, threads, versions,
each round's medians) and prints the ratios: median over rounds of the anchor's seconds over
attn-viz's.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_benchmarks import fma_peak, run_json, steal_seconds  # noqa: E402


def cpu_model():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", required=True)
    p.add_argument("--exe", default=os.path.join(HERE, "..", "build", "attn-viz"))
    p.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared", "bench"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--skip-torch", action="store_true", help="leave out the slow default path")
    p.add_argument("--out", default=os.path.join(HERE, "results-vision.jsonl"))
    a = p.parse_args()
    folder = os.path.join(a.models, "vit-b16")
    peak = fma_peak(a.shared).get(a.threads)
    stolen = steal_seconds()
    rounds = []
    for r in range(a.rounds):
        row = {"attnviz": run_json([a.exe, "--threads", str(a.threads), "bench", "--model", folder,
                                    "--reps", str(a.reps), "--warmup", "1"])}
        for impl in ([] if a.skip_torch else ["torch"]) + ["dnnl"]:
            row[impl] = run_json(["/usr/bin/python3", os.path.join(HERE, "bench_vit_anchor.py"),
                                  "--impl", impl, "--threads", str(a.threads), "--shared", a.shared])
        rounds.append(row)
        print(f"round {r + 1}: attn-viz {row['attnviz']['total_s']:.4f} s" +
              "".join(f", {k} {v['median_s']:.4f} s" for k, v in row.items() if k != "attnviz"),
              flush=True)
    ours = [row["attnviz"]["total_s"] for row in rounds]
    record = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
              "host": platform.node(), "cpu": cpu_model(), "threads": a.threads,
              "isa": rounds[0]["attnviz"].get("isa"), "fma_peak_gflops": peak,
              "steal_seconds": round(steal_seconds() - stolen, 2), "rounds": rounds,
              "attnviz_median_s": statistics.median(ours)}
    gflop = rounds[0]["attnviz"]["gflop"]["products"] + rounds[0]["attnviz"]["gflop"]["attention"]
    record["attnviz_gflops"] = round(gflop / record["attnviz_median_s"], 1)
    if peak:
        record["attnviz_share_of_peak"] = round(record["attnviz_gflops"] / peak, 3)
    for impl in ("torch", "dnnl"):
        if impl in rounds[0]:
            ratio = statistics.median(row[impl]["median_s"] / row["attnviz"]["total_s"]
                                      for row in rounds)
            record[f"{impl}_over_attnviz"] = round(ratio, 2)
    print(json.dumps({k: v for k, v in record.items() if k != "rounds"}))
    with open(a.out, "a") as f:
        f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
