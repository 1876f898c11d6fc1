#!/usr/bin/env python3
"""How fast the register tile's k loop can run, from its instructions alone (issue 47, item 4).

Takes the built micro-kernel (`micro<MR>` for full tiles, gemm.inc) out of the object file of
one instruction set, finds its innermost loop (the backward branch around the most FMAs), and
asks llvm-mca for the cycles a step takes on a core's scheduling model. The loop's FMA bound is
one cycle for every two FMAs (two FMA units); cycles a step above that are lost inside the loop
itself, whatever the memory does. Data are taken as in L1: what is left between this bound and a
measured rate comes from outside the loop (B read from L2, the epilogue into C, packing, the
host).

Host-independent: the same object gives the same figures on any machine, so it can say why a
kernel misses the peak on a guest without hardware counters. llvm-mca 14's Zen 3 model issues
256-bit FMAs once a cycle where Zen 3 issues two, so AMD models are not offered.

usage: /usr/bin/python3 bench/kernel_loop_bound.py [--build build] [--isa avx512|avx2]
       [--mcpu skylake-avx512,icelake-server,sapphirerapids] [--json]
needs objdump (binutils) and llvm-mca (llvm-14, or llvm-mca on PATH)
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

DEFAULT_CPUS = {"avx512": "skylake-avx512,icelake-server,sapphirerapids",
                "avx2": "haswell,skylake,icelake-server,sapphirerapids"}
LINE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
BRANCH = re.compile(r"^(j[a-z]+)\s+([0-9a-f]+)\b")


def fail(message):
    print(f"kernel_loop_bound: {message}", file=sys.stderr)
    sys.exit(2)


def object_file(build, isa):
    found = glob.glob(os.path.join(build, "lib", "CMakeFiles", "*", "kernels",
                                   f"kernels_{isa}.cpp.o"))
    if not found:
        fail(f"no kernels_{isa}.cpp.o under {build}/lib/CMakeFiles: build the project first")
    return found[0]


def tile_rows(isa):
    """MR, the register tile's rows, as lib/kernels/kernels_<isa>.cpp defines it."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "kernels",
                          f"kernels_{isa}.cpp")
    with open(source, encoding="utf-8") as f:
        match = re.search(r"#define ATTNVIZ_GEMM_MR (\d+)", f.read())
    if not match:
        fail(f"{source}: no ATTNVIZ_GEMM_MR")
    return int(match.group(1))


def function_lines(obj, isa):
    """(address, instruction) of the first full-tile micro-kernel without a side job."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", obj], check=True,
                          capture_output=True, text=True).stdout
    rows = tile_rows(isa)
    name = f"attnviz::kernels::{isa}::micro<{rows}ul, attnviz::kernels::{isa}::no_side>"
    lines, inside = [], False
    for row in text.splitlines():
        if row and not row[0].isspace():
            if inside:
                break
            inside = name in row
            continue
        match = LINE.match(row)
        if inside and match:
            lines.append((int(match.group(1), 16), re.sub(r"\s*<.*>$", "", match.group(2))))
    if not lines:
        fail(f"{name} not found in {obj}")
    return lines


def innermost_loop(lines):
    """Of the loops holding no other loop (a backward branch and the range it closes), the one
    whose instructions are most often FMAs (the k loop: the epilogue's paths also branch back
    over FMAs, more thinly): its instructions, the branch aimed at .Lstep."""
    index = {address: i for i, (address, _) in enumerate(lines)}
    loops = []
    for i, (_, instruction) in enumerate(lines):
        match = BRANCH.match(instruction)
        if match and index.get(int(match.group(2), 16), i) < i:
            loops.append((index[int(match.group(2), 16)], i, match.group(1)))
    best = None
    for start, end, branch in loops:
        if any(start <= s and e < end for s, e, _ in loops):
            continue
        body = [text for _, text in lines[start:end]]
        fmas = sum(text.startswith("vfmadd") for text in body)
        if fmas and (best is None or fmas / len(body) > best[0] / len(best[1])):
            best = (fmas, body + [f"{branch} .Lstep"])
    if best is None:
        fail("no loop with FMAs in the micro-kernel")
    return best


def cycles_per_step(mca, cpu, body, iterations=1000):
    source = ".Lstep:\n" + "\n".join(body) + "\n"
    out = subprocess.run([mca, f"-mcpu={cpu}", f"-iterations={iterations}"], input=source,
                         check=True, capture_output=True, text=True).stdout
    total = re.search(r"Total Cycles:\s+(\d+)", out)
    if not total:
        fail(f"llvm-mca gave no cycle count for {cpu}")
    return int(total.group(1)) / iterations


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--isa", choices=sorted(DEFAULT_CPUS), default="avx512")
    parser.add_argument("--mcpu", help="comma-separated llvm-mca CPU models")
    parser.add_argument("--json", action="store_true", help="one JSON line for each model")
    args = parser.parse_args()
    mca = shutil.which("llvm-mca") or shutil.which("llvm-mca-14")
    if not mca:
        fail("llvm-mca not found (apt-get install llvm-14)")
    obj = object_file(args.build, args.isa)
    fmas, body = innermost_loop(function_lines(obj, args.isa))
    loads = sum("(" in text and not text.startswith(("lea", "prefetch")) for text in body)
    for cpu in (args.mcpu or DEFAULT_CPUS[args.isa]).split(","):
        cycles = cycles_per_step(mca, cpu, body)
        row = {"isa": args.isa, "mcpu": cpu, "instructions": len(body), "fmas": fmas,
               "loads": loads, "cycles_per_step": round(cycles, 3), "fma_bound": fmas / 2,
               "of_fma_bound": round(fmas / 2 / cycles, 4)}
        if args.json:
            print(json.dumps(row))
        else:
            print(f"{args.isa} on {cpu}: {len(body)} instructions a step ({fmas} FMAs, {loads} "
                  f"loads), {cycles:.2f} cycles against the FMA bound of {fmas / 2:g}: "
                  f"{100 * fmas / 2 / cycles:.1f} %")


if __name__ == "__main__":
    main()
