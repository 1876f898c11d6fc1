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
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import read_safetensors, write_safetensors  # noqa: E402
from harness import import_numpy, main  # noqa: E402

np = import_numpy()
TEXT = "The Cat sat on the mat because zzqx was tired"  # 10 tokens, one out of vocabulary


RUNS = [0]  # one count for every walker, so each run has a folder of its own


class Walker:
    def __init__(self, env):
        self.env = env
        self.count = 0

    def run(self, argv, expect=0, extra_env=None, stdin=None):
        """Runs argv ({d}: a fresh folder); returns (signature, stdout, stderr, folder)."""
        self.count += 1
        RUNS[0] += 1
        d = self.env.path(f"w{RUNS[0]}")
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


TIMED = re.compile(r"(_s|gflops|_mib|per_s)$")


def normal(stdout):
    """Standard output without what changes from run to run: in JSON (bench), the timings and
    rates (keys ending in _s, gflops, _mib, per_s) read 0; the rest stays."""
    try:
        j = json.loads(stdout)
    except ValueError:
        return stdout

    def zero(x):
        if isinstance(x, dict):
            return {k: (0 if TIMED.search(k) else zero(v)) for k, v in x.items()}
        if isinstance(x, list):
            return [zero(v) for v in x]
        return x
    return json.dumps(zero(j), sort_keys=True)


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
            _, out, _, d = w.run(argv)
            path = os.path.join(d, "o.json")
            j = json.load(open(path)) if os.path.exists(path) else json.loads(out)
            if "variants" in j:  # compare
                return [[h["weights"] for h in v["heads"]] for v in j["variants"]]
            if "heads" in j and isinstance(j["heads"], list):  # run
                return [h["weights"] for h in j["heads"]]
            return j["weights"]  # explain --json
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
        "--hard": differs(["--context", "hard", "--temperature", "20", "--seed", "3"],
                          ["--hard", "argmax"]),
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
        "--head-view": differs(["--heads", "2"], ["--head-view", "max"]),
        **crop_flags(),
    }


def vector_flags():
    """--pdf, --dpi and --svg-text, for a run whose base writes a PNG."""
    return {"--pdf": differs([], ["--pdf", "{d}/o.pdf"]),
            "--dpi": differs([], ["--dpi", "300"]),
            "--svg-text": differs(["--svg", "{d}/o.svg"], ["--svg-text", "paths"])}


def crop_flags():
    return {"--rows": differs([], ["--rows", "1-3"]), "--cols": differs([], ["--cols", "0-2"])}


def look_flags():
    return {
        "--cmap": differs([], ["--cmap", "magma"]),
        "--scale": differs([], ["--scale", "log"]),
        "--vmin": differs([], ["--vmin", "0.1"]),
        "--vmax": differs([], ["--vmax", "0.5"]),
        "--annotate": differs([], ["--annotate", "off"]),
        "--cell": differs([], ["--cell", "30"]),
        "--title": differs([], ["--title", "A title"]),
        "--no-title": differs([], ["--no-title"]),
    }


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
             "--svg": differs([], ["--svg", "{d}/o.svg"]), **vector_flags(),
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


def test_compare(env):
    params = make_params(env, Walker(env))
    ids = "5,9,3,7,5,9,3,7,2,11"

    def model_mode(args_a, args_b):
        def check(w, base):
            m = ["compare", "--model", hf(env, "gpt2_f32"), "--ids", ids, "--json", "{d}/o.json"]
            a, *_ = w.run(m + args_a)
            b, *_ = w.run(m + args_b)
            assert a != b, (args_a, args_b)
        return check

    def weights_mode(w, base):
        npy = env.path("cmp-npy")
        if not os.path.exists(npy):
            env.run("model", "--model", hf(env, "gpt2_f32"), "--ids", ids, "--npy", npy, "-q")
        a, *_ = w.run(["compare", "--weights", os.path.join(npy, "attention.npy"), "--json", "{d}/o.json"])
        b, *_ = w.run(["compare", "--weights", os.path.join(npy, "attention.npy"), "--json", "{d}/o.json",
                       "--layer", "1"])
        assert a != b

    def key(w, base):
        weights_mode(w, base)  # makes cmp-npy
        npz = env.path("cmp.npz")
        a = np.load(os.path.join(env.path("cmp-npy"), "attention.npy"))
        np.savez(npz, first=a, second=a[::-1].copy())
        x, *_ = w.run(["compare", "--weights", npz, "--key", "first", "--json", "{d}/o.json"])
        y, *_ = w.run(["compare", "--weights", npz, "--key", "second", "--json", "{d}/o.json"])
        assert x != y

    table = {**input_flags(), **variant_flags(params), **view_flags(), **look_flags(),
             "--merge-subwords": lambda w, base: (lambda i: pair(
                 base[:i] + ["--tokens", "the cat play ##ed"] + base[i + 2:],
                 base[:i] + ["--tokens", "the cat play ##ed", "--merge-subwords"] + base[i + 2:])(
                 w, []))(base.index("--text")),
             "--scores": differs([], ["--scores", "dot,cosine"]),
             "--align": swap("--aligns", ["--align", "sparsemax", "--scores", "dot,cosine"]),
             "--aligns": swap("--aligns", ["--aligns", "softmax,hardmax"]),
             "--contexts": differs([], ["--contexts", "soft,hard"]),
             "--panel-cols": differs(["--scores", "dot,cosine,general"], ["--panel-cols", "1"]),
             "--scale": differs(["--scores", "dot,cosine"], ["--scale", "panel"]),
             "--model": model_mode([], ["--layer", "1"]),
             "--ids": lambda w, base: swap("--ids", ["--ids", "1,2,3,4"])(
                 w, ["compare", "--model", hf(env, "gpt2_f32"), "--ids", ids, "--json", "{d}/o.json"]),
             "--weights": weights_mode,
             "--key": key,
             "--between": model_mode([], ["--between", "layers"]),
             "--layer": model_mode([], ["--layer", "1"]),
             "--quiet": lambda w, base: quiets(["-q"][:0])(w, ["compare", "--model", hf(env, "gpt2_f32"),
                                                             "--ids", ids]),
             "--json": given("base"), "--png": given("base"),
             "--svg": differs([], ["--svg", "{d}/o.svg"]), **vector_flags(),
             "--html": differs([], ["--html", "{d}/o.html"])}
    table["--max-memory"] = fails(["--max-memory", "1"], ["--max-memory"])
    # an encoder-decoder's stacks: the decoder's heads, or the cross heads ranked against a gold
    t5 = ["compare", "--model", os.path.join(env.data, "seq2seq", "t5_f32_tied"), "--text",
          " ".join(f"t{i}" for i in range(3, 13)), "--target", "t9 t8 t7 t6", "--json", "{d}/o.json", "-q"]
    gold = env.path("compare-gold.txt")
    with open(gold, "w") as f:
        f.write("0-0 1-1 2-2 3?3\n")
    table["--stack"] = lambda w, b: differs([], ["--stack", "decoder"])(w, t5)
    table["--gold"] = lambda w, b: differs([], ["--stack", "cross", "--gold", gold])(w, t5)
    table["--target-ids"] = lambda w, b: swap("--target", ["--target-ids", "9,8,7"])(w, t5 + ["--stack", "decoder"])

    def window(w, base):  # --aligns replaces --align here
        i = base.index("--aligns")
        local = base[:i] + ["--aligns", "local-m,local-p"] + base[i + 2:]
        pair(["--window", "1"], ["--window", "3"])(w, local)
    table["--window"] = window
    walk(env, "compare", ["compare", "--text", TEXT, "-e", env.embeddings, "--json", "{d}/o.json",
                          "--png", "{d}/o.png", "--aligns", "softmax,sparsemax"], table)


def test_explain(env):
    params = make_params(env, Walker(env))
    ids = "5,9,3,7,5,9,3,7,2,11"
    model = ["explain", "--model", hf(env, "gpt2_f32"), "--ids", ids]

    def on_model(args_a, args_b, base_args=None):
        def check(w, base):
            m = base_args or model
            a, *_ = w.run(m + args_a)
            b, *_ = w.run(m + args_b)
            assert a != b, (args_a, args_b)
        return check

    table = {**input_flags(), **variant_flags(params),
             "--query": swap("--query", ["--query", "tired"]),
             "--head": differs(["--heads", "2"], ["--head", "1"]),
             "--top": differs([], ["--top", "5"]),
             "--vocabulary": differs([], ["--vocabulary", "100"]),
             "--json": differs([], ["--json"]),
             "--model": given("the neuron view's base"),
             "--layer": on_model([], ["--layer", "1"]),
             "--ids": lambda w, base: swap("--ids", ["--ids", "1,2,3"])(w, model),
             "--png": on_model([], ["--png", "{d}/n.png"]),
             "--svg": on_model([], ["--svg", "{d}/n.svg"]),
             "--pdf": on_model([], ["--pdf", "{d}/n.pdf"]),
             "--dpi": on_model(["--png", "{d}/n.png"], ["--png", "{d}/n.png", "--dpi", "300"]),
             "--svg-text": on_model(["--svg", "{d}/n.svg"], ["--svg", "{d}/n.svg", "--svg-text",
                                                             "paths"]),
             "--html": on_model([], ["--html", "{d}/n.html"]),
             "--quiet": lambda w, base: quiets([])(w, model)}
    table["--max-memory"] = fails(["--max-memory", "1"], ["--max-memory"])
    # --head counts from 0, with word vectors as with --model
    table["--head"] = lambda w, base: (differs(["--heads", "2"], ["--head", "1"])(w, base),
                                       on_model([], ["--head", "3"])(w, base))
    table["--params-prefix"] = lambda w, base: same_weights(
        ["--project", "--params", params["prefixed"], "--params-prefix", "layer.0."],
        ["--project", "--params", params["plain"]])(w, base + ["--json"])
    # the query must be a target token in cross attention
    table["--source"] = swap("--text", ["--source", "the cat sat on the mat", "--target", "it sat"])
    table["--target"] = swap("--text", ["--target", "it sat there", "--source", "the mat"])
    walk(env, "explain", ["explain", "--text", TEXT, "-e", env.embeddings, "--query", "sat"], table)


def test_transformer(env):
    params = {}
    plain = env.path("t.safetensors")
    env.run("transformer", "--source", "the cat sat", "--target", "where is it", "-e",
            env.embeddings, "--seed", "5", "--params-out", plain)
    params["plain"] = plain
    prefixed = env.path("tprefixed.safetensors")
    write_safetensors(prefixed, {"model." + k: v for k, v in read_safetensors(plain).items()})
    variants = variant_flags({"plain": plain, "prefixed": prefixed})
    variants["--params"] = differs([], ["--params", plain])
    variants["--params-prefix"] = lambda w, base: (
        w.run(base + ["--params", prefixed, "--params-prefix", "model."]),
        w.run(base + ["--params", prefixed], expect=2))
    variants["--position"] = differs([], ["--position", "none"])
    del variants["--project"]  # every attention of transformer projects
    variants["--dk"] = differs([], ["--dk", "10"])
    variants["--seed"] = differs([], ["--seed", "9"])
    inputs = input_flags()
    table = {k: v for k, v in inputs.items() if k not in ("--text", "--tokens", "--values")}
    table["--source"] = given("base")
    table["--target"] = given("base")
    table.update(variants)
    table.update({k: v for k, v in view_flags().items() if k not in crop_flags()})
    table.update(look_flags())

    def layer(w, base):
        import importlib
        state = env.path("nnt.safetensors")
        d = 50
        rng = np.random.default_rng(3)
        tensors = {}
        for k in range(2):
            for stack, names in (("encoder", ["self_attn"]), ("decoder", ["self_attn", "multihead_attn"])):
                for name in names:
                    p = f"{stack}.layers.{k}.{name}."
                    tensors[p + "in_proj_weight"] = rng.normal(0, 0.3, (3 * d, d))
                    tensors[p + "in_proj_bias"] = np.zeros(3 * d)
                    tensors[p + "out_proj.weight"] = rng.normal(0, 0.3, (d, d))
                    tensors[p + "out_proj.bias"] = np.zeros(d)
        write_safetensors(state, tensors)
        a, *_ = w.run(base + ["--params", state, "--layer", "0"])
        b, *_ = w.run(base + ["--params", state, "--layer", "1"])
        assert a != b
    table["--layer"] = layer
    table.update({"--json": given("base"), "--png": given("base"),
                  "--svg": differs([], ["--svg", "{d}/o.svg"]), **vector_flags(),
                  "--params-out": differs([], ["--params-out", "{d}/p.safetensors"])})
    table["--max-memory"] = fails(["--max-memory", "1K"], ["--max-memory"])
    walk(env, "transformer", ["transformer", "--source", "the Cat sat on the zzqx", "--target",
                              "where is the cat", "-e", env.embeddings, "--json", "{d}/o.json",
                              "--png", "{d}/o.png"], table)


def test_aoa_and_han(env):
    aoa = {**{k: v for k, v in input_flags().items()
              if k in ("--keep-case", "--embeddings", "--cache", "--cache-dir", "--oov")},
           **look_flags(),
           "--max-memory": fails(["--max-memory", "1K"], ["--max-memory"]),
           "--document": given("base"), "--query": swap("--query", ["--query", "is the cat here"]),
           "--top": differs([], ["--top", "1"]),
           "--json": given("base"), "--png": given("base"),
           "--svg": differs([], ["--svg", "{d}/o.svg"]), **vector_flags()}
    walk(env, "aoa", ["aoa", "--document", "The Cat sat on the mat because zzqx was tired",
                      "--query", "where was the cat", "-e", env.embeddings, "--json", "{d}/o.json",
                      "--png", "{d}/o.png"], aoa)
    han_params = env.path("han.safetensors")
    docs = env.path("docs.txt")
    with open(docs, "w") as f:
        f.write("The Cat sat.\n\nzzqx was tired!\nWhere is it?\n")
    env.run("han", "--document", "A b. C d.", "-e", env.embeddings, "--seed", "4", "--params-out",
            han_params)
    han = {**{k: v for k, v in input_flags().items()
              if k in ("--keep-case", "--embeddings", "--cache", "--cache-dir", "--oov")},
           "--max-memory": fails(["--max-memory", "1K"], ["--max-memory"]),
           "--document": given("base"),
           "--file": swap("--document", ["--file", docs]),
           "--seed": differs([], ["--seed", "9"]),
           "--params": differs([], ["--params", han_params]),
           "--cmap": differs([], ["--cmap", "magma"]),
           "--text-scale": differs([], ["--text-scale", "2"]),
           "--json": given("base"), "--png": given("base"),
           "--svg": differs([], ["--svg", "{d}/o.svg"]), **vector_flags(),
           "--params-out": differs([], ["--params-out", "{d}/p.safetensors"])}
    han["--max-memory"] = fails(["--max-memory", "1"], ["--max-memory"])
    walk(env, "han", ["han", "--document", "The Cat sat. zzqx was tired! Where is it?", "-e",
                      env.embeddings, "--json", "{d}/o.json", "--png", "{d}/o.png"], han)


def maps_view_table():
    return {"--view": differs([], ["--view", "model"]),
            "--layers": differs(["--view", "model"], ["--layers", "1"]),
            "--heads": differs(["--view", "model"], ["--heads", "0,2"]),
            "--scale": differs(["--view", "model"], ["--scale", "panel"]),
            "--layer": differs([], ["--layer", "1"]),
            "--head": differs([], ["--head", "2"]),
            **look_flags(),
            **crop_flags(),
            "--term": differs([], ["--term"]),
            "--png": given("base"),
            "--svg": differs([], ["--svg", "{d}/o.svg"]), **vector_flags(),
            "--html": differs([], ["--html", "{d}/o.html"]),
            "--npy": differs(["--view", "mean"], ["--npy", "{d}/n"]),
            "--head-fusion": differs(["--view", "rollout"], ["--head-fusion", "max"]),
            "--discard-ratio": differs(["--view", "rollout"], ["--discard-ratio", "0.5"])}


def test_model_heads_and_draw(env):
    ids = "5,9,3,7,5,9,3,7,2,11"
    folder = hf(env, "gpt2_f32")
    base = ["model", "--model", folder, "--ids", ids, "--png", "{d}/o.png"]
    table = {**maps_view_table(),
             "--model": given("base"),
             "--text": pair(["--view", "head"], ["--view", "head"]) if False else
             (lambda w, b: (lambda a, c: None)(0, 0)),
             "--ids": swap("--ids", ["--ids", "1,2,3"]),
             "--max-memory": fails(["--max-memory", "1K"], ["--max-memory"]),
             "--name-heads": differs(["--view", "model"], ["--name-heads"]),
             "--top-k": differs([], ["--top-k", "3"]),
             "--measure": differs([], ["--measure", "norms"]),
             "--logit-lens": differs(["--npy", "{d}/n"], ["--logit-lens"]),
             "--json": differs([], ["--json", "{d}/o.json"]),
             "--npy-layers": differs(["--npy", "{d}/n"], ["--npy-layers", "1"]),
             "--npy-heads": differs(["--npy", "{d}/n"], ["--npy-heads", "0,2"]),
             "--quiet": quiets([])}

    def text(w, b):
        tok = hf(env, "bert_f32")  # has a vocab.txt to read text with
        x, *_ = w.run(["model", "--model", tok, "--text", "w1 w2 w3", "--png", "{d}/o.png"])
        y, *_ = w.run(["model", "--model", tok, "--text", "w3 w2", "--png", "{d}/o.png"])
        assert x != y
    table["--text"] = text
    # the encoder-decoder flags, on a BART checkpoint (teacher forcing or generation)
    s2s = ["model", "--model", os.path.join(env.data, "seq2seq", "bart_f32"), "--ids", "5,6,7",
           "--npy", "{d}/n", "-q"]
    table["--target-ids"] = lambda w, b: differs([], ["--target-ids", "9,8,7,6"])(w, s2s)
    table["--max-new"] = lambda w, b: differs([], ["--max-new", "3"])(w, s2s)
    table["--target"] = lambda w, b: differs([], ["--target", "t9 t8"])(w, s2s)
    t5 = ["model", "--model", os.path.join(env.data, "seq2seq", "t5_f32_tied"), "--text",
          " ".join(f"t{i}" for i in range(3, 23)), "--target", "t9 t8 t7 t6 t5 t4", "-q"]
    gold = env.path("flags-gold.txt")
    with open(gold, "w") as f:
        f.write("0-0 1-1 2-2\n")
    table["--stack"] = lambda w, b: differs(["--png", "{d}/o.png"], ["--stack", "encoder"])(w, s2s)
    table["--align"] = lambda w, b: differs([], ["--align", "{d}/a.txt"])(w, t5)
    table["--align-method"] = lambda w, b: differs(["--align", "{d}/a.txt"],
                                                   ["--align-method", "intersect"])(w, t5)
    table["--gold"] = lambda w, b: differs([], ["--gold", gold])(w, t5)
    # generation, on the causal checkpoint
    sampled = ["--generate", "5", "--sample"]
    table["--generate"] = differs([], ["--generate", "3"])
    table["--sample"] = differs(["--generate", "5"], ["--sample"])
    table["--temperature"] = pair(sampled + ["--temperature", "0.5"], sampled + ["--temperature", "3"])
    table["--top-p"] = pair(sampled + ["--top-p", "0.05"], sampled + ["--top-p", "1"])
    table["--seed"] = pair(sampled + ["--seed", "1"], sampled + ["--seed", "2"])
    table["--stop"] = differs(["--generate", "5"], ["--stop", "t"])  # every token is "tN"
    # vision models: a picture instead of a text
    vit = os.path.join(env.data, "vision", "vit_f32_classifier")
    vision = ["model", "--model", vit, "--image", os.path.join(vit, "picture.png"), "--view",
              "overlay", "--png", "{d}/o.png", "-q"]
    other = os.path.join(env.data, "vision", "deit_f16_teacher", "picture.png")
    table["--image"] = lambda w, b: swap("--image", ["--image", other])(w, vision)
    table["--alpha"] = lambda w, b: differs([], ["--alpha", "0.2"])(w, vision)
    # a list of pictures (--images): one folder of files per picture
    one, two = env.path("flags-one.txt"), env.path("flags-two.txt")
    open(one, "w").write(os.path.join(vit, "picture.png") + "\n")
    open(two, "w").write(other + "\n")
    batch = ["model", "--model", vit, "--out-dir", "{d}/b", "-q"]
    table["--images"] = lambda w, b: pair(["--images", one], ["--images", two])(w, batch)
    table["--out-dir"] = given("--images")
    table["--formats"] = lambda w, b: differs([], ["--formats", "png,npy"])(w, batch + ["--images", one])

    def resume(w, b):
        _, _, _, d = w.run(batch + ["--images", one])
        argv = [a.replace("{d}", d) for a in batch + ["--images", one, "--resume"]]
        proc = subprocess.run([env.exe, *argv], capture_output=True, text=True)
        assert proc.returncode == 0 and "already done (--resume)" in proc.stdout, proc.stdout
    table["--resume"] = resume
    walk(env, "model", base, table)

    heads_base = ["heads", "--model", folder, "--json", "{d}/o.json"]
    heads = {"--model": given("base"),
             "--text": lambda w, b: text_heads(w, env),
             "--ids": differs([], ["--ids", ids]),
             "--period": differs([], ["--period", "7"]),
             "--seed": differs([], ["--seed", "3"]),
             "--threshold": differs([], ["--threshold", "0.05"]),
             "--top": differs([], ["--top", "1"]),
             "--stack": lambda w, b: differs([], ["--stack", "encoder"])(
                 w, ["heads", "--model", os.path.join(env.data, "seq2seq", "bart_f32"), "--period", "12",
                     "--json", "{d}/o.json"]),
             "--json": given("base"),
             "--quiet": quiets([])}
    walk(env, "heads", heads_base, heads)

    npy = env.path("draw-npy")
    env.run("model", "--model", folder, "--ids", ids, "--npy", npy, "-q")
    npz = env.path("draw.npz")
    a = np.load(os.path.join(npy, "attention.npy"))
    np.savez(npz, first=a, second=a[::-1].copy())
    draw = {**maps_view_table(),
            "--weights": given("base"),
            "--key": pair(["--weights", npz, "--key", "first"], ["--weights", npz, "--key", "second"]),
            "--tokens": differs([], ["--tokens", os.path.join(npy, "tokens.json")]),
            "--causal": differs([], ["--causal", "off"]),
            "--max-memory": fails(["--max-memory", "1K"], ["--max-memory"])}
    cross = env.path("draw-cross")
    env.run("model", "--model", os.path.join(env.data, "seq2seq", "bart_f32"), "--text", "t5 t6 t7",
            "--target", "t9 t8", "--npy", cross, "-q")
    draw["--key-tokens"] = lambda w, b: differs(
        ["--weights", os.path.join(cross, "cross_attention.npy"), "--tokens",
         os.path.join(cross, "target_tokens.json"), "--key-tokens", os.path.join(cross, "source_tokens.json")],
        ["--view", "alignment"])(w, ["draw", "--png", "{d}/o.png"])
    draw_base = ["draw", "--png", "{d}/o.png"]
    walk(env, "draw", draw_base + ["--weights", os.path.join(npy, "attention.npy")],
         {k: (v if k != "--key" else
              (lambda w, b: pair(["--weights", npz, "--key", "first"],
                                 ["--weights", npz, "--key", "second"])(w, draw_base)))
          for k, v in draw.items()})


def text_heads(w, env):
    tok = hf(env, "bert_f32")
    x, *_ = w.run(["heads", "--model", tok, "--json", "{d}/o.json"])
    y, *_ = w.run(["heads", "--model", tok, "--json", "{d}/o.json", "--text", "w1 w2 w3"])
    assert x != y


def test_demo_bench_and_the_rest(env):
    demo = {"--out-dir": given("base"),
            "--samples": lambda w, b: samples_flag(w, env, b),
            "--seed": differs([], ["--seed", "3"])}
    walk(env, "demo", ["demo", "--out-dir", "{d}/demo"], demo)
    bench_base = ["bench", "--n", "16", "--reps", "1", "--warmup", "0"]
    bench = {**{k: v for k, v in variant_flags({"plain": make_params(env, Walker(env))["plain"],
                                                "prefixed": ""}).items()}}
    bench.update({"--n": swap("--n", ["--n", "8"]), "--nk": differs([], ["--nk", "8"]),
                  "--d": differs([], ["--d", "96"]),
                  "--no-scores": differs([], ["--no-scores"]),
                  "--warmup": swap("--warmup", ["--warmup", "1"]),
                  "--reps": swap("--reps", ["--reps", "2"]),
                  "--stream": differs([], ["--stream", "8"]),
                  "--png": differs(["--stream", "8"], ["--png"]),
                  "--quiet": lambda w, b: quiets([])(w, ["bench", "--n", "4096", "--reps", "1",
                                                        "--warmup", "0", "--stream", "8", "--d",
                                                        "48", "--heads", "1"]),
                  "--model": lambda w, b: w.run(["bench", "--model", hf(env, "gpt2_f32"), "--n", "8",
                                                 "--reps", "1"]),
                  "--params": given("bench reads --params like run"),
                  "--params-prefix": given("bench reads --params-prefix like run"),
                  "--seed": differs(["--score", "additive"], ["--seed", "9"])})
    product = ["bench", "--product", "8x16x8", "--rounds", "1", "--warmup", "0"]
    bench.update({"--product": lambda w, b: swap("--product", ["--product", "8x16x24"])(w, product),
                  "--weights": lambda w, b: differs([], ["--weights", "bf16"])(w, product),
                  "--blocking": lambda w, b: differs([], ["--blocking", "panels=1"])(w, product),
                  "--rounds": lambda w, b: swap("--rounds", ["--rounds", "2"])(w, product)})
    walk(env, "bench", bench_base, bench)
    for command in ("list", "man", "completion"):
        walk(env, command, [command], {})


def samples_flag(w, env, base):
    copy = env.path("samples-copy")
    if not os.path.exists(copy):
        shutil.copytree(env.samples, copy)
        with open(os.path.join(copy, "sentences.txt"), "a") as f:
            f.write("one more sentence about the weather\n")
    a, *_ = w.run(base)
    b, *_ = w.run(base + ["--samples", copy])
    assert a != b


if __name__ == "__main__":
    sys.exit(main(globals()))
