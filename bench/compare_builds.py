#!/usr/bin/env python3
"""Times two attn-viz builds on the same shapes, interleaved in one run, and prints each case's
median total seconds and the ratio new / old (below 1: the new build is faster).

  bench/compare_builds.py OLD_EXE NEW_EXE [--threads 1,2] [--rounds 3]

Each round runs every case on the old build, then on the new one; a case's figure is the best of
its rounds' medians (attn-viz bench reports the median of --reps calls), so a busy moment on the
machine hits both builds alike. Used to check that a refactor leaves the kernels' speed alone."""
import argparse
import json
import platform
import subprocess

CASES = [
    ("self n=2048 d=768 h=12", ["--n", "2048", "--d", "768", "--heads", "12"]),
    ("causal n=2048 d=768 h=12", ["--n", "2048", "--d", "768", "--heads", "12", "--mask", "causal"]),
    ("additive n=1024 d=128 d_a=128", ["--n", "1024", "--d", "128", "--heads", "0", "--score",
                                      "additive", "--da", "128"]),
    ("stream n=16384 d=64 h=1", ["--n", "16384", "--d", "64", "--heads", "1", "--stream", "2048",
                                 "--quiet"]),
]


def bench(exe, threads, args):
    out = subprocess.run([exe, "--threads", str(threads), "bench", "--warmup", "1", "--reps", "5",
                          *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    best = {}
    isa = None
    for _ in range(a.rounds):
        for t in threads:
            for name, args in CASES:
                for which, exe in (("old", a.old), ("new", a.new)):
                    j = bench(exe, t, args)
                    isa = j["isa"]
                    key = (t, name, which)
                    best[key] = min(best.get(key, float("inf")), j["total_s"])
    print(f"# {platform.node()} · {platform.processor() or platform.machine()} · isa {isa} · "
          f"best of {a.rounds} rounds of median-of-5")
    print(f"{'threads':>7}  {'case':<32} {'old s':>9} {'new s':>9} {'new/old':>8}")
    for t in threads:
        for name, _ in CASES:
            old, new = best[(t, name, "old")], best[(t, name, "new")]
            print(f"{t:>7}  {name:<32} {old:9.4f} {new:9.4f} {new / old:8.3f}")


if __name__ == "__main__":
    main()
