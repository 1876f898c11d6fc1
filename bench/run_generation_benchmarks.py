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

A step's weight reads against the memory (issue 47's goal: >= 80 % of the two-thread read
bandwidth): each round also runs the prompt with an eighth of the new tokens, and a step's time
is the difference of the two processes over the difference of their tokens (the prompt pass,
loading and exit cancel). A step reads every weight once — the safetensors file's tensors but an
untied input embedding (one row a token) — and the key/value caches once (float32, every layer,
the rows so far: their average over the timed steps), so bytes / step time is its read rate,
shown against ../shared/bench/membw.cpp's two-thread `read` (one stream a thread) and
bench/read_streams.cpp's best over 1-16 streams a thread, both compiled once and run before
every round and after the last. A shared guest's memory moves by a third within minutes, so each
round's rate is set against the mean of the bandwidths measured just before and just after it,
and the table gives the median of those ratios (with the first and last bandwidths as well).

usage: /usr/bin/python3 bench/run_generation_benchmarks.py --models DIR [--exe build/attn-viz]
       [--shared ../shared/bench] [--threads 2] [--rounds 3] [--skip-torch] [--out FILE]
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_benchmarks import host_description, run_json  # noqa: E402

CASES = [("gpt2-small", 128, 256, 50257), ("llama-1b", 128, 64, 128256)]


def ids(n, vocab):
    return ",".join(str((i * 7919 + 13) % vocab) for i in range(n))


def timed(argv):
    """Wall seconds and peak RSS (MiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    return wall, int(proc.stderr.strip().splitlines()[-1]) / 1024, proc.stdout


def weight_bytes_a_step(folder):
    """Bytes of the weights one generated token reads: every tensor of model.safetensors but the
    input embedding table when the LM head is its own matrix."""
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
    cfg = json.load(open(os.path.join(folder, "config.json")))
    tied = cfg.get("tie_word_embeddings", True)
    skip = ("wte.weight", "embed_tokens.weight", "embed_in.weight")
    return sum(v["data_offsets"][1] - v["data_offsets"][0] for k, v in header.items()
               if k != "__metadata__" and (tied or not k.endswith(skip)))


def cache_bytes_a_step(folder, prompt, few, new):
    """Bytes of the key/value caches one step reads on average over the steps the difference
    of a `new`-token and a `few`-token run times (float32 keys and values, every layer, the
    prompt and the tokens so far, this step's row included)."""
    cfg = json.load(open(os.path.join(folder, "config.json")))
    layers = cfg.get("num_hidden_layers", cfg.get("n_layer"))
    heads = cfg.get("num_attention_heads", cfg.get("n_head"))
    width = cfg.get("head_dim") or cfg.get("hidden_size", cfg.get("n_embd")) // heads
    kv_cols = cfg.get("num_key_value_heads", heads) * width
    rows = prompt + (few + new) / 2 + 0.5  # step t (0-based) reads prompt + t + 1 rows
    return round(layers * 2 * rows * kv_cols * 4)


def bandwidth_tools(shared, work):
    """membw.cpp and read_streams.cpp compiled into `work`: {name: executable}."""
    tools = {}
    for name, src in (("membw", os.path.join(shared, "membw.cpp")),
                      ("read_streams", os.path.join(HERE, "read_streams.cpp"))):
        tools[name] = os.path.join(work, name)
        subprocess.run(["g++", "-O2", "-march=native", "-fopenmp", src, "-o", tools[name]], check=True)
    return tools


def read_bandwidths(tools, threads):
    """GB/s: membw.cpp's `read` at `threads` threads and read_streams.cpp's best stream count."""
    out = {}
    for name, exe in tools.items():
        text = subprocess.run([exe], check=True, capture_output=True, text=True,
                              env=dict(os.environ, OMP_NUM_THREADS=str(threads))).stdout
        for line in text.splitlines():
            f = line.split()
            if name == "membw" and len(f) >= 5 and f[0] == "read" and f[1] == str(threads):
                out["membw_read"] = float(f[4])
            if name == "read_streams" and len(f) == 4:
                out["read_streams"] = max(out.get("read_streams", 0.0), float(f[3]))
    return out


def round_ratios(r, key):
    """Each round's read rate over the mean of `key` (a bandwidth) just before and after it."""
    bytes_a_step = r["weight_bytes_a_step"] + r["cache_bytes_a_step"]
    bw = r["bandwidth_rounds_gbs"]
    return [bytes_a_step / step / 1e9 / ((bw[i].get(key, 0.0) + bw[i + 1].get(key, 0.0)) / 2)
            for i, step in enumerate(r["step_s"])]


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


def print_read_rates(rows):
    """The table of a step's weight and cache reads against the memory's read bandwidth."""
    print("\n| shape | weights + cache a step | step (median of rounds) | read rate | membw read (first / last) | "
          "read_streams best (first / last) | % of membw around each round (median; range) | "
          "% of read_streams (median) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        step = statistics.median(r["step_s"])
        rate = (r["weight_bytes_a_step"] + r["cache_bytes_a_step"]) / step / 1e9
        bw = r["bandwidth_rounds_gbs"]
        membw = [bw[i].get("membw_read", 0.0) for i in (0, -1)]
        streams = [bw[i].get("read_streams", 0.0) for i in (0, -1)]
        of_membw = round_ratios(r, "membw_read")
        of_streams = round_ratios(r, "read_streams")
        print(f"| {r['shape']} | {r['weight_bytes_a_step'] / 1e9:.2f} + {r['cache_bytes_a_step'] / 1e9:.3f} GB "
              f"| {step * 1e3:.1f} ms "
              f"({min(r['step_s']) * 1e3:.1f}–{max(r['step_s']) * 1e3:.1f}) | {rate:.1f} GB/s | "
              f"{membw[0]:.1f} / {membw[1]:.1f} GB/s | {streams[0]:.1f} / {streams[1]:.1f} GB/s | "
              f"{100 * statistics.median(of_membw):.0f} % ({100 * min(of_membw):.0f}–{100 * max(of_membw):.0f}) | "
              f"{100 * statistics.median(of_streams):.0f} % |")


def measure_case(a, tools, shape, prompt, new, vocab, attnviz):
    """One shape's record: --rounds whole generations and the shorter runs that time a step,
    the read bandwidths before every round and after the last, the no-cache estimate and the
    PyTorch loop."""
    T, folder = a.threads, os.path.join(a.models, shape)
    runs, steps = [], []
    few = max(8, new // 8)
    bandwidths = [read_bandwidths(tools, T)]
    for _ in range(a.rounds):
        wall, rss, stdout = timed([a.exe, "--threads", str(T), "model", "--model", folder,
                                   "--ids", ids(prompt, vocab), "--generate", str(new), "-q"])
        assert f"{prompt} prompt tokens + {new} generated" in stdout, stdout
        runs.append((wall, rss))
        short = timed([a.exe, "--threads", str(T), "model", "--model", folder,
                       "--ids", ids(prompt, vocab), "--generate", str(few), "-q"])[0]
        steps.append((wall - short) / (new - few))
        bandwidths.append(read_bandwidths(tools, T))
    rerun, measured = no_cache_estimate(a.exe, folder, prompt, new, vocab, T)
    torch = None
    if not a.skip_torch:
        torch = run_json(["/usr/bin/python3", os.path.join(HERE, "bench_generate_anchor.py"),
                          "--shape", shape, "--prompt", str(prompt), "--new", str(new),
                          "--threads", str(T), "--shared", a.shared])
    return dict(date=datetime.date.today().isoformat(), machine=platform.processor() or platform.machine(),
                threads=T, attnviz=attnviz, host=host_description(a.exe),
                shape=shape, prompt=prompt, new=new,
                attnviz_s=[round(w, 3) for w, _ in runs], attnviz_peak_rss_mib=round(max(r for _, r in runs), 1),
                no_cache_estimate_s=round(rerun, 2),
                step_s=[round(x, 5) for x in steps], weight_bytes_a_step=weight_bytes_a_step(folder),
                cache_bytes_a_step=cache_bytes_a_step(folder, prompt, few, new),
                bandwidth_gbs={"before": bandwidths[0], "after": bandwidths[-1]},
                bandwidth_rounds_gbs=bandwidths,
                no_cache_measured_s={str(k): round(v, 3) for k, v in measured.items()},
                torch=torch)


def print_runs(rows):
    """The whole generations against their anchors."""
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
    version = subprocess.run([a.exe, "--threads", str(a.threads), "--version"], capture_output=True,
                             text=True).stdout.strip().replace("\n", "; ")
    commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    own_build = os.path.realpath(a.exe) == os.path.realpath(os.path.join(HERE, "..", "build", "attn-viz"))
    # The commit is the checkout's; another --exe may have been built from another one.
    attnviz = f"{version} (commit {commit})" if own_build else f"{version} ({a.exe}; checkout at {commit})"
    work = tempfile.mkdtemp(prefix="attnviz-bench-")
    tools = bandwidth_tools(a.shared, work)
    with open(a.out, "a") as out:
        rows = []
        for case in CASES:
            rows.append(measure_case(a, tools, *case, attnviz))
            out.write(json.dumps(rows[-1]) + "\n")
    shutil.rmtree(work)
    print(f"Host: {host_description(a.exe)}; {T} threads\n")
    print_runs(rows)
    print_read_rates(rows)


if __name__ == "__main__":
    main()
