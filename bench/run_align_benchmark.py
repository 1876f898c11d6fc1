#!/usr/bin/env python3
"""How fast `attn-viz align` aligns parallel text, against fast_align on the same text, in one
run on this machine (issue 46, item 1). Each round, alternating:

  fast_align          fast_align -i TEXT -d -o -v  (one direction: its 5 EM passes over the
                      text, then the alignment: how fast_align is used, training included)
  fast_align both     both directions (-r for the reverse) and atools' grow-diag-final-and
  attn-viz align      attn-viz align --model M --input TEXT --out F  (the trained model read
                      at the default layer and head; no training, which fast_align cannot skip)
  attn-viz align both with --reverse-model R --symmetrize grow-diag-final-and

Throughput is sentence pairs a second, median over the rounds (lowest–highest), and each
attn-viz figure as a ratio to fast_align's same-kind figure of the same round. TEXT is the
verse-aligned Bible (samples/translation/bible_corpus.py: diatheke and Debian's SWORD modules)
as "source ||| target" lines, or --input FILE; --limit N takes its first N lines.

fast_align is not part of attn-viz: build it from its public repository for the comparison
(cmake, make) and give --fast-align build/fast_align (atools beside it). Without it only
attn-viz's figures are printed.

usage: /usr/bin/python3 bench/run_align_benchmark.py [--fast-align PATH] [--rounds 3]
       [--limit N] [--input FILE] [--model samples/rv-kjv-marian]
       [--reverse-model samples/kjv-rv-marian] [--threads 2] [--exe build/attn-viz]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run_measure_benchmark import cpu_name  # noqa: E402


def cpu_family_model():
    fields = {}
    for line in open("/proc/cpuinfo", encoding="utf-8"):
        key, _, value = line.partition(":")
        if key.strip() in ("cpu family", "model") and key.strip() not in fields:
            fields[key.strip()] = value.strip()
    return f"family {fields.get('cpu family', '?')} model {fields.get('model', '?')}"


def bible_text(path, limit):
    sys.path.insert(0, os.path.join(ROOT, "samples", "translation"))
    import bible_corpus
    with open(path, "w", encoding="utf-8") as f:
        for n, (_, es, en) in enumerate(bible_corpus.corpus()):
            if limit and n >= limit:
                break
            f.write(f"{bible_corpus.plain(es)} ||| {bible_corpus.plain(en)}\n")


def timed(argv, env, stdout=None):
    start = time.perf_counter()
    subprocess.run(argv, check=True, env=env, stdout=stdout or subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def fast_align_runs(fa, text, scratch, env):
    """{name: argv lists run in order}, fast_align's two kinds."""
    atools = os.path.join(os.path.dirname(fa), "atools")
    fwd, rev = os.path.join(scratch, "fa.fwd"), os.path.join(scratch, "fa.rev")
    one = [[fa, "-i", text, "-d", "-o", "-v"]]
    both = [[fa, "-i", text, "-d", "-o", "-v", ">", fwd], [fa, "-i", text, "-d", "-o", "-v", "-r", ">", rev],
            [atools, "-i", fwd, "-j", rev, "-c", "grow-diag-final-and"]]
    return {"fast_align": one, "fast_align both": both}


def run_steps(steps, env):
    total = 0.0
    for argv in steps:
        if ">" in argv:
            k = argv.index(">")
            with open(argv[k + 1], "w") as out:
                total += timed(argv[:k], env, out)
        else:
            total += timed(argv, env)
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fast-align", help="fast_align's binary (atools beside it)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--input", help="'source ||| target' lines [default: the Bible's verses]")
    p.add_argument("--model", default=os.path.join(ROOT, "samples", "rv-kjv-marian"))
    p.add_argument("--reverse-model", default=os.path.join(ROOT, "samples", "kjv-rv-marian"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--exe", default=os.path.join(ROOT, "build", "attn-viz"))
    a = p.parse_args()
    scratch = tempfile.mkdtemp()
    try:
        text = os.path.join(scratch, "pairs.txt")
        if a.input:
            with open(a.input, encoding="utf-8") as f:
                lines = f.readlines()[:a.limit or None]
            with open(text, "w", encoding="utf-8") as f:
                f.writelines(lines)
        else:
            bible_text(text, a.limit)
        pairs = sum(1 for _ in open(text, encoding="utf-8"))
        env = dict(os.environ, OMP_NUM_THREADS=str(a.threads))
        version = subprocess.run([a.exe, "--version"], capture_output=True, text=True).stdout.strip().replace("\n", "; ")
        print(f"{cpu_name()} ({cpu_family_model()}), {os.cpu_count()} cores; {version}; "
              f"{a.threads} threads; {pairs} sentence pairs; {a.rounds} rounds")
        out = os.path.join(scratch, "a.txt")
        base = [a.exe, "--threads", str(a.threads), "align", "--input", text, "--out", out, "-q"]
        runs = {"attn-viz align": [base + ["--model", a.model]]}
        if os.path.isdir(a.reverse_model):
            runs["attn-viz align both"] = [base + ["--model", a.model, "--reverse-model", a.reverse_model,
                                                  "--symmetrize", "grow-diag-final-and"]]
        if a.fast_align:
            runs.update(fast_align_runs(a.fast_align, text, scratch, env))
        seconds = {k: [] for k in runs}
        for _ in range(a.rounds):
            for name, steps in runs.items():
                seconds[name].append(run_steps(steps, env))
        report(seconds, pairs, a.rounds)
    finally:
        shutil.rmtree(scratch)


def report(seconds, pairs, rounds):
    rate = {k: [pairs / s for s in v] for k, v in seconds.items()}
    for name, r in rate.items():
        line = (f"  {name:<22} {statistics.median(r):8.1f} pairs/s ({min(r):.1f}–{max(r):.1f}), "
                f"{statistics.median(seconds[name]):.2f} s")
        kind = "fast_align both" if name.endswith("both") else "fast_align"
        if name.startswith("attn-viz") and kind in rate:
            ratios = [rate[name][k] / rate[kind][k] for k in range(rounds)]
            line += f"; {statistics.median(ratios):.3f}× {kind}'s ({min(ratios):.3f}–{max(ratios):.3f})"
        print(line)


if __name__ == "__main__":
    main()
