#!/usr/bin/env python3
"""attn-viz against its anchors, in one run, on this machine.

For each shape and thread count, alternating in the same run, in --rounds rounds (default 3):
  attn-viz      `attn-viz --threads T bench --no-scores` (median of its timed calls), run
                before and after the oneDNN anchors in each round; the round's stages are the
                mean of the two
  oneDNN        ../shared/bench/bench_attn.py --impl dnnl_reuse and dnnl: oneDNN's JIT sgemm
                for the projections, per-head sgemm for QK^T and AV, PyTorch's softmax
  torch MHA     bench_attn.py --impl mha_w: nn.MultiheadAttention, need_weights=True,
                average_attn_weights=False (Debian's PyTorch, reference BLAS)
  additive      attn-viz bench --score additive against the PyTorch broadcast formulation
                tanh(P[:, None] + R[None] + b) @ v, then softmax and A V (this script), in
                rounds like the attention shapes (no steal rule: a round takes seconds)
  streaming     attn-viz bench --stream 2048 --png at n = 65,536, d = 64 (time, peak RSS), the
                streaming cost at n = 8192 against the materialised run of the table, and the
                4096 x 4096 PNG at compression levels 1, 6 and 9
and the machine's FMA peak from ../shared/bench/fma_peak.cpp, compiled and run here.

Like for like: the oneDNN anchor has no biases and no output projection, so it is compared
with attn-viz's project + attend stages; torch MHA has both, so it is compared with attn-viz's
total. Ratios are anchor seconds / attn-viz seconds (> 1: attn-viz is faster). Each round
gives its own ratios (both sides measured within seconds of each other); the table shows the
median over the rounds and, in brackets, the lowest and highest. Times are the medians over
the rounds. torch MHA (seconds per call) runs once per shape, after the first round.

Stolen time: the machine may be a VM whose host takes a core away for seconds at a time (the
steal column of /proc/stat grows). Each round records the CPU time stolen while it ran, as a
share of its wall time x threads; a round that lost more than --max-steal (default 5 %) is
measured again, both sides together, up to --redo times, and the discarded attempts stay in
the JSONL (kind "discarded_round") and are counted in the table.

Usage: /usr/bin/python3 bench/run_benchmarks.py --exe build/attn-viz [--shared ../shared/bench]
       [--threads 1,2] [--rounds 3] [--max-steal 0.05] [--redo 2] [--quick] [--mha-max-n 2048]
       [--out bench/results.jsonl]
Prints a Markdown table; every measurement is also appended to --out as one JSON line.
"""
import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPES = [(128, 768, 12), (512, 768, 12), (2048, 768, 12), (4096, 768, 12), (8192, 64, 1)]


def run_json(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    lines = [l for l in out.splitlines() if l.strip().startswith("{")]
    if len(lines) == 1 and lines[0].strip() != "{":
        return json.loads(lines[0])
    return json.loads(out[out.index("{"):])


def fma_peak(shared, kind=None):
    """GFLOP/s per thread count: the best of 512- and 256-bit FMAs, or of `kind` ("avx2_ymm")."""
    exe = os.path.join(tempfile.mkdtemp(prefix="attnviz-bench-"), "fma_peak")
    subprocess.run(["g++", "-O2", "-march=native", "-fopenmp", os.path.join(shared, "fma_peak.cpp"),
                    "-o", exe], check=True)
    out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    peak = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and f[0] in ("avx512_zmm", "avx2_ymm"):
            peak[(f[0], int(f[1]))] = float(f[3])
    return {t: max(v for (k, tt), v in peak.items() if tt == t and kind in (None, k)) for t in (1, 2)}


def attnviz(exe, n, d, h, threads, extra=()):
    cmd = [exe, "--threads", str(threads), "bench", "--n", str(n), "--d", str(d), "--heads", str(h),
           "--no-scores", "--reps", "7", "--warmup", "2", *extra]
    return run_json(cmd)


def anchor(shared, impl, n, d, h, threads):
    cmd = ["/usr/bin/python3", os.path.join(shared, "bench_attn.py"), "--impl", impl, "--n", str(n),
           "--d", str(d), "--heads", str(h), "--threads", str(threads)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=shared).stdout
    return json.loads([l for l in out.splitlines() if l.startswith("{")][-1])


def torch_additive(n, d_a, threads, reps=5):
    """PyTorch broadcast additive attention in a fresh process (thread count set first)."""
    code = f"""
import os, time, statistics, json, resource
os.environ["OMP_NUM_THREADS"] = "{threads}"
import torch
torch.set_num_threads({threads}); torch.set_grad_enabled(False)
g = torch.Generator().manual_seed(0)
n, d, da = {n}, {d_a}, {d_a}
X = torch.rand(n, d, generator=g) * 2 - 1
Wq = torch.rand(da, d, generator=g) * 0.2 - 0.1; Wk = torch.rand(da, d, generator=g) * 0.2 - 0.1
v = torch.rand(da, generator=g) - 0.5; b = torch.zeros(da)
def f():
    P = X @ Wq.T; R = X @ Wk.T
    E = torch.tanh(P[:, None, :] + R[None, :, :] + b) @ v      # n x n x d_a in memory
    A = torch.softmax(E, dim=-1)
    return A, A @ X
f()
ts = []
for _ in range({reps}):
    t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
print(json.dumps({{"median_s": statistics.median(ts), "times_s": ts,
                  "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""
    out = subprocess.run(["/usr/bin/python3", "-c", code], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def host_description(exe):
    """One line naming the host kind a table came from: the CPU's model name, family and model,
    its widest vector instructions, its caches (as attn-viz's blocking found them) and CPUs."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    flags = info.get("flags", "").split()
    isa = "AVX-512" if "avx512f" in flags else "AVX2 + FMA, no AVX-512" if "avx2" in flags else "no AVX2"
    blocking = next((l.split(":", 1)[1].split(";")[0].strip() for l in subprocess.run(
        [exe, "--version"], capture_output=True, text=True).stdout.splitlines()
        if l.startswith("blocking:")), "caches unknown")
    return (f"{info.get('model name', 'unknown CPU')} (family {info.get('cpu family', '?')} model "
            f"{info.get('model', '?')}), {isa}; {blocking}; {os.cpu_count()} CPUs")


def steal_seconds():
    """CPU seconds stolen from this guest so far, all CPUs (/proc/stat; 0 where not reported)."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK") if fields[0] == "cpu" and len(fields) > 8 else 0.0
    except (OSError, ValueError):
        return 0.0


def stolen_share(start, threads):
    """Share of wall time x threads stolen since start = (steal_seconds(), perf_counter())."""
    return (steal_seconds() - start[0]) / ((time.perf_counter() - start[1]) * threads)


def measure_additive(exe, threads, rounds):
    """The additive shape (n = 1024, d = d_a = 128) in rounds of attn-viz, the PyTorch broadcast,
    attn-viz again; a round's attn-viz time is the mean of its two calls. Medians over the
    rounds, the ratio's median and range, the largest peak RSS of each side."""
    extra = ["--score", "additive", "--da", "128"]
    per = []
    for _ in range(rounds):
        first = attnviz(exe, 1024, 128, 0, threads, extra)
        theirs = torch_additive(1024, 128, threads)
        second = attnviz(exe, 1024, 128, 0, threads, extra)
        per.append(dict(ours=(first["total_s"] + second["total_s"]) / 2, torch=theirs["median_s"],
                        ours_rss=max(first["peak_rss_mib"], second["peak_rss_mib"]),
                        torch_rss=theirs["maxrss_mib"]))
    ratios = [r["torch"] / r["ours"] for r in per]
    return dict(threads=threads, ours=statistics.median(r["ours"] for r in per),
                torch=statistics.median(r["torch"] for r in per),
                ratio=statistics.median(ratios), ratio_span=(min(ratios), max(ratios)),
                ours_rss=max(r["ours_rss"] for r in per), torch_rss=max(r["torch_rss"] for r in per),
                rounds=per)


def ratio_cell(median, span, bold=False):
    m = f"**{median:.2f}×**" if bold else f"{median:.2f}×"
    return f"{m} ({span[0]:.2f}–{span[1]:.2f})"


def fmt_s(s):
    return f"{s * 1e3:.1f} ms" if s < 0.1 else f"{s:.3f} s"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--exe", default=os.path.join(HERE, "..", "build", "attn-viz"))
    p.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared", "bench"))
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds of attn-viz / oneDNN / attn-viz per shape (ratios: median, range)")
    p.add_argument("--max-steal", type=float, default=0.05,
                   help="redo a round whose stolen CPU time exceeds this share of wall time x threads")
    p.add_argument("--redo", type=int, default=2, help="at most this many redos per round")
    p.add_argument("--quick", action="store_true", help="only n = 128, 512, 2048 and additive")
    p.add_argument("--mha-max-n", type=int, default=2048,
                   help="largest n for torch MHA (about 7 s per call at 2048, 4x that at 4096)")
    p.add_argument("--out", default=os.path.join(HERE, "results.jsonl"))
    a = p.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    shapes = SHAPES[:3] if a.quick else SHAPES
    log = open(a.out, "a")

    def record(kind, **kw):
        kw.update(kind=kind, date=time.strftime("%Y-%m-%d %H:%M:%S"))
        log.write(json.dumps(kw) + "\n")
        log.flush()

    version = subprocess.run([a.exe, "--version"], capture_output=True, text=True).stdout.strip().replace("\n", "; ")
    peak = fma_peak(a.shared)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"# {version} on {cpu}, {os.cpu_count()} CPUs, {platform.platform()}")
    print(f"# FMA peak measured now: {peak[1]:.0f} GFLOP/s (1 thread), {peak[2]:.0f} (2 threads)")
    record("peak", gflops=peak, cpu=cpu, version=version)

    rows = []
    for (n, d, h) in shapes:
        for t in threads:
            # Rounds of attn-viz, the two oneDNN anchors, attn-viz again (the VM's speed
            # drifts from minute to minute): a round's attn-viz stages are the mean of its two
            # calls, and its ratios compare measurements seconds apart.
            rounds = []
            mha = None
            discarded = 0
            for r in range(a.rounds):
                for attempt in range(a.redo + 1):
                    start = (steal_seconds(), time.perf_counter())
                    before = attnviz(a.exe, n, d, h, t)
                    reuse = anchor(a.shared, "dnnl_reuse", n, d, h, t)
                    fresh = anchor(a.shared, "dnnl", n, d, h, t)
                    after = attnviz(a.exe, n, d, h, t)
                    stolen = stolen_share(start, t)
                    st = {k: (before["stages_s"][k] + after["stages_s"][k]) / 2
                          for k in before["stages_s"]}
                    no_out = st.get("project", 0) + st.get("attend", 0)
                    total = (before["total_s"] + after["total_s"]) / 2
                    one = dict(stages=st, no_out=no_out, total=total,
                               before_total=before["total_s"], after_total=after["total_s"],
                               rss=max(before["peak_rss_mib"], after["peak_rss_mib"]),
                               dnnl_reuse=reuse["median_s"], dnnl=fresh["median_s"],
                               ratio_reuse=reuse["median_s"] / no_out,
                               ratio_fresh=fresh["median_s"] / no_out, stolen=stolen)
                    if stolen <= a.max_steal or attempt == a.redo:
                        break
                    discarded += 1
                    record("discarded_round", n=n, d=d, h=h, threads=t, round=r, **one)
                    print(f"n={n} T={t} round {r + 1}: {100 * stolen:.0f} % of the CPU time "
                          "stolen, measured again", file=sys.stderr)
                rounds.append(one)
                if r == 0 and n <= a.mha_max_n:  # seconds per call: once per shape
                    start = (steal_seconds(), time.perf_counter())
                    mha = anchor(a.shared, "mha_w", n, d, h, t)
                    mha["stolen"] = stolen_share(start, t)
            med = lambda key: statistics.median(x[key] for x in rounds)
            span = lambda key: (min(x[key] for x in rounds), max(x[key] for x in rounds))
            st = {k: statistics.median(x["stages"][k] for x in rounds) for k in rounds[0]["stages"]}
            ours_no_out = med("no_out")
            ours_total = med("total")
            mm_gflop = before["gflop"]["project"] + before["gflop"]["attend"]
            row = dict(n=n, d=d, h=h, threads=t, rounds=rounds, ours_total=ours_total,
                       ours_no_out=ours_no_out, stages=st,
                       stage_gflops={k: before["gflop"][k] / v for k, v in st.items() if v > 0},
                       isa=before["isa"], rss=max(x["rss"] for x in rounds),
                       dnnl_reuse=med("dnnl_reuse"), dnnl=med("dnnl"),
                       ratio_reuse=med("ratio_reuse"), ratio_reuse_span=span("ratio_reuse"),
                       ratio_fresh=med("ratio_fresh"), ratio_fresh_span=span("ratio_fresh"),
                       mha=mha["median_s"] if mha else None,
                       mha_stolen=mha["stolen"] if mha else None,
                       pct_peak=100 * mm_gflop / ours_no_out / peak[t],
                       stolen_max=max(x["stolen"] for x in rounds), discarded=discarded)
            record("attention", **row)
            rows.append(row)
            print(f"n={n} d={d} h={h} T={t}: attn-viz {fmt_s(ours_no_out)} (+out proj "
                  f"{fmt_s(st.get('combine', 0))}), oneDNN reused {fmt_s(row['dnnl_reuse'])} "
                  f"({ratio_cell(row['ratio_reuse'], row['ratio_reuse_span'])}), fresh "
                  f"{fmt_s(row['dnnl'])} ({ratio_cell(row['ratio_fresh'], row['ratio_fresh_span'])})"
                  + (f", torch MHA {fmt_s(mha['median_s'])}" if mha else "")
                  + f"; stolen at most {100 * row['stolen_max']:.1f} %, {discarded} round(s) redone",
                  file=sys.stderr)

    add = []
    for t in threads:
        row = measure_additive(a.exe, t, a.rounds)
        record("additive", **row)
        add.append(row)

    stream = []
    for t in threads:
        long = run_json([a.exe, "--threads", str(t), "bench", "--n", "65536", "--d", "64", "--heads",
                         "1", "--stream", "2048", "--png", "--warmup", "0", "--reps", "1", "-q"])
        short = run_json([a.exe, "--threads", str(t), "bench", "--n", "8192", "--d", "64", "--heads",
                          "1", "--stream", "2048", "--no-scores", "--reps", "7", "--warmup", "2", "-q"])
        row = dict(threads=t, long_total=long["total_s"], long_stages=long["stages_s"],
                   long_gflops=long["stage_gflops"].get("attend", 0), long_rss=long["peak_rss_mib"],
                   png_bytes=long["png_bytes"], image=long["image"],
                   short_total=short["total_s"], short_rss=short["peak_rss_mib"])
        record("stream", **row)
        stream.append(row)
    pngs = []
    for level in (1, 6, 9):
        j = run_json([a.exe, "--threads", str(threads[-1]), "--png-level", str(level), "bench", "--n",
                      "8192", "--d", "64", "--heads", "1", "--stream", "4096", "--png", "--warmup", "0",
                      "--reps", "1", "-q"])
        row = dict(level=level, threads=threads[-1], png_s=j["stages_s"]["png"], bytes=j["png_bytes"],
                   image=j["image"])
        record("png", **row)
        pngs.append(row)

    print()
    print("| n | d | h | T | attn-viz project+attend | + out proj (total) | % FMA peak (matrix products) "
          "| oneDNN anchor, buffers reused | ratio | oneDNN, fresh buffers | ratio | torch MHA need_weights "
          "| ratio | attn-viz peak RSS | CPU stolen (max round) | rounds redone |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        mha = f"{fmt_s(r['mha'])} | **{r['mha'] / r['ours_total']:.0f}×**" if r["mha"] else "- | -"
        print(f"| {r['n']} | {r['d']} | {r['h']} | {r['threads']} | {fmt_s(r['ours_no_out'])} | "
              f"{fmt_s(r['ours_total'])} | {r['pct_peak']:.0f}% | {fmt_s(r['dnnl_reuse'])} | "
              f"{ratio_cell(r['ratio_reuse'], r['ratio_reuse_span'], True)} | {fmt_s(r['dnnl'])} | "
              f"{ratio_cell(r['ratio_fresh'], r['ratio_fresh_span'], True)} | {mha} | "
              f"{r['rss']:.0f} MiB | {100 * r['stolen_max']:.1f} % | {r['discarded']} |")
    print()
    print("| additive, n = 1024, d = d_a = 128 | T | attn-viz | PyTorch broadcast | ratio | RSS attn-viz / torch |")
    print("|---|---|---|---|---|---|")
    for r in add:
        print(f"| score + softmax + context | {r['threads']} | {fmt_s(r['ours'])} | {fmt_s(r['torch'])} | "
              f"{ratio_cell(r['ratio'], r['ratio_span'], True)} | {r['ours_rss']:.0f} / {r['torch_rss']:.0f} MiB |")
    print()
    print("| streaming, d = 64, h = 1 | T | time | attend GFLOP/s | picture (draw + PNG) | peak RSS |")
    print("|---|---|---|---|---|---|")
    for r in stream:
        print(f"| n = 65,536 → 2048 × 2048 mean-pooled | {r['threads']} | {fmt_s(r['long_total'])} | "
              f"{r['long_gflops']:.0f} | {fmt_s(r['long_stages'].get('png', 0))}, "
              f"{r['png_bytes'] / 2**20:.1f} MiB | {r['long_rss']:.0f} MiB |")
    for r in stream:
        mat = next((x for x in rows if x["n"] == 8192 and x["threads"] == r["threads"]), None)
        if mat:
            print(f"| n = 8192 streamed vs materialised | {r['threads']} | {fmt_s(r['short_total'])} vs "
                  f"{fmt_s(mat['ours_total'])} | - | - | {r['short_rss']:.0f} vs {mat['rss']:.0f} MiB |")
    print()
    print("| PNG of the pooled map, 4096 × 4096 (figure " + f"{pngs[0]['image']['width']} × {pngs[0]['image']['height']})"
          + " | --png-level | draw + encode | size |")
    print("|---|---|---|---|")
    for r in pngs:
        print(f"| threads {r['threads']} | {r['level']} | {fmt_s(r['png_s'])} | {r['bytes'] / 2**20:.1f} MiB |")
    by = {(r["n"], r["threads"]): r for r in rows}
    print()
    for (n, d, h) in shapes:
        if (n, 1) in by and (n, 2) in by:
            print(f"2 threads vs 1 at n={n}, d={d}, h={h}: "
                  f"{by[(n, 1)]['ours_no_out'] / by[(n, 2)]['ours_no_out']:.2f}×")


if __name__ == "__main__":
    main()
