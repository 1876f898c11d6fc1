#!/usr/bin/env python3
"""End-to-end tests of the attn-viz command line: outputs, determinism, errors, demo."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Skipped, main, png_size  # noqa: E402

SENTENCE = "the cat sat on the floor because it was tired"
SCORES = ["dot", "scaled_dot", "general", "additive", "concat", "cosine", "location"]


def decode_png(path):
    """Decodes with PIL when Debian's python3-pil is there: an independent decoder."""
    try:
        from PIL import Image
    except ImportError:
        return None
    with Image.open(path) as im:
        im.load()
        return im.size, im.mode


def test_help_and_version(env):
    out, _ = env.run("--help")
    for word in ("run", "list", "demo"):
        assert word in out
    out, _ = env.run("run", "--help")
    for flag in ("--text", "--score", "--align", "--context", "--temperature", "--params-out",
                 "--oov", "--project", "Examples"):
        assert flag in out, flag
    out, _ = env.run("--version")
    assert out.startswith("attn-viz ")
    env.run(expect=2)  # no subcommand


def test_version_names_the_kernels_and_their_blocking(env):
    out, _ = env.run("--version")
    lines = out.splitlines()
    assert lines[0].startswith("attn-viz ") and lines[1].startswith("kernels: ")
    assert lines[2].startswith("blocking: L1d ") and "panels of" in lines[2], out
    out, _ = env.run("--version", extra_env={"ATTNVIZ_BLOCKING": "l1d=32K,l2=512K,l3=32M"})
    assert "L2 512 KiB" in out and "(ATTNVIZ_BLOCKING)" in out and "(forced: l1d=32K,l2=512K,l3=32M)" in out
    _, err = env.run("--version", extra_env={"ATTNVIZ_BLOCKING": "l2=lots"}, expect=2)
    assert err.strip().splitlines() == [
        "attn-viz: error: ATTNVIZ_BLOCKING: 'l2=lots' is not KEY=SIZE (keys: l1d, l2, l3, panels, panel_depth, "
        "mc, panel_a, attention; SIZE a positive count, or bytes with K, M or G, e.g. l2=512K,mc=48)"]
    # A command under a bad blocking fails the same way, before any output.
    _, err = env.run("run", "--text", "the cat sat", extra_env={"ATTNVIZ_BLOCKING": "mc"}, expect=2)
    assert "ATTNVIZ_BLOCKING: 'mc' is not KEY=SIZE" in err
    # align runs its pairs' forwards inside a parallel loop: the value is read before it
    src, tgt = env.path("b.es"), env.path("b.en")
    open(src, "w").write("Y dijo Dios\n")
    open(tgt, "w").write("And God said\n")
    _, err = env.run("align", "--model", os.path.join(env.samples, "rv-kjv-marian"), "-s", src, "-t", tgt,
                     extra_env={"ATTNVIZ_BLOCKING": "mc=x"}, expect=2)
    assert err.startswith("attn-viz: error: ATTNVIZ_BLOCKING: 'mc=x' is not KEY=SIZE"), err
    # The blocking changes no byte of a model's numbers (the unit tests check the kernels).
    model = os.path.join(env.samples, "kjv-gpt")
    argv = ("model", "--model", model, "--text", "In the beginning God created the heaven",
            "--json", "-", "--npy", env.path("npy-{}"))
    outs = []
    for i, spec in enumerate(["", "panel_depth=1,mc=1,panel_a=1,attention=1", "l2=8M,l3=1G"]):
        a = [x.replace("{}", str(i)) for x in argv]
        out, _ = env.run(*a, extra_env={"ATTNVIZ_BLOCKING": spec})
        with open(os.path.join(a[-1], "attention.npy"), "rb") as f:
            outs.append((out, f.read()))
    assert outs[1] == outs[0] and outs[2] == outs[0]


def test_list_shows_every_variant(env):
    out, _ = env.run("list")
    for name in SCORES + ["softmax", "hardmax", "soft", "hard", "bahdanau", "Vaswani"]:
        assert name in out, name
    out, _ = env.run("list", "align")
    assert "softmax" in out and "dot" not in out
    out, _ = env.run("list", "mask")
    for usage in ("--mask causal", "--mask window:R", "--mask dilated:K", "--pad-keys 7,8"):
        assert usage in out, usage
    assert "softmax" not in out


def test_readme_table_lists_every_registered_variant(env):
    out, _ = env.run("list")
    names = re.findall(r"^  (\S+)", out, flags=re.M)
    assert len(names) >= 11, names
    readme = open(os.path.join(os.path.dirname(env.samples), "README.md"), encoding="utf-8").read()
    for name in names:
        assert f"| `{name}`" in readme, f"README's variant table misses {name}"


def test_run_writes_json_png_and_params(env):
    for score in SCORES:
        j, p, w = env.path(f"{score}.json"), env.path(f"{score}.png"), env.path(f"{score}.st")
        out, _ = env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--score", score,
                         "--png", p, "--json", j, "--params-out", w)
        assert f"wrote {j}" in out and f"wrote {p}" in out and f"wrote {w}" in out
        doc = json.load(open(j, encoding="utf-8"))
        n = len(SENTENCE.split())
        assert doc["query_tokens"] == SENTENCE.split()
        assert doc["variant"]["score"] == score
        head = doc["heads"][0]
        assert len(head["scores"]) == n and all(len(r) == n for r in head["scores"])
        assert len(head["weights"]) == n and all(len(r) == n for r in head["weights"])
        assert len(head["context"]) == n and all(len(r) == 50 for r in head["context"])
        for row in head["weights"]:
            assert abs(sum(row) - 1.0) < 1e-6
        width, height = png_size(p)
        assert 300 < width < 2000 and 300 < height < 2000, (width, height)
        decoded = decode_png(p)
        if decoded is not None:
            assert decoded == ((width, height), "RGB"), decoded


def test_png_size_follows_token_count_and_cell(env):
    sizes = []
    words = [f"w{k:02}" for k in range(20)]
    for text in (" ".join(words[:19]), " ".join(words)):
        p = env.path("size.png")
        env.run("run", "--tokens", text, "--embeddings", env.embeddings, "--cell", "30", "--png", p)
        sizes.append(png_size(p))
    assert sizes[1][0] - sizes[0][0] == 30, sizes
    assert sizes[1][1] - sizes[0][1] == 30, sizes


def test_same_inputs_same_bytes(env):
    outputs = []
    for k in range(2):
        files = [env.path(f"det{k}.{ext}") for ext in ("json", "png", "st")]
        env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--score", "additive",
                "--context", "hard", "--seed", "7", "--json", files[0], "--png", files[1],
                "--params-out", files[2])
        outputs.append([open(f, "rb").read() for f in files])
    assert outputs[0] == outputs[1]
    other = env.path("seed8.st")
    env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--score", "additive",
            "--seed", "8", "--params-out", other)
    assert open(other, "rb").read() != outputs[0][2]


def test_dash_writes_an_output_to_stdout(env):
    js = env.path("file.json")
    env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--heads", "2",
            "--json", js)
    out, err = env.run("run", "--text", "-", "--embeddings", env.embeddings, "--heads", "2",
                       "--json", "-", stdin=SENTENCE)
    assert out == open(js, encoding="utf-8").read(), "--json - differs from --json FILE"
    # With a file too, stdout stays pure JSON and the 'wrote' line moves to stderr.
    png = env.path("beside.png")
    out, err = env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--heads", "2",
                       "--json", "-", "--png", png)
    assert json.loads(out)["heads"][0]["weights"] == json.load(open(js))["heads"][0]["weights"]
    assert f"wrote {png}" in err and "wrote" not in out
    # compare's table moves to stderr as well
    out, err = env.run("compare", "--text", SENTENCE, "--embeddings", env.embeddings,
                       "--scores", "dot,cosine", "--json", "-")
    assert json.loads(out)["variants"] and "dot" in err
    # two outputs cannot share stdout: refused before any work, nothing written
    out, err = env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--json", "-",
                       "--svg", "-", expect=2)
    assert out == "" and "only one output can go to standard output" in err


def test_one_and_two_threads_give_identical_bytes(env):
    # 64 tokens: the additive and matrix-product loops run in parallel (rows are independent,
    # so the bytes must not depend on the thread count).
    text = " ".join(["the cat sat on the floor because it was tired"] * 7)[:-1] + " end"
    outputs = []
    for threads in ("1", "2"):
        j = env.path(f"threads{threads}.json")
        env.run("run", "--text", text, "--embeddings", env.embeddings, "--score", "additive",
                "--project", "--json", j, extra_env={"OMP_NUM_THREADS": threads})
        outputs.append(open(j, "rb").read())
    assert len(json.loads(outputs[0])["query_tokens"]) > 60
    assert outputs[0] == outputs[1]


def test_params_round_trip(env):
    st, a, b = env.path("rt.st"), env.path("rt-a.json"), env.path("rt-b.json")
    env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--score", "concat",
            "--project", "--seed", "3", "--params-out", st, "--json", a)
    env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--score", "concat",
            "--project", "--params", st, "--json", b)
    ja, jb = json.load(open(a)), json.load(open(b))
    assert ja["heads"] == jb["heads"]
    assert jb["parameters"] == st


def test_cross_attention(env):
    j = env.path("cross.json")
    env.run("run", "--source", "paris is the capital of france", "--target",
            "what is the capital ?", "--embeddings", env.embeddings, "--json", j)
    doc = json.load(open(j))
    assert doc["structure"] == "cross"
    assert doc["query_tokens"] == ["what", "is", "the", "capital", "?"]
    assert doc["key_tokens"] == ["paris", "is", "the", "capital", "of", "france"]
    w = doc["heads"][0]["weights"]
    assert len(w) == 5 and len(w[0]) == 6
    # "capital" attends most to "capital" in raw GloVe space
    assert max(range(6), key=lambda k: w[3][k]) == 3


def test_table_when_no_output(env):
    out, _ = env.run("run", "--text", "the cat sat", "--embeddings", env.embeddings,
                     "--context", "hard", "--hard", "argmax")
    assert "the" in out and "->" in out


def test_oov_policies(env):
    _, err = env.run("run", "--text", "the qwzxv cat", "--embeddings", env.embeddings)
    assert "qwzxv" in err and "warning" in err
    _, err = env.run("run", "--text", "the qwzxv cat zzyzx", "--embeddings", env.embeddings,
                     "--oov", "error", expect=2)
    assert "qwzxv, zzyzx" in err and "Traceback" not in err


def test_bad_inputs_exit_2_and_leave_no_file(env):
    bad = os.path.join(env.data, "bad")
    existing = env.path("existing.json")
    with open(existing, "w") as f:
        f.write("keep me")
    cases = [
        (["--embeddings", os.path.join(bad, "ragged.txt")], "ragged.txt:2: 2 values, expected 3"),
        (["--embeddings", os.path.join(bad, "not-a-number.txt")], "not-a-number.txt:2: value 2 'abc' is not a number"),
        (["--embeddings", os.path.join(bad, "nan.txt")], "nan.txt:2: value 2 is NaN"),
        (["--embeddings", os.path.join(bad, "dimension-change.txt")], "dimension-change.txt:3: 4 values, expected 3"),
        (["--embeddings", env.path("does-not-exist.txt")], "does-not-exist.txt: cannot open"),
        (["--embeddings", env.tmp], "is a folder"),
        (["--score", "adittive"], "Did you mean 'additive'?"),
        (["--align", "sofmax"], "Did you mean 'softmax'?"),
        (["--temperature", "0"], "--temperature must be a positive number"),
        (["--oov", "maybe"], "--oov"),
        (["--params", os.path.join(bad, "header-too-long.safetensors"), "--score", "general"], "header length 256 is larger"),
        (["--params", env.path("nothing.safetensors")], "nothing.safetensors: cannot open"),
        (["--png", env.path("no-such-folder/a.png")], "does not exist"),
    ]
    for extra, message in cases:
        args = ["run", "--text", SENTENCE] + (["--embeddings", env.embeddings] if "--embeddings" not in extra else [])
        args += extra + ["--json", existing]
        if "--png" not in extra:
            args += ["--png", env.path("never.png")]
        _, err = env.run(*args, expect=2)
        assert message in err, (extra, err)
        assert err.count("\n") == 1 and "Traceback" not in err and "terminate" not in err, err
        assert open(existing).read() == "keep me", extra
        assert not os.path.exists(env.path("never.png")), extra
    leftovers = [f for f in os.listdir(env.tmp) if ".tmp-" in f]
    assert not leftovers, leftovers


def test_params_file_missing_tensor(env):
    st = env.path("dot-only.st")
    env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--score", "general",
            "--params-out", st)
    _, err = env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--score",
                     "additive", "--params", st, "--json", env.path("x.json"), expect=2)
    assert "missing tensor 'score.W_q' (expected shape [50, 50])" in err, err
    assert not os.path.exists(env.path("x.json"))


def test_invalid_utf8_and_empty_text(env):
    proc_err = env.run("run", b"--text", b"caf\xe9", "--embeddings", env.embeddings, expect=2)[1]
    assert "--text (byte 3): invalid UTF-8" in proc_err, proc_err
    _, err = env.run("run", "--text", " ,,, ", "--embeddings", env.embeddings, "--json",
                     env.path("p.json"))
    # punctuation is tokens; only whitespace is empty
    _, err = env.run("run", "--text", "   ", "--embeddings", env.embeddings, expect=2)
    assert "no tokens" in err or "nothing to attend" in err, err


def test_demo_writes_heatmaps_and_prints_paths(env):
    out_dir = env.path("demo")
    out, err = env.run("demo", "--out-dir", out_dir, "--samples", env.samples)
    assert "warning" not in err, err  # the sample embeddings cover every sample token
    written = [line[len("wrote "):] for line in out.splitlines() if line.startswith("wrote ")]
    pngs = [p for p in written if p.endswith(".png")]
    assert len(pngs) >= 7 + 3 + 2, written
    for p in written:
        assert os.path.isfile(p), p
    for p in pngs:
        png_size(p)
    names = "\n".join(written)
    for score in SCORES:
        assert f"-{score}.png" in names, score
    assert "cross-" in names


COMMANDS = ["run", "compare", "explain", "transformer", "aoa", "han", "model", "heads", "draw",
            "list", "demo", "bench", "man", "completion"]


def help_options(env, command):
    out, _ = env.run(command, "--help")
    return set(re.findall(r"^ {2}(?:-[A-Za-z],)?(--[a-z][a-z0-9-]*)", out, re.M)) - {"--help"}


def test_short_flags_mean_one_thing_everywhere(env):
    meaning = {}
    for command in COMMANDS:
        out, _ = env.run(command, "--help")
        for short, long in re.findall(r"^ {2}(-[A-Za-z]),(--[a-z][a-z0-9-]*)", out, re.M):
            meaning.setdefault(short, set()).add(long)
    clashes = {k: v for k, v in meaning.items() if len(v) > 1}
    assert not clashes, clashes
    assert meaning["-q"] == {"--quiet"} and meaning["-t"] == {"--text"}


def test_unspaced_cjk_text_is_said_to_be_split(env):
    _, err = env.run("run", "--text", "机器学习很有趣", "--json", env.path("cjk.json"))
    assert "split into single characters" in err and "--tokens" in err, err
    assert json.load(open(env.path("cjk.json")))["query_tokens"] == list("机器学习很有趣")
    _, err = env.run("run", "--tokens", "机器 学习 很 有趣", "--json", env.path("cjk2.json"))
    assert "split into single" not in err, err
    _, err = env.run("run", "--text", "机 器", "--json", env.path("cjk3.json"))
    assert "split into single" not in err, err  # already one character per word
    # spaced words are the user's: kept as written, no warning
    _, err = env.run("run", "--text", "我 爱 机器 学习", "--json", env.path("cjk4.json"))
    assert "split into single" not in err, err
    assert json.load(open(env.path("cjk4.json")))["query_tokens"] == ["我", "爱", "机器", "学习"]


def test_did_you_mean(env):
    for argv, want in [(["rn", "--text", "x"], "unknown command 'rn': did you mean 'run'?"),
                       (["-j", "2", "modle"], "unknown command 'modle': did you mean 'model'?"),
                       (["run", "--txt", "x"], "run: unknown flag --txt: did you mean --text?"),
                       (["model", "--modle", "x"], "model: unknown flag --modle: did you mean --model?"),
                       (["run", "--colormap=viridis"], "did you mean --cmap?"),
                       (["zzzzzz"], "unknown command 'zzzzzz' (see 'attn-viz --help' for the list)"),
                       (["run", "--qqqqqqqqqq"], "run: unknown flag --qqqqqqqqqq (see 'attn-viz run --help')"),
                       (["model", "--flow-x", "1"], "model: unknown flag --flow-x (see 'attn-viz model --help')")]:
        _, err = env.run(*argv, expect=2)
        assert want in err and err.count("\n") == 1, (argv, err)
    # enumerated values get the same suggester as commands, flags and registries
    samples = env.samples
    for argv, want in [(["model", "--model", os.path.join(samples, "kjv-gpt"), "--text", "x", "--view", "modle"],
                        "--view: 'modle' is not one of "),
                       (["run", "--text", "x", "--oov", "zeros"], "--oov: 'zeros' is not one of "),
                       (["run", "--text", "x", "--show", "score"], "did you mean 'scores'?")]:
        _, err = env.run(*argv, expect=2)
        assert want in err and err.count("\n") == 1, (argv, err)
    _, err = env.run("model", "--model", os.path.join(samples, "kjv-gpt"), "--text", "x", "--view", "modle",
                     expect=2)
    assert "did you mean 'model'?" in err, err


def test_messages_name_the_flag_and_the_value(env):
    kjv = os.path.join(env.samples, "kjv-gpt")
    _, err = env.run("model", "--model", kjv, "--text", "x", "--generate", "2", "--sample",
                     "--temperature", "0", expect=2)
    assert "--temperature: must be a number above 0, got 0" in err and len(err) < 200, err
    _, err = env.run("model", "--model", kjv, "--text", "x", "--generate", "2", "--stop", "", expect=2)
    assert "--stop" in err and "must not be empty" in err, err


def test_version_describes_the_kernels_that_isa_and_threads_choose(env):
    out, _ = env.run("--version")
    available = out.splitlines()[1].split("(this CPU: ", 1)[1].split(")", 1)[0].split(", ")
    for isa in available:
        _, by_env = env.run("--version", extra_env={"ATTNVIZ_ISA": isa})[0].split("\n", 1)
        # before or after --version, as a benchmark script or a user may write it
        for args in (["--isa", isa, "--version"], ["--version", "--isa", isa]):
            got, _ = env.run(*args)
            kernels, blocking = got.splitlines()[1:3]
            assert kernels.startswith(f"kernels: {isa} ("), (args, got)
            assert "\n".join([kernels, blocking]) == by_env.strip(), (args, got, by_env)
    out, _ = env.run("--threads", "1", "--version")
    assert out.splitlines()[1].endswith(", 1 threads"), out
    _, err = env.run("--isa", "sse9", "--version", expect=2)
    assert err.startswith("attn-viz: error: instruction set 'sse9' is not available here"), err
    assert "Traceback" not in err


def test_man_page_lists_every_command_and_option(env):
    page, _ = env.run("man")
    assert page.startswith(".TH ATTN-VIZ 1 ")
    for command in COMMANDS:
        assert f'.SS "attn-viz {command}"' in page, command
        section = page.split(f'.SS "attn-viz {command}"', 1)[1].split(".SS ", 1)[0]
        for option in help_options(env, command):
            roff_name = "\\fB" + option.replace("-", "\\-") + "\\fR"
            if roff_name not in section and option not in (
                    "--version", "--threads", "--isa", "--png-level"):
                raise AssertionError(f"{command} {option} is not in the man page")
    assert all(ord(c) < 128 for c in page), "non-ASCII must be written as \\[uXXXX]"
    import shutil
    import subprocess
    if shutil.which("groff"):
        path = env.path("attn-viz.1")
        with open(path, "w") as f:
            f.write(page)
        proc = subprocess.run(["groff", "-man", "-Tutf8", "-ww", path], capture_output=True,
                              text=True)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        text = re.sub(".\x08", "", proc.stdout)  # bold is drawn by overstriking
        for dash in ("\u2010", "\u2212"):
            text = text.replace(dash, "-")
        assert "--merge-subwords" in text and "\u2581play" in text, text[:2000]


def test_bash_completion(env):
    import subprocess
    script, _ = env.run("completion", "bash")
    path = env.path("attn-viz.bash")
    with open(path, "w") as f:
        f.write(script)
    open(env.path("cat.html"), "w").close()

    def complete(*words):
        line = " ".join(f"'{w}'" for w in words)
        code = (f"source {path}; COMP_WORDS=(attn-viz {line}); "
                f"COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); _attn_viz; "
                f"printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        proc = subprocess.run(["bash", "-c", code], capture_output=True, text=True,
                              cwd=env.tmp)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split()

    assert set(COMMANDS) <= set(complete(""))
    assert complete("ru") == ["run"]
    assert complete("run", "--merge") == ["--merge-subwords"]
    assert "--threads" in complete("run", "--thr")  # global options follow a command too
    assert complete("run", "--oov", "") == ["hash", "zero", "error"]
    assert complete("compare", "--score", "scal") == ["scaled_dot"]
    assert complete("run", "--formats", "") == []  # free text: nothing offered
    assert complete("run", "--html", "ca") == ["cat.html"]  # FILE: files
    assert complete("--threads", "2", "run", "--isa", "avx5") == ["avx512"]
    # every option of every command is offered after it
    for command in ("run", "compare", "explain"):
        assert help_options(env, command) <= set(complete(command, "--")), command
    _, err = env.run("completion", "tcsh", expect=2)
    assert "bash, zsh or fish, not 'tcsh'" in err


def need_shell(name):
    import shutil
    if shutil.which(name) is None:
        if os.environ.get("ATTNVIZ_REQUIRE_SHELLS"):
            raise AssertionError(f"{name} is not installed (Debian: apt-get install {name})")
        raise Skipped(f"{name} is not installed (Debian: apt-get install {name})")


def test_zsh_completion(env):
    """TAB in a real interactive zsh (driven through a pseudo-terminal) completes commands,
    flags, fixed values, files and global options."""
    import subprocess
    need_shell("zsh")
    script, _ = env.run("completion", "zsh")
    path = env.path("_attn-viz")
    with open(path, "w") as f:
        f.write(script)
    subprocess.run(["zsh", "-n", path], check=True)
    open(env.path("cat.html"), "w").close()
    driver = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zsh_complete.zsh")

    def complete(line):
        out = env.path("zsh-line")
        if os.path.exists(out):
            os.remove(out)
        subprocess.run(["zsh", "-f", driver, path, out, line], cwd=env.tmp, timeout=30,
                       capture_output=True)
        return open(out).read().rstrip("\n") if os.path.exists(out) else None

    for typed, shown in (("attn-viz ru", "attn-viz run "),
                         ("attn-viz run --merge", "attn-viz run --merge-subwords "),
                         ("attn-viz run --oov ze", "attn-viz run --oov zero "),
                         ("attn-viz compare --score scal", "attn-viz compare --score scaled_dot "),
                         ("attn-viz run --html ca", "attn-viz run --html cat.html "),
                         ("attn-viz --thr", "attn-viz --threads "),
                         ("attn-viz model --svg-te", "attn-viz model --svg-text ")):
        assert complete(typed) == shown, (typed, complete(typed))


def test_fish_completion(env):
    """fish's own `complete -C` lists what TAB would offer, with the descriptions."""
    import subprocess
    need_shell("fish")
    script, _ = env.run("completion", "fish")
    path = env.path("attn-viz.fish")
    with open(path, "w") as f:
        f.write(script)
    open(env.path("cat.html"), "w").close()

    def complete(line):
        proc = subprocess.run(["fish", "-c", f"source {path}; complete -C'{line}'"],
                              capture_output=True, text=True, cwd=env.tmp, timeout=30)
        assert proc.returncode == 0, proc.stderr
        return [row.split("\t")[0] for row in proc.stdout.splitlines()]

    assert set(COMMANDS) <= set(complete("attn-viz "))
    assert complete("attn-viz ru") == ["run"]
    assert complete("attn-viz run --merge") == ["--merge-subwords"]
    assert sorted(complete("attn-viz run --oov ")) == ["error", "hash", "zero"]
    assert complete("attn-viz compare --score scal") == ["scaled_dot"]
    assert complete("attn-viz run --html ca") == ["cat.html"]
    assert "--threads" in complete("attn-viz run --thr")
    for command in ("run", "compare", "explain"):
        assert help_options(env, command) <= set(complete(f"attn-viz {command} -")), command


def test_install_puts_man_page_and_completion(env):
    import subprocess
    build = os.path.dirname(os.path.abspath(env.exe))
    if not os.path.exists(os.path.join(build, "cmake_install.cmake")):
        print("  not a CMake build folder; skipped")
        return
    prefix = env.path("prefix")
    proc = subprocess.run(["cmake", "--install", build, "--prefix", prefix],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    page = os.path.join(prefix, "share/man/man1/attn-viz.1")
    completion = os.path.join(prefix, "share/bash-completion/completions/attn-viz")
    assert open(page).read() == env.run("man")[0]
    assert open(completion).read() == env.run("completion", "bash")[0]
    assert open(os.path.join(prefix, "share/zsh/vendor-completions/_attn-viz")).read() == \
        env.run("completion", "zsh")[0]
    assert open(os.path.join(prefix, "share/fish/vendor_completions.d/attn-viz.fish")).read() == \
        env.run("completion", "fish")[0]
    assert os.access(os.path.join(prefix, "bin/attn-viz"), os.X_OK)


if __name__ == "__main__":
    sys.exit(main(globals()))
