#!/usr/bin/env python3
"""Rewrites tests/golden/manifest.json from a build: every golden command's output hashes.

    /usr/bin/python3 tests/golden/make_manifest.py --exe build/attn-viz --samples samples

Run it only when an output is meant to change, and say in the commit which and why."""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden import HERE, run_corpus  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--exe", required=True)
    p.add_argument("--samples", required=True)
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="attnviz-golden-") as work:
        hashes = run_corpus(a.exe, a.samples, work)
    with open(os.path.join(HERE, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(hashes, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(hashes)} files hashed into {os.path.join(HERE, 'manifest.json')}")


if __name__ == "__main__":
    main()
