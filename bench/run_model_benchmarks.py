#!/usr/bin/env python3
"""`attn-viz model` against its anchors, in one run, on this machine: a whole forward pass that
keeps every layer's every head's attention weights ([L, H, n, n] float32) and the final hidden
state.

Shapes (../shared/bench/bench_model.py's, random weights; bench/make_bench_models.py writes the
model folders attn-viz reads, in Hugging Face's names and shapes):
  gpt2-small  n = 1024, F32 weights
  llama-1b    n = 512, BF16 weights (32 query / 8 KV heads, SwiGLU, RoPE)
  pythia-410m n = 1024, F16 weights (GPT-NeoX: partial RoPE, parallel residual); attn-viz only
              (bench_model.py has no GPT-NeoX shape): GFLOP/s against the FMA peak
Implementations, each in its own process, --threads T (default 2):
  attn-viz      `attn-viz --threads T bench --model DIR --n N` (the model memory-mapped and
                loaded once, one untimed forward, then --reps timed ones; median), and the
                wall time and peak RSS of one whole `attn-viz model --ids ...` process
  torch         bench_model.py --impl torch: Debian's PyTorch 1.13, its default CPU path
                (reference BLAS), once per shape (minutes)
  oneDNN        bench_model.py --impl dnnl: every matrix product on oneDNN's JIT sgemm, the rest
                in PyTorch in place (BF16 weights converted to float32 before timing)
The FMA peak comes from ../shared/bench/fma_peak.cpp, compiled and run in the same run.
FLOPs are counted as bench_model.py counts them (every matrix product; Q Kᵀ and A V over the
full n × n even though the models are causal), so GFLOP/s and % of peak compare directly.
Rounds: attn-viz and oneDNN alternate --rounds times (default 3); the table shows medians and
the ratio anchor / attn-viz (> 1: attn-viz faster) per round, median (lowest–highest). A round
whose stolen CPU time (a guest's steal column in /proc/stat) exceeds --max-steal (default 5 %)
of its wall time x threads is recorded as redone and measured again, at most --redo (2) times,
as run_benchmarks.py does; the stages line says how much was stolen and how many were redone.

The weights file's cached pages are dropped before each shape's rounds (posix_fadvise
DONTNEED, no root needed), so the first, untimed forward reads it from disk as after a reboot,
through attn-viz's own mapping, which has the page cache hold it in 2 MiB folios. A file just
written by make_bench_models.py is cached in the small pieces its writes made, and mapping those
costs a process more (GPT-2's whole process: 0.74-0.88 s against 0.68-0.79 s on a 2-vCPU KVM
guest, bench/RESULTS.md 2026-11-29 late); --keep-cache measures the file as the page cache
holds it.

--isa avx2 runs attn-viz's forward on its AVX2 kernels, against the 256-bit FMA peak (fma_peak's
avx2_ymm) instead of the best of both: the AVX2 figure on a host that also has AVX-512 (the
whole process too; the long-text runs keep the default). The
anchors then run with ONEDNN_MAX_CPU_ISA=AVX2, oneDNN's own AVX2 kernels, so the ratio compares
256-bit code with 256-bit code (without it oneDNN picks AVX-512 there).

Long texts (--long SHAPE:N,...; default gpt2-small:1024 — GPT-2's own limit — and
llama-1b:16384; --only-long skips the table above): whole `attn-viz` processes, wall time and
peak RSS (/usr/bin/time) against mapped weights (the weights file) + 2 GiB + the maps kept, for
  received   model --view received --png   (no map kept: the column sums only)
  rollout    model --view received-rollout --png   (the inputs in a scratch file, a second pass)
  npy        model --npy DIR --npy-layers L-1 --npy-heads 0   (one map streamed to disk)
  heads      heads --ids ...               (the statistics row by row; the random run's maps)
(--long-runs NAME,... picks some of them.)

The explorer page (--pages SHAPE:N,...; default gpt2-small:1024 and llama-1b:512; --only-pages):
`model --html` (wall time, peak RSS, the file's size), then the page in headless Chromium
(tests/e2e/browser.py): the time from the start of loading to the page's first full drawing
(window.attnvizReadyAt: the grid and the first map drawn), the median of 3 loads, and the time
to open another head (window.attnviz.select: its map decoded and drawn).

usage: /usr/bin/python3 bench/run_model_benchmarks.py --models DIR [--exe build/attn-viz]
       [--shared ../shared/bench] [--threads 2] [--rounds 3] [--skip-torch] [--keep-cache] [--out FILE]
       [--long SHAPE:N,...] [--only-long] [--long-runs NAME,...] [--isa avx2] [--only-table] [--pages SHAPE:N,...] [--only-pages]
(DIR as written by bench/make_bench_models.py; made there first when missing)
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_benchmarks import fma_peak, host_description, run_json, steal_seconds, stolen_share  # noqa: E402

SHAPES = [("gpt2-small", 1024), ("llama-1b", 512), ("pythia-410m", 1024)]
ANCHORED = {"gpt2-small", "llama-1b"}  # the shapes ../shared/bench/bench_model.py has


def attnviz_bench(exe, folder, n, threads, reps, isa=None):
    return run_json([exe, "--threads", str(threads), *(["--isa", isa] if isa else []), "bench", "--model", folder, "--n", str(n),
                     "--reps", str(reps), "--warmup", "1"])


def attnviz_process(exe, folder, n, threads, isa=None, runs=3):
    """Wall seconds (median of `runs`) and peak RSS of `attn-viz model` over n ids (no files
    written: since the maps are kept only for what an output reads, none is kept)."""
    ids = ",".join(str((i * 7919) % 50000) for i in range(n))
    argv = [exe, "--threads", str(threads), *(["--isa", isa] if isa else []), "model", "--model",
            folder, "--ids", ids, "--quiet"]
    measured = [timed(argv) for _ in range(runs)]
    return statistics.median(w for w, _ in measured), max(r for _, r in measured)


def timed(argv):
    """Wall seconds and peak RSS (MiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], check=True, capture_output=True,
                          text=True)
    return time.perf_counter() - start, int(proc.stderr.strip().splitlines()[-1]) / 1024


def runs_of(a, spec):
    """Each "SHAPE:N" of a comma-separated list: shape, n, its folder, its config, n ids."""
    for item in spec.split(","):
        shape, n = item.split(":")
        folder = os.path.join(a.models, shape)
        cfg = json.load(open(os.path.join(folder, "config.json")))
        ids = ",".join(str((i * 7919 + 13) % 50000) for i in range(int(n)))
        yield shape, int(n), folder, cfg, ids


def long_texts(a, record):
    """The long-text runs (see the module's text): a row each, against the memory bound."""
    print("| shape | n | run | wall s | peak RSS MiB | mapped weights MiB | bound MiB (mapped + 2048 + kept) | RSS / bound |")
    print("|---|---|---|---|---|---|---|---|")
    for shape, n, folder, cfg, ids in runs_of(a, a.long):
        layers = cfg.get("n_layer", cfg.get("num_hidden_layers"))
        mapped = os.path.getsize(os.path.join(folder, "model.safetensors")) / 2 ** 20
        scratch = os.path.join(a.models, f"long-{shape}")
        base = [a.exe, "--threads", str(a.threads)]
        runs = {"received": base + ["model", "--model", folder, "--ids", ids, "--view", "received",
                                    "--png", scratch + ".png", "-q"],
                "npy": base + ["model", "--model", folder, "--ids", ids, "--npy", scratch,
                               "--npy-layers", str(layers - 1), "--npy-heads", "0", "-q"],
                "heads": base + ["heads", "--model", folder, "--ids", ids, "-q"],
                "rollout": base + ["model", "--model", folder, "--ids", ids, "--view",
                                   "received-rollout", "--png", scratch + "-rollout.png", "-q"]}
        for name, argv in runs.items():
            if name not in a.long_runs.split(","):
                continue
            wall, rss = timed(argv)
            bound = mapped + 2048
            record(kind="long", shape=shape, n=n, run=name, wall_s=wall, peak_rss_mib=rss,
                   mapped_mib=mapped, bound_mib=bound)
            print(f"| {shape} | {n} | {name} | {wall:.1f} | {rss:.0f} | {mapped:.0f} | {bound:.0f} | "
                  f"{rss / bound:.2f} |")


def issue_table(a, record):
    """Issue 34's table of whole processes, re-measured (--only-table): GPT-2-small at 1,024
    tokens with no output, the rollout view with --npy, the explorer page, --json, and the
    Llama-1B shape at 4,096 tokens (refused before: every map kept)."""
    print("| shape | n | run | wall s | peak RSS MiB | output MB |")
    print("|---|---|---|---|---|---|")
    for shape, n, folder, cfg, ids in runs_of(a, "gpt2-small:1024,llama-1b:4096"):
        scratch = os.path.join(a.models, f"table-{shape}")
        model = [a.exe, "--threads", str(a.threads), "model", "--model", folder, "--ids", ids, "-q"]
        runs = {"no output": ([], None),
                "--view rollout --npy D": (["--view", "rollout", "--npy", scratch], scratch),
                "--html page.html": (["--html", scratch + ".html"], scratch + ".html"),
                "--json": (["--json", scratch + ".json"], scratch + ".json")}
        if shape != "gpt2-small":
            runs = {"--view received --png": (["--view", "received", "--png", scratch + ".png"],
                                              scratch + ".png")}
        for name, (extra, made) in runs.items():
            wall, rss = timed(model + extra)
            size = 0.0
            if made and os.path.isdir(made):
                size = sum(os.path.getsize(os.path.join(made, f)) for f in os.listdir(made))
            elif made:
                size = os.path.getsize(made)
            record(kind="table", shape=shape, n=n, run=name, wall_s=wall, peak_rss_mib=rss,
                   output_mb=size / 1e6)
            print(f"| {shape} | {n} | `{name}` | {wall:.2f} | {rss:.0f} | {size / 1e6:.0f} |")


def pages(a, record):
    """The explorer page's rows (see the module's text)."""
    sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
    from browser import Browser, find_chromium  # noqa: E402
    print("| shape | n | maps × weights | `model --html` s | peak RSS MiB | page MB | first full drawing ms (median of 3) | another head ms |")
    print("|---|---|---|---|---|---|---|---|")
    for shape, n, folder, cfg, ids in runs_of(a, a.pages):
        L = cfg.get("n_layer", cfg.get("num_hidden_layers"))
        H = cfg.get("n_head", cfg.get("num_attention_heads"))
        page = os.path.join(a.models, f"page-{shape}-{n}.html")
        wall, rss = timed([a.exe, "--threads", str(a.threads), "model", "--model", folder, "--ids",
                           ids, "--html", page, "-q"])
        size = os.path.getsize(page) / 1e6
        loads, other = [], []
        for _ in range(3):
            b = Browser(find_chromium(), timeout=120)
            try:
                b.open("file://" + page)
                loads.append(b.evaluate("window.attnvizReadyAt"))
                other.append(b.evaluate("(function(){var t=performance.now();"
                                        f"window.attnviz.select({L - 1},{H - 1});"
                                        "return performance.now()-t;})()"))
            finally:
                b.close()
        record(kind="page", shape=shape, n=n, html_s=wall, peak_rss_mib=rss, page_mb=size,
               ready_ms=loads, select_ms=other)
        print(f"| {shape} | {n} | {L * H} × {n}² = {L * H * n * n / 1e6:.0f} M | {wall:.1f} | {rss:.0f} | "
              f"{size:.0f} | {statistics.median(loads):.0f} | {statistics.median(other):.0f} |")


def anchor(shared, shape, n, impl, threads, isa=None):
    """bench_model.py's forward; with isa avx2, oneDNN held to its AVX2 kernels too
    (ONEDNN_MAX_CPU_ISA), so both sides of the ratio use 256-bit vectors."""
    env = dict(os.environ, ONEDNN_MAX_CPU_ISA="AVX2") if isa == "avx2" else None
    return run_json(["/usr/bin/python3", os.path.join(shared, "bench_model.py"), "--shape", shape,
                     "--n", str(n), "--impl", impl, "--threads", str(threads)], env=env)


def measure_round(a, shape, n, r, record):
    """One round: attn-viz's forward, then the oneDNN anchor where there is one; a round whose
    stolen CPU time exceeds --max-steal of its wall time x threads is recorded as redone and
    measured again, at most --redo times. (attn-viz result, anchor result or None, stolen share)"""
    folder = os.path.join(a.models, shape)
    for attempt in range(a.redo + 1):
        start = (steal_seconds(), time.perf_counter())
        x = attnviz_bench(a.exe, folder, n, a.threads, a.reps, a.isa)
        d = anchor(a.shared, shape, n, "dnnl", a.threads, a.isa) if shape in ANCHORED else None
        stolen = stolen_share(start, a.threads)
        kept = stolen <= a.max_steal or attempt == a.redo
        record(kind="round" if kept else "round_redone", shape=shape, n=n, round=r, attnviz=x,
               dnnl=d, stolen_s=steal_seconds() - start[0], stolen_share=stolen)
        if kept:
            return x, d, stolen, attempt
        print(f"{shape} round {r + 1}: {100 * stolen:.0f} % of the CPU time stolen, measured again",
              file=sys.stderr)


def drop_cached(folder):
    """Drops the page cache's copy of the folder's weights (written to disk first), so the next
    run reads them from disk."""
    fd = os.open(os.path.join(folder, "model.safetensors"), os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def measure_shape(a, shape, n, record):
    """--rounds rounds of one shape, its whole process and (unless --skip-torch) the torch anchor."""
    av, dn, ratios, stolen, redone = [], [], [], [], 0
    folder = os.path.join(a.models, shape)
    if not a.keep_cache:
        drop_cached(folder)
    for r in range(a.rounds):
        x, d, share, attempts = measure_round(a, shape, n, r, record)
        av.append(x)
        stolen.append(share)
        redone += attempts
        if d:
            dn.append(d)
            ratios.append(d["median_s"] / x["total_s"])
    wall, rss = attnviz_process(a.exe, folder, n, a.threads, a.isa)
    record(kind="process", shape=shape, n=n, wall_s=wall, peak_rss_mib=rss,
           page_cache="as found" if a.keep_cache else "dropped before the rounds")
    torch = None
    if not a.skip_torch and shape in ANCHORED:
        torch = anchor(a.shared, shape, n, "torch", a.threads, a.isa)
        record(kind="torch", shape=shape, n=n, result=torch)
    return dict(shape=shape, n=n, av=av, dn=dn, ratios=ratios, wall=wall, rss=rss, torch=torch,
                stolen_max=max(stolen), redone=redone)


def print_table(rows, peak):
    """The forward, whole-process and anchor rows of every shape, then each shape's stages."""
    print("| shape | n | GFLOP | impl | median s | GFLOP/s | % FMA peak | tokens/s | peak RSS MiB | ratio (anchor / attn-viz) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        shape, n, av, dn, ratios = row["shape"], row["n"], row["av"], row["dn"], row["ratios"]
        wall, rss, torch = row["wall"], row["rss"], row["torch"]
        g = av[0]["gflop"]["products"] + av[0]["gflop"]["attention"]
        t = statistics.median(x["total_s"] for x in av)
        print(f"| {shape} | {n} | {g:.1f} | attn-viz (in process) | {t:.3f} | {g / t:.0f} | {100 * g / t / peak:.0f} % "
              f"| {n / t:.0f} | {max(x['peak_rss_mib'] for x in av):.0f} | |")
        print(f"| {shape} | {n} | {g:.1f} | attn-viz (whole process) | {wall:.3f} | {g / wall:.0f} | "
              f"{100 * g / wall / peak:.0f} % | {n / wall:.0f} | {rss:.0f} | |")
        if dn:
            td = statistics.median(d["median_s"] for d in dn)
            print(f"| {shape} | {n} | {g:.1f} | oneDNN sgemm + torch | {td:.3f} | {g / td:.0f} | {100 * g / td / peak:.0f} % "
                  f"| {n / td:.0f} | {max(d['maxrss_mib'] for d in dn):.0f} | **{statistics.median(ratios):.2f}×** "
                  f"({min(ratios):.2f}–{max(ratios):.2f}) |")
        if torch:
            tt = torch["median_s"]
            print(f"| {shape} | {n} | {g:.1f} | torch default | {tt:.1f} | {g / tt:.1f} | {100 * g / tt / peak:.1f} % "
                  f"| {n / tt:.1f} | {torch['maxrss_mib']:.0f} | **{tt / t:.0f}×** |")
    print()
    for row in rows:
        av = row["av"]
        st = {k: statistics.median(x["stages_s"][k] for x in av) for k in av[0]["stages_s"]}
        print(f"{row['shape']} n={row['n']} attn-viz stages (median s): "
              + ", ".join(f"{k} {v:.3f}" for k, v in st.items())
              + f"; mapped {av[0]['mapped_mib']:.0f} MiB, maps {av[0]['maps_mib']:.0f} MiB; "
              f"CPU stolen at most {100 * row['stolen_max']:.1f} % of a round, {row['redone']} round(s) redone")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", required=True)
    p.add_argument("--exe", default=os.path.join(HERE, "..", "build", "attn-viz"))
    p.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared", "bench"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=5, help="attn-viz timed forwards per round")
    p.add_argument("--max-steal", type=float, default=0.05,
                   help="redo a round whose stolen CPU time exceeds this share of wall time x threads")
    p.add_argument("--redo", type=int, default=2, help="at most this many redos per round")
    p.add_argument("--skip-torch", action="store_true")
    p.add_argument("--keep-cache", action="store_true",
                   help="measure the weights files as the page cache holds them (default: dropped "
                   "before each shape's rounds, read from disk by the first forward)")
    p.add_argument("--out", default=os.path.join(HERE, "results-models.jsonl"))
    p.add_argument("--long", default="gpt2-small:1024,llama-1b:16384", help="'' for none")
    p.add_argument("--only-long", action="store_true")
    p.add_argument("--long-runs", default="received,npy,heads,rollout")
    p.add_argument("--pages", default="gpt2-small:1024,llama-1b:512", help="'' for none")
    p.add_argument("--only-pages", action="store_true")
    p.add_argument("--only-table", action="store_true", help="issue 34's table of whole processes")
    p.add_argument("--isa", help="the kernels' instruction set for attn-viz's forward and process "
                   "(avx2: measured against the 256-bit FMA peak, oneDNN held to AVX2; the long "
                   "runs keep the default)")
    a = p.parse_args()
    T = a.threads
    for shape, _ in SHAPES:
        if not os.path.exists(os.path.join(a.models, shape, "model.safetensors")):
            subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_bench_models.py"), a.models,
                            "--only", shape], check=True)
    peak = fma_peak(a.shared, "avx2_ymm" if a.isa == "avx2" else None)[T]
    # the kernels and blocking the runs below use: their --threads and --isa
    chosen = ["--threads", str(T)] + (["--isa", a.isa] if a.isa else [])
    version = subprocess.run([a.exe, *chosen, "--version"], capture_output=True,
                             text=True).stdout.strip().replace("\n", "; ")
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    version += f" (commit {commit})" if commit else ""
    out = open(a.out, "a")

    def record(**kw):
        kw.update(date=datetime.datetime.now().isoformat(timespec="seconds"), threads=T,
                  machine=platform.processor() or platform.machine())
        out.write(json.dumps(kw) + "\n")
        out.flush()

    record(kind="fma_peak", gflops=peak, attnviz=version, isa=a.isa, host=host_description(a.exe))
    if a.only_long or a.only_pages or a.only_table:
        print(f"attn-viz {version}, {T} threads\n")
        (long_texts if a.only_long else pages if a.only_pages else issue_table)(a, record)
        return
    rows = [measure_shape(a, shape, n, record) for shape, n in SHAPES]
    print(f"Host: {host_description(a.exe)}")
    print(f"FMA peak ({T} threads{', 256-bit' if a.isa == 'avx2' else ''}): {peak:.0f} GFLOP/s; "
          f"attn-viz {version}\n")
    print_table(rows, peak)
    if a.long:
        print()
        long_texts(a, record)
    if a.pages:
        print()
        pages(a, record)


if __name__ == "__main__":
    main()
