#!/usr/bin/env python3
"""`attn-viz model --generate` against its anchors, in one run, on this machine (issue 33's
benchmark): greedy generation after a 128-token prompt, 256 new tokens on the GPT-2-small shape
and 64 on the Llama-1B shape (bench/make_bench_models.py's folders: random weights in Hugging
Face's names; their configs have no end token, so every run makes all the tokens).

  attn-viz --generate   one whole process (`attn-viz model --ids … --generate N -q`: the prompt
                        pass, each token over the key/value caches, the logits and their argmax
                        every step, every map over prompt + generated kept in memory, no files)
  attn-viz, no cache    the prefix run whole for every token, as one would without generation:
                        `attn-viz model --ids <prompt + t tokens>` processes timed at five
                        prefix lengths (t = 0, N/4, N/2, 3N/4, N − 1) and summed over every t by
                        linear interpolation between them (an estimate, stated as one)
  PyTorch loop          bench/bench_generate_anchor.py: Debian's PyTorch default CPU path, a
                        key/value cache, no maps kept; one process per shape

Ratios are anchor time / attn-viz time. attn-viz alternates with nothing else; --rounds repeats
its timing (the PyTorch loop runs once: it is slow).

usage: /usr/bin/python3 bench/run_generation_benchmarks.py --models DIR [--exe build/attn-viz]
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_benchmarks import run_json  # noqa: E402

CASES = [("gpt2-small", 128, 256, 50257), ("llama-1b", 128, 64, 128256)]


def ids(n, vocab):
    return ",".join(str((i * 7919 + 13) % vocab) for i in range(n))


def timed(argv):
    """Wall seconds and peak RSS (MiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    return wall, int(proc.stderr.strip().splitlines()[-1]) / 1024, proc.stdout


def no_cache_estimate(exe, folder, prompt, new, vocab, threads):
    """Seconds to rerun the whole prefix once per generated token, from five measured lengths."""
    points = sorted({0, new // 4, new // 2, 3 * new // 4, new - 1})
    measured = {t: timed([exe, "--threads", str(threads), "model", "--model", folder, "--ids",
                          ids(prompt + t, vocab), "-q"])[0] for t in points}
    total = 0.0
    for t in range(new):
        lo = max(p for p in points if p <= t)
        hi = min(p for p in points if p >= t)
        total += measured[lo] if hi == lo else measured[lo] + (measured[hi] - measured[lo]) * (t - lo) / (hi - lo)
    return total, measured


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", required=True)
    p.add_argument("--exe", default=os.path.join(HERE, "..", "build", "attn-viz"))
    p.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared", "bench"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--skip-torch", action="store_true")
    p.add_argument("--out", default=os.path.join(HERE, "results-generation.jsonl"))
    a = p.parse_args()
    T = a.threads
    for shape, *_ in CASES:
        if not os.path.exists(os.path.join(a.models, shape, "model.safetensors")):
            subprocess.run(["/usr/bin/python3", os.path.join(HERE, "make_bench_models.py"), a.models,
                            "--only", shape], check=True)
    version = subprocess.run([a.exe, "--version"], capture_output=True, text=True).stdout.strip().replace("\n", "; ")
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    rows = []
    with open(a.out, "a") as out:
        for shape, prompt, new, vocab in CASES:
            folder = os.path.join(a.models, shape)
            runs = []
            for _ in range(a.rounds):
                wall, rss, stdout = timed([a.exe, "--threads", str(T), "model", "--model", folder,
                                           "--ids", ids(prompt, vocab), "--generate", str(new), "-q"])
                assert f"{prompt} prompt tokens + {new} generated" in stdout, stdout
                runs.append((wall, rss))
            rerun, measured = no_cache_estimate(a.exe, folder, prompt, new, vocab, T)
            torch = None
            if not a.skip_torch:
                torch = run_json(["/usr/bin/python3", os.path.join(HERE, "bench_generate_anchor.py"),
                                  "--shape", shape, "--prompt", str(prompt), "--new", str(new),
                                  "--threads", str(T), "--shared", a.shared])
            rec = dict(date=datetime.date.today().isoformat(), machine=platform.processor() or platform.machine(),
                       threads=T, attnviz=f"{version} (commit {commit})", shape=shape, prompt=prompt, new=new,
                       attnviz_s=[round(w, 3) for w, _ in runs], attnviz_peak_rss_mib=round(max(r for _, r in runs), 1),
                       no_cache_estimate_s=round(rerun, 2),
                       no_cache_measured_s={str(k): round(v, 3) for k, v in measured.items()},
                       torch=torch)
            out.write(json.dumps(rec) + "\n")
            rows.append(rec)
    print("| shape | prompt + new | attn-viz --generate | tokens/s | peak RSS | no cache (estimate) | PyTorch KV-cache loop | PyTorch / attn-viz |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        t = statistics.median(r["attnviz_s"])
        line = (f"| {r['shape']} | {r['prompt']} + {r['new']} | {t:.2f} s ({min(r['attnviz_s']):.2f}–"
                f"{max(r['attnviz_s']):.2f}) | {r['new'] / t:.1f} | {r['attnviz_peak_rss_mib']:.0f} MiB | "
                f"{r['no_cache_estimate_s']:.1f} s ({r['no_cache_estimate_s'] / t:.1f}×) |")
        if r["torch"]:
            tt = r["torch"]["median_s"]
            line += f" {tt:.1f} s, {r['new'] / tt:.2f} tokens/s, {r['torch']['maxrss_mib']:.0f} MiB | **{tt / t:.1f}×** |"
        else:
            line += " | |"
        print(line)


if __name__ == "__main__":
    main()
