#!/usr/bin/env python3
"""Every flag a command's --help lists does something for that command.

For each command the test reads the flags --help lists and requires an entry for each in the
table below: the flag is tried in a run where it must change what the command writes (its
files and standard output, compared byte for byte with the same run without it), or must fail
with a message naming it, or has a check of its own (--quiet silences stderr, --cache fills the
cache folder, ...). A flag added to a command without an entry here, or an entry for a flag the
command no longer lists, fails the test."""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, main  # noqa: E402

np = import_numpy()
TEXT = "The Cat sat on the mat because zzqx was tired"  # 10 tokens, one out of vocabulary


class Walker:
    def __init__(self, env):
        self.env = env
        self.count = 0

    def run(self, argv, expect=0, extra_env=None, stdin=None):
        """Runs argv ({d}: a fresh folder); returns (signature, stdout, stderr, folder)."""
        self.count += 1
        d = self.env.path(f"w{self.count}")
        os.makedirs(d)
        argv = [a.replace("{d}", d) for a in argv]
        env = dict(os.environ, ATTNVIZ_CACHE_DIR=os.path.join(d, "cache"), **(extra_env or {}))
        proc = subprocess.run([self.env.exe, *argv], capture_output=True, env=env, timeout=300,
                              input=stdin.encode() if stdin is not None else None,
                              stdin=None if stdin is not None else subprocess.DEVNULL)
        out = proc.stdout.decode("utf-8", "replace").replace(d, "{d}")
        err = proc.stderr.decode("utf-8", "replace").replace(d, "{d}")
        if expect is not None and proc.returncode != expect:
            raise AssertionError(f"exit {proc.returncode}, expected {expect}: {argv}\n{err}")
        files = []
        for path in sorted(glob.glob(os.path.join(d, "**"), recursive=True)):
            if os.path.isfile(path) and "/cache/" not in path:
                files.append((os.path.relpath(path, d), open(path, "rb").read()))
        return (normal(out), tuple(files)), out, err, d


def normal(stdout):
    """Standard output without what changes from run to run (timings, rates)."""
    try:
        j = json.loads(stdout)
    except ValueError:
        return stdout
    for k in ("total_s", "stages_s", "gflops", "gflop_s", "seconds", "times_s", "threads", "isa"):
        j.pop(k, None) if isinstance(j, dict) else None
    return json.dumps(j, sort_keys=True)


def differs(ctx, args):
    def check(w, base):
        a, *_ = w.run(base + ctx)
        b, *_ = w.run(base + ctx + args)
        assert a != b, f"{args} changed nothing in {base + ctx}"
    return check


def pair(args_a, args_b):
    """base + args_a and base + args_b (the flag at two values) write different things."""
    def check(w, base):
        a, *_ = w.run(base + args_a)
        b, *_ = w.run(base + args_b)
        assert a != b, (args_a, args_b)
    return check


def swap(flag, args):
    """The base with `flag VALUE` replaced by args: succeeds and writes something else."""
    def check(w, base):
        i = base.index(flag)
        other = base[:i] + args + base[i + 2:]
        a, *_ = w.run(base)
        b, *_ = w.run(other)
        assert a != b, f"{args} instead of {flag} changed nothing"
    return check


def fails(args, words):
    def check(w, base):
        _, _, err, _ = w.run(base + args, expect=2)
        for word in words:
            assert word in err, (args, err)
    return check


def same_weights(args, other_args):
    """base + args gives the weights base + other_args gives (the same parameters said another
    way), which are not the base's; without the flag (args[:-2]) the run fails."""
    def check(w, base):
        def weights(argv):
            _, _, _, d = w.run(argv)
            return [h["weights"] for h in json.load(open(os.path.join(d, "o.json")))["heads"]]
        a, b, c = weights(base + args), weights(base + other_args), weights(base)
        assert a == b and a != c, args
        w.run(base + args[:-2], expect=2)
    return check


def quiets(ctx):
    """The command reports its progress on stderr (from the first update with
    ATTNVIZ_PROGRESS_AFTER=0); with -q it does not."""
    def check(w, base):
        now = {"ATTNVIZ_PROGRESS_AFTER": "0"}
        _, _, loud, _ = w.run(base + ctx, extra_env=now)
        _, _, hushed, _ = w.run(base + ctx + ["-q"], extra_env=now)
        assert "%" in loud and "%" not in hushed, (loud, hushed)
    return check


def caches(args):
    def check(w, base):
        _, _, _, d = w.run(base + args)
        found = glob.glob(os.path.join(d, "**", "*"), recursive=True)
        assert any(os.path.isfile(f) and ("cache" in f or "/c/" in f) for f in found), found
    return check


def given(_reason):
    def check(w, base):
        return
    return check


# ---- shared flag tables -------------------------------------------------------------------

def input_flags():
    return {
        "--text": given("the base's input"),
        "--tokens": swap("--text", ["--tokens", "the cat sat on the mat"]),
        "--source": swap("--text", ["--source", "the cat sat on the mat", "--target", "where is it"]),
        "--target": swap("--text", ["--target", "where is the cat", "--source", "the mat"]),
        "--values": differs([], ["--values", "a b c d e f g h i j"]),
        "--keep-case": differs([], ["--keep-case"]),
        "--embeddings": given("the base's vectors"),
        "--cache": caches(["--cache"]),
        "--cache-dir": caches(["--cache-dir", "{d}/c"]),
        "--oov": differs([], ["--oov", "zero"]),
        "--max-memory": fails(["--max-memory", "1K", "--no-stream"], ["--max-memory"]),
    }


def variant_flags(params):
    return {
        "--score": differs([], ["--score", "dot"]),
        "--align": differs([], ["--align", "sparsemax"]),
        "--context": differs([], ["--context", "hard"]),
        "--temperature": differs([], ["--temperature", "0.3"]),
        "--hard": differs(["--context", "hard"], ["--hard", "argmax"]),
        "--window": pair(["--align", "local-m", "--window", "1"], ["--align", "local-m", "--window", "3"]),
        "--mask": differs([], ["--mask", "causal"]),
        "--pad-keys": differs([], ["--pad-keys", "2"]),
        "--sharpen": differs(["--score", "cosine"], ["--sharpen", "4"]),
        "--project": differs([], ["--project"]),
        "--heads": differs([], ["--heads", "2"]),
        "--dk": differs(["--project"], ["--dk", "10"]),
        "--combine": differs(["--heads", "2"], ["--combine", "weighted"]),
        "--position": differs([], ["--position", "sinusoidal"]),
        "--alibi-slope": differs(["--position", "alibi"], ["--alibi-slope", "0.5"]),
        "--convs2s": differs([], ["--convs2s"]),
        "--da": differs(["--score", "additive"], ["--da", "7"]),
        "--seed": differs(["--project"], ["--seed", "9"]),
        "--params": differs(["--project"], ["--params", params["plain"]]),
        "--params-prefix": same_weights(["--project", "--params", params["prefixed"],
                                         "--params-prefix", "layer.0."],
                                        ["--project", "--params", params["plain"]]),
    }


def view_flags():
    return {
        "--show": differs([], ["--show", "scores"]),
        "--head-view": differs(["--heads", "2"], ["--head-view", "mean"]),
    }


def look_flags():
    return {
        "--cmap": differs([], ["--cmap", "magma"]),
        "--annotate": differs([], ["--annotate", "off"]),
        "--cell": differs([], ["--cell", "30"]),
    }


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, a in tensors.items():
        data = np.ascontiguousarray(a, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    return {k: np.frombuffer(data[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]],
                             dtype="<f4").reshape(v["shape"])
            for k, v in header.items() if k != "__metadata__"}


def make_params(env, walker):
    plain = env.path("p.safetensors")
    env.run("run", "-t", TEXT, "-e", env.embeddings, "--project", "--seed", "5", "--params-out", plain)
    prefixed = env.path("prefixed.safetensors")
    tensors = {"layer.0." + k: v for k, v in read_safetensors(plain).items()}
    tensors["layer.1.q_proj.weight"] = np.zeros((50, 50))
    write_safetensors(prefixed, tensors)
    return {"plain": plain, "prefixed": prefixed}


def help_flags(env, command):
    out, _ = env.run(command, "--help")
    options = out.split("\n\n")[1] if False else out
    names = set()
    for short, long in re.findall(r"^ {2}(-[A-Za-z],)?(--[a-z][a-z0-9-]*)", options, re.M):
        names.add(long)
    return names - {"--help"}


def walk(env, command, base, table):
    listed = help_flags(env, command)
    assert listed == set(table), (command, "listed, no entry:", sorted(listed - set(table)),
                                  "entry, not listed:", sorted(set(table) - listed))
    w = Walker(env)
    for flag, check in sorted(table.items()):
        try:
            check(w, base)
        except AssertionError as e:
            raise AssertionError(f"{command} {flag}: {e}") from None
    print(f"  {command}: {len(table)} flags, {w.count} runs")


def hf(env, name):
    return os.path.join(env.data, "hf", name)


def test_run(env):
    w0 = Walker(env)
    params = make_params(env, w0)
    lines = env.path("lines.txt")
    open(lines, "w").write("the cat sat on the mat\nwhere is the dog\n")
    bad = env.path("bad.txt")
    open(bad, "w").write("the cat sat\n\u00ff\udcff\n".encode("utf-8", "surrogateescape").decode("utf-8", "replace") if False else "the cat sat\nzzzq qqqz\n")
    batch = ["run", "--input", lines, "--out-dir", "{d}/b", "-e", env.embeddings]

    def batch_check(args_a, args_b):
        def check(w, base):
            a, *_ = w.run(batch + args_a)
            b, *_ = w.run(batch + args_b)
            assert a != b, (args_a, args_b)
        return check

    def resume(w, base):
        # a finished batch, run again with --resume: every line is skipped, said on stdout
        _, out, err, d = w.run(batch)
        argv = [a.replace("{d}", d) for a in batch]
        proc = subprocess.run([env.exe, *argv, "--resume"], capture_output=True, text=True)
        assert proc.returncode == 0 and ("skipped" in proc.stdout + proc.stderr or
                                         "resum" in proc.stdout + proc.stderr), proc.stdout
        again = subprocess.run([env.exe, *argv], capture_output=True, text=True)
        assert (proc.stdout, proc.stderr) != (again.stdout, again.stderr)

    def strict(w, base):
        w.run(["run", "--input", bad, "--out-dir", "{d}/b", "-e", env.embeddings, "--oov", "error"])
        w.run(["run", "--input", bad, "--out-dir", "{d}/b", "-e", env.embeddings, "--oov", "error",
               "--strict"], expect=2)

    def merge(w, base):
        a, *_ = w.run(["run", "--tokens", "the cat play ##ed", "-e", env.embeddings, "--json", "{d}/o.json"])
        b, *_ = w.run(["run", "--tokens", "the cat play ##ed", "-e", env.embeddings, "--json", "{d}/o.json",
                       "--merge-subwords"])
        assert a != b


    def no_stream(w, base):
        # 4,200 tokens: the full maps would pass --max-memory, so the run streams by itself;
        # --no-stream keeps every weight, so it stops
        long = " ".join(["the", "cat", "sat", "on", "mat", "a", "dog"] * 600)
        argv = ["run", "-t", "-", "-e", env.embeddings, "--png", "{d}/l.png", "--max-memory",
                "200M", "--pixels", "256"]
        w.run(argv, stdin=long)
        _, _, err, _ = w.run(argv + ["--no-stream"], stdin=long, expect=2)
        assert "--max-memory" in err

    table = {**input_flags(), **variant_flags(params), **view_flags(), **look_flags(),
             "--merge-subwords": merge,
             "--term": differs([], ["--term"]),
             "--json": given("base"), "--png": given("base"),
             "--svg": differs([], ["--svg", "{d}/o.svg"]),
             "--npy": differs([], ["--npy", "{d}/n"]),
             "--html": differs([], ["--html", "{d}/o.html"]),
             "--params-out": differs(["--project"], ["--params-out", "{d}/p.safetensors"]),
             "--stream": differs([], ["--stream"]),
             "--no-stream": no_stream,
             "--pixels": differs(["--stream"], ["--pixels", "4"]),
             "--pool": differs(["--stream", "--pixels", "4"], ["--pool", "max"]),
             "--quiet": lambda w, base: quiets([])(w, batch),
             "--input": given("batch"), "--out-dir": given("batch"),
             "--formats": batch_check([], ["--formats", "svg"]),
             "--resume": resume,
             "--strict": strict}
    walk(env, "run", ["run", "--text", TEXT, "-e", env.embeddings, "--json", "{d}/o.json", "--png",
                      "{d}/o.png"], table)


if __name__ == "__main__":
    sys.exit(main(globals()))
