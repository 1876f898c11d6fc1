#!/usr/bin/env python3
"""Batch runs: `run --input FILE --out-dir DIR`. Each line's files must be byte-identical to a
single run of the same sentence (or source/target pair) with the same flags, whatever the thread
count; bad lines are reported with their line number and skipped, or stop the run with --strict
before anything is written; index.json lists every line."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import main  # noqa: E402

LINES = [
    "the cat sat on the floor because it was tired",   # 1
    "",                                                # 2: blank, not counted
    "paris is the capital of france\twhat is the capital ?",  # 3: cross
    "a\tb\tc",                                         # 4: two tabs
    "  # a comment",                                   # 5: comment, not counted
    "she said she would come tomorrow",                # 6 (CRLF below)
    "\t the river",                                    # 7: nothing before the tab
]
VARIANT = ("--project", "--heads", "2", "--seed", "5")


def write_lines(env, name, lines, crlf_line=6):
    path = env.path(name)
    with open(path, "wb") as f:
        for i, line in enumerate(lines, 1):
            f.write(line.encode("utf-8") + (b"\r\n" if i == crlf_line else b"\n"))
        f.write(b"\xff\xfe broken utf-8\n")  # the last line: invalid UTF-8
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_lines_match_single_runs(env):
    src = write_lines(env, "in.txt", LINES)
    out = env.path("out")
    stdout, stderr = env.run("run", "--input", src, "--out-dir", out, *VARIANT,
                             "--formats", "png,json,svg,html")
    assert "ran 3 of 6 line(s), 3 skipped: 13 file(s)" in stdout, stdout
    assert "skipped" in stderr and "in.txt:4: has more than one tab" in stderr, stderr
    assert "in.txt:7: has nothing before its tab" in stderr, stderr
    assert "in.txt:8 (byte 0): invalid UTF-8" in stderr, stderr
    index = json.loads(read(os.path.join(out, "index.json")))
    assert index["lines"] == 6 and index["succeeded"] == 3 and index["skipped"] == 3
    assert [r["line"] for r in index["runs"]] == [1, 3, 4, 6, 7, 8]
    assert index["runs"][0]["files"] == [
        "0001-the-cat-sat-on-the-floor-because-it-was.json",
        "0001-the-cat-sat-on-the-floor-because-it-was.png",
        "0001-the-cat-sat-on-the-floor-because-it-was.svg",
        "0001-the-cat-sat-on-the-floor-because-it-was.html"]
    assert "error" in index["runs"][2] and "files" not in index["runs"][2]

    singles = {
        "0001-the-cat-sat-on-the-floor-because-it-was": ("--text", LINES[0]),
        "0003-paris-is-the-capital-of-france-what-is": (
            "--source", "paris is the capital of france", "--target", "what is the capital ?"),
        "0006-she-said-she-would-come-tomorrow": ("--text", LINES[5]),
    }
    for stem, given in singles.items():
        one = env.path("single")
        env.run("run", *given, *VARIANT, "--json", one + ".json", "--png", one + ".png",
                "--svg", one + ".svg", "--html", one + ".html")
        for ext in ("json", "png", "svg", "html"):
            assert read(os.path.join(out, f"{stem}.{ext}")) == read(f"{one}.{ext}"), (stem, ext)
    assert sorted(os.listdir(out)) == sorted(
        [f"{s}.{e}" for s in singles for e in ("json", "png", "svg", "html")] +
        ["index.json", JOURNAL])


JOURNAL = ".attn-viz-journal.jsonl"  # --resume's record of the lines done


def test_thread_count_does_not_change_bytes(env):
    words = [line.split(" ", 1)[0] for line in open(env.embeddings, encoding="utf-8")][:400]
    lines = [" ".join(words[(7 * i + 3 * k) % 400] for k in range(3 + i % 17)) for i in range(40)]
    src = env.path("many.txt")
    with open(src, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    outs = []
    for threads in ("1", "2"):
        out = env.path(f"out{threads}")
        env.run("--threads", threads, "run", "--input", src, "--out-dir", out, *VARIANT,
                "--formats", "json,png,npy", "--quiet")
        outs.append(out)
    # the journal's records follow the order the lines finished in; every other byte is the same
    names = sorted(n for n in os.listdir(outs[0]) if n != JOURNAL)
    assert len(names) == 40 * 3 + 1 and names == sorted(n for n in os.listdir(outs[1]) if n != JOURNAL)
    for name in names:
        a, b = os.path.join(outs[0], name), os.path.join(outs[1], name)
        if os.path.isdir(a):
            assert sorted(os.listdir(a)) == sorted(os.listdir(b))
            for f in os.listdir(a):
                assert read(os.path.join(a, f)) == read(os.path.join(b, f)), (name, f)
        else:
            assert read(a) == read(b), name


def test_strict_stops_before_writing(env):
    src = write_lines(env, "in.txt", LINES)
    out = env.path("strict")
    _, err = env.run("run", "--input", src, "--out-dir", out, "--strict", expect=2)
    assert "in.txt:4: has more than one tab" in err and "nothing written" in err, err
    assert not os.path.exists(out)
    # an existing folder keeps what it had
    os.mkdir(out)
    with open(os.path.join(out, "keep.txt"), "w") as f:
        f.write("mine")
    env.run("run", "--input", src, "--out-dir", out, "--strict", expect=2)
    assert os.listdir(out) == ["keep.txt"]


def test_oov_error_skips_only_that_line(env):
    src = env.path("oov.txt")
    with open(src, "w", encoding="utf-8") as f:
        f.write("the cat sat\nthe qwzxv sat\nit was tired\n")
    out = env.path("oov")
    stdout, err = env.run("run", "--input", src, "--out-dir", out, "--oov", "error")
    assert "ran 2 of 3 line(s), 1 skipped" in stdout, stdout
    assert "oov.txt:2: " in err and "qwzxv" in err, err
    # with hash vectors every line runs, and the OOV warning comes once for the whole file
    stdout, err = env.run("run", "--input", src, "--out-dir", env.path("oov2"))
    assert "ran 3 of 3" in stdout and err.count("warning") == 1 and "1 line(s)" in err, err


def test_standard_input_and_npy(env):
    out = env.path("stdin")
    stdout, _ = env.run("run", "--input", "-", "--out-dir", out, "--formats", "npy",
                        stdin="the cat sat\n")
    assert "ran 1 of 1" in stdout
    assert sorted(os.listdir(os.path.join(out, "0001-the-cat-sat"))) == [
        "context.npy", "key_tokens.txt", "query_tokens.txt", "scores.npy", "weights.npy"]
    assert json.loads(read(os.path.join(out, "index.json")))["input"] == "(standard input)"


def test_usage_errors(env):
    src = write_lines(env, "in.txt", LINES[:1])
    cases = [
        (("--input", src), "--input needs --out-dir"),
        (("--out-dir", env.path("x")), "--out-dir needs --input"),
        (("--input", src, "--out-dir", env.path("x"), "--json", env.path("a.json")),
         "--json does not go with --input"),
        (("--input", src, "--out-dir", env.path("x"), "--text", "a b"),
         "--text does not go with --input"),
        (("--input", src, "--out-dir", env.path("x"), "--formats", "png,gif"),
         "unknown format 'gif'"),
        (("--text", "a b", "--strict"), "--strict needs --input"),
        (("--input", env.path("missing.txt"), "--out-dir", env.path("x")), "missing.txt"),
    ]
    for argv, want in cases:
        _, err = env.run("run", *argv, expect=2)
        assert want in err, (argv, err)
    blank = env.path("blank.txt")
    with open(blank, "w") as f:
        f.write("\n  \n")
    _, err = env.run("run", "--input", blank, "--out-dir", env.path("x"), expect=2)
    assert "has no lines to run" in err, err
    bad = env.path("bad.txt")
    with open(bad, "w") as f:
        f.write("a\tb\tc\n")
    stdout, err = env.run("run", "--input", bad, "--out-dir", env.path("y"), expect=2)
    assert "ran 0 of 1" in stdout and "bad.txt:1" in err, (stdout, err)


if __name__ == "__main__":
    sys.exit(main(globals()))
