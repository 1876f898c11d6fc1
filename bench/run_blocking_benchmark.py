#!/usr/bin/env python3
"""The kernels' cache blocking, measured: `attn-viz bench --model` (one whole forward, the model
loaded once, median of --reps) under several blockings and instruction sets, interleaved in one
run on this machine, against the FMA peak of the same run.

Blockings (ATTNVIZ_BLOCKING, see `attn-viz man`), each on AVX2 and, where the CPU has it, AVX-512:
  machine     the sizes derived from the caches found here (`attn-viz --version` prints them)
  panels=1    the panel path one panel at a time, as before panel groups (A reread per panel;
              AVX-512's rule until 2026-12-01)
  panels=4    four panels a group (AVX2's rule until 2026-12-01; AVX-512's now with a 2 MiB L2)
  zen3        the caches of the AVX2-only Zen 3 host of issue 47 (L1d 32 KiB, L2 512 KiB, L3
              32 MiB): its derived sizes, on this machine's caches — the tiles a small-cache host
              gets, not that host's speed
Shapes: bench/make_bench_models.py's gpt2-small at n = 1024 (F32) and llama-1b at n = 512
(BF16), the shapes of ../shared/bench/bench_model.py. FLOPs as bench_model.py counts them.

Rounds: every (shape, isa, blocking) once a round, --rounds rounds (default 3); a case's figure is
the median of its rounds' medians, with the lowest-highest. Ratios are against `panels=1` of the
same instruction set in the same run. Prints a markdown table and appends JSON lines to --out.

usage: /usr/bin/python3 bench/run_blocking_benchmark.py --models DIR [--exe build/attn-viz]
       [--shared ../shared/bench] [--threads 2] [--rounds 3] [--reps 3] [--out FILE] [--only SHAPE]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_benchmarks import fma_peak  # noqa: E402
from run_measure_benchmark import cpu_name  # noqa: E402

SHAPES = [("gpt2-small", 1024), ("llama-1b", 512)]
BLOCKINGS = [("machine", ""), ("panels=1", "panels=1"), ("panels=4", "panels=4"),
             ("zen3", "l1d=32K,l2=512K,l3=32M")]


def bench(exe, folder, n, threads, isa, spec, reps):
    env = dict(os.environ, ATTNVIZ_BLOCKING=spec)
    out = subprocess.run([exe, "--threads", str(threads), "--isa", isa, "bench", "--model", folder,
                          "--n", str(n), "--reps", str(reps), "--warmup", "1"],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def caches():
    """lscpu's cache lines, for the record."""
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    return "; ".join(" ".join(l.split()) for l in out.splitlines() if " cache:" in l)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", required=True)
    ap.add_argument("--exe", default=os.path.join(os.path.dirname(HERE), "build", "attn-viz"))
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(HERE), "..", "shared", "bench"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "results-blocking.jsonl"))
    ap.add_argument("--only", help="one shape: gpt2-small or llama-1b")
    a = ap.parse_args()
    shapes = [s for s in SHAPES if a.only in (None, s[0])]
    isas = subprocess.run([a.exe, "--version"], capture_output=True, text=True).stdout
    isas = [i for i in ("avx2", "avx512") if i in isas.split("this CPU:")[1].split(")")[0]]
    peaks = {"avx2": fma_peak(a.shared, "avx2_ymm")[a.threads], "avx512": fma_peak(a.shared)[a.threads]}
    version = subprocess.run([a.exe, "--version"], capture_output=True, text=True).stdout.strip()
    host = f"{cpu_name()}; {caches()}"
    print(f"{host}\n{version.replace(chr(10), '; ')}\n{a.threads} threads, {a.rounds} rounds, "
          f"FMA peak: AVX2 {peaks['avx2']:.0f}, best {peaks['avx512']:.0f} GFLOP/s")
    runs = {}
    for r in range(a.rounds):
        for shape, n in shapes:
            for isa in isas:
                for name, spec in BLOCKINGS:
                    j = bench(a.exe, os.path.join(a.models, shape), n, a.threads, isa, spec, a.reps)
                    runs.setdefault((shape, isa, name), []).append(j)
                    print(f"round {r + 1}: {shape} {isa} {name}: {j['total_s']:.3f} s", file=sys.stderr)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    print("| shape | isa | blocking | sizes | median s (lowest–highest) | GFLOP/s | % FMA peak | "
          "vs panels=1 | mlp_up s | mlp_down s | project s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with open(a.out, "a") as out:
        for (shape, isa, name), js in runs.items():
            t = [j["total_s"] for j in js]
            base = statistics.median(j["total_s"] for j in runs[(shape, isa, "panels=1")])
            med = statistics.median(t)
            g = js[0]["gflop"]["products"] + js[0]["gflop"]["attention"]
            b = js[0]["blocking"]
            st = {k: statistics.median(j["stages_s"][k] for j in js) for k in js[0]["stages_s"]}
            sizes = f"{b['panels']}×{b['panel_depth']}, mc {b['mc']}"
            print(f"| {shape} | {isa} | {name} | {sizes} | {med:.3f} ({min(t):.3f}–{max(t):.3f}) | "
                  f"{g / med:.0f} | {100 * g / med / peaks[isa]:.0f} % | {base / med:.2f}× | "
                  f"{st.get('mlp_up', 0):.3f} | {st.get('mlp_down', 0):.3f} | {st.get('project', 0):.3f} |")
            out.write(json.dumps(dict(time=stamp, host=host, attnviz=version, threads=a.threads,
                                      shape=shape, isa=isa, blocking=name, sizes=b, times_s=t,
                                      stages_s=st, gflop=g, peak=peaks[isa])) + "\n")


if __name__ == "__main__":
    main()
