#!/usr/bin/env python3
"""What packing the weights costs in each stage of a whole-model forward (issue 47, item 2):
`perf record --call-graph dwarf` on one `attn-viz bench --model` forward, each sample put in
the stage whose function is nearest the sample on its stack, and the share of each stage's
samples that lie in pack_b_range (B's panels packed — for F16 / BF16 weights converted to float
on the way, once a panel chunk: gemm.inc).

Only the thread that calls the stages has them on its stack (OpenMP's other threads start in
the runtime), so the shares are those of the calling thread's samples: the same kernels in the
same proportions as the others'. Needs perf (linux-perf) and kernel.perf_event_paranoid <= 2.

usage: /usr/bin/python3 bench/run_packing_profile.py --model DIR [--n 512] [--isa avx2]
       [--exe build/attn-viz] [--threads 2] [--frequency 999]
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_benchmarks import host_description  # noqa: E402

# The innermost frame naming one of these decides a sample's stage (model/layer_ops.cpp's).
# cross_attention_block before attention_block, whose name it ends with.
STAGES = [("attend_projected", "attend"), ("swiglu_linear", "mlp_up"),
          ("mlp_rows", "mlp_down (+ mlp_up unless fused)"), ("attend_and_output", "output"),
          ("cross_attention_block", "cross"), ("attention_block", "project"),
          ("top_predictions", "head")]


def stacks(perf_data):
    """Each sample's stack of function names, innermost first."""
    text = subprocess.run(["perf", "script", "-i", perf_data, "-F", "ip,sym"], check=True,
                          capture_output=True, text=True).stdout
    for block in text.split("\n\n"):
        frames = [line.split(None, 1)[1] for line in block.splitlines() if len(line.split(None, 1)) == 2]
        if frames:
            yield frames


def stage_of(frames):
    for frame in frames:
        for key, name in STAGES:
            if frame.startswith(key) or ("::" + key) in frame:
                return name
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True)
    p.add_argument("--n", type=int, default=512)
    p.add_argument("--isa")
    p.add_argument("--exe", default=os.path.join(HERE, "..", "build", "attn-viz"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--frequency", type=int, default=999)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="attnviz-packing-")
    data = os.path.join(work, "perf.data")
    argv = [a.exe, "--threads", str(a.threads), *(["--isa", a.isa] if a.isa else []), "bench",
            "--model", a.model, "--n", str(a.n), "--reps", "1", "--warmup", "0"]
    subprocess.run(["perf", "record", "-o", data, "--call-graph", "dwarf,8192", "-F", str(a.frequency),
                    "--", *argv], check=True, capture_output=True)
    total, packing = collections.Counter(), collections.Counter()
    for frames in stacks(data):
        stage = stage_of(frames)
        if stage:
            total[stage] += 1
            packing[stage] += "pack_b_range" in frames[0]
    os.remove(data)
    os.rmdir(work)
    print(f"Host: {host_description(a.exe)}; {a.threads} threads; {' '.join(argv[1:])}\n")
    print("| stage | samples (calling thread) | in pack_b_range | share |")
    print("|---|---|---|---|")
    for stage, count in total.most_common():
        print(f"| {stage} | {count} | {packing[stage]} | {100 * packing[stage] / count:.1f} % |")
    all_pack, all_count = sum(packing.values()), sum(total.values())
    print(f"| every stage | {all_count} | {all_pack} | {100 * all_pack / max(1, all_count):.1f} % |")


if __name__ == "__main__":
    main()
