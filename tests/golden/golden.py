"""The golden corpus (commands.txt): runs every command and hashes what it wrote.

Shared by tests/e2e/test_golden.py (compares with manifest.json) and make_manifest.py (writes
it). Each command runs in its own empty folder, with copies of the samples' input files in in/
(left out of the hashes), as `attn-viz --isa generic --threads 1 ARGS`; every file it leaves
there is hashed (SHA-256), and its standard output as stdout.txt. A command must exit 0."""
import hashlib
import os
import shlex
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = ("sentences.txt", "pairs.tsv", "document.txt")


def commands():
    """(name, args) for every line of commands.txt."""
    out = []
    with open(os.path.join(HERE, "commands.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, rest = line.split(None, 1)
            out.append((name, shlex.split(rest)))
    return out


def run_corpus(exe, samples, work):
    """{"name/relative/path": sha256 hex} for every command's outputs."""
    hashes = {}
    for name, args in commands():
        folder = os.path.join(work, name)
        os.makedirs(os.path.join(folder, "in"))
        for f in INPUTS:
            shutil.copy(os.path.join(samples, f), os.path.join(folder, "in", f))
        proc = subprocess.run([os.path.abspath(exe), "--isa", "generic", "--threads", "1", *args],
                              cwd=folder, capture_output=True, timeout=600,
                              stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise AssertionError(f"{name}: exit {proc.returncode}: "
                                 f"{proc.stderr.decode('utf-8', 'replace')}")
        hashes[f"{name}/stdout.txt"] = hashlib.sha256(proc.stdout).hexdigest()
        for root, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if os.path.join(root, d) != os.path.join(folder, "in")]
            for f in files:
                if f == ".attn-viz-journal.jsonl":  # its record order follows completion
                    continue
                path = os.path.join(root, f)
                with open(path, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
                hashes[f"{name}/{os.path.relpath(path, folder)}"] = digest
    return dict(sorted(hashes.items()))
