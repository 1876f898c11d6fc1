#!/usr/bin/env python3
"""Every command's outputs are the bytes recorded in tests/golden/manifest.json.

The golden corpus (tests/golden/commands.txt) covers PNG, SVG, JSON, .npy, HTML, safetensors
and standard output for every subcommand; a change that is meant to keep outputs (a refactor)
must leave every hash as it is. Hashes are of a generic-ISA, 1-thread run."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "golden"))
from golden import HERE as GOLDEN, run_corpus  # noqa: E402
from harness import main  # noqa: E402


def test_outputs_match_the_manifest(env):
    with open(os.path.join(GOLDEN, "manifest.json"), encoding="utf-8") as f:
        want = json.load(f)
    got = run_corpus(env.exe, env.samples, env.path("golden"))
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    changed = sorted(k for k in set(want) & set(got) if want[k] != got[k])
    assert not (missing or extra or changed), (
        f"missing: {missing[:10]}\nnew: {extra[:10]}\nchanged ({len(changed)}): {changed[:20]}")


if __name__ == "__main__":
    sys.exit(main(globals()))
