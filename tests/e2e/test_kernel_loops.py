"""The register tile's k loop, as built, schedules at the FMA bound (bench/kernel_loop_bound.py:
llvm-mca on the loop taken from the object file). Not a timing: the same object gives the same
cycles on any host, so a spill, a reload of B or a chain between steps that a compiler or an
edit brings into the loop fails here on every machine. Needs llvm-mca (Debian's llvm-14) and
objdump; skipped without them unless ATTNVIZ_REQUIRE_LLVM_MCA is set, and on a sanitized build
(its loads are checked, so its loop is not the one users run)."""
import json
import os
import re
import shutil
import subprocess
import sys

from harness import Skipped, main, sanitized

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "bench", "kernel_loop_bound.py")


def tile_shape(isa):
    """(MR, NV) as lib/kernels/kernels_<isa>.cpp defines them."""
    with open(os.path.join(ROOT, "lib", "kernels", f"kernels_{isa}.cpp"), encoding="utf-8") as f:
        text = f.read()
    return tuple(int(re.search(rf"#define ATTNVIZ_GEMM_{name} (\d+)", text).group(1))
                 for name in ("MR", "NV"))


def built_isas(build):
    found = []
    for isa in ("avx512", "avx2"):
        for root, _, files in os.walk(os.path.join(build, "lib", "CMakeFiles")):
            if f"kernels_{isa}.cpp.o" in files:
                found.append(isa)
                break
    return found


def tools_or_skip(env):
    missing = [tool for tool in ("objdump",) if not shutil.which(tool)]
    if not (shutil.which("llvm-mca") or shutil.which("llvm-mca-14")):
        missing.append("llvm-mca")
    if missing and not os.environ.get("ATTNVIZ_REQUIRE_LLVM_MCA"):
        raise Skipped(f"{', '.join(missing)} not installed (Debian: apt-get install llvm-14)")
    assert not missing, f"{missing} required here (ATTNVIZ_REQUIRE_LLVM_MCA)"
    if sanitized(env.exe):
        raise Skipped("a sanitized build's loop checks its loads")


def test_each_isas_k_loop_schedules_at_the_fma_bound(env):
    tools_or_skip(env)
    build = os.path.dirname(os.path.abspath(env.exe))
    isas = built_isas(build)
    if not isas:
        raise Skipped("no x86 kernels in this build")
    for isa in isas:
        rows, vectors = tile_shape(isa)
        out = subprocess.run([sys.executable, SCRIPT, "--build", build, "--isa", isa, "--json"],
                             check=True, capture_output=True, text=True).stdout
        models = [json.loads(line) for line in out.splitlines()]
        assert len(models) >= 3, out
        for m in models:
            # one FMA for each accumulator, one load for each vector of B and each row of A
            assert m["fmas"] == rows * vectors, (isa, m)
            assert m["loads"] == rows + vectors, (isa, m)
            assert m["cycles_per_step"] >= m["fma_bound"] - 1e-9, (isa, m)
            assert m["of_fma_bound"] >= 0.97, (isa, m)


def test_a_missing_build_is_a_clear_error(env):
    tools_or_skip(env)
    proc = subprocess.run([sys.executable, SCRIPT, "--build", env.path("no-build")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "build the project first" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


if __name__ == "__main__":
    sys.exit(main(globals()))
