#!/usr/bin/env python3
"""attn-viz align on the tiny test translation models (tests/data/seq2seq), checked from
outside: each Pharaoh line equals `model --align` of the same pair (weights and a measure);
--input's "source ||| target" lines give the same; --extract threshold equals the pairs of the
mean cross map (`model --json`) at or above the threshold; with --reverse-model the argmax pairs
of both directions joined by a plain Python rendering of grow-diag-final-and (and intersect,
union), the threshold on the two maps' product; a model folder's alignment.json as the default
layers and heads; --extract argmax-null against the cross map recomputed here; the refusals
name the line and write nothing."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, main  # noqa: E402

np = import_numpy()

PAIRS = [("t5 t9 t3 t7 t12", "t20 t4 t8 t16"), ("t11 t6 t30", "t9 t5 t14 t3 t21"),
         ("t7 t7 t25 t13 t4 t18", "t15 t6 t22")]


def seq2seq(env, name):
    return os.path.join(env.data, "seq2seq", name)


def write_pairs(env, pairs, stem):
    src, tgt, both = env.path(stem + ".src"), env.path(stem + ".tgt"), env.path(stem + ".pairs")
    with open(src, "w") as a, open(tgt, "w") as b, open(both, "w") as c:
        for s, t in pairs:
            a.write(s + "\n")
            b.write(t + "\n")
            c.write(f"{s} ||| {t}\n")
    return src, tgt, both


def align(env, model, src, tgt, *extra):
    out, _ = env.run("align", "--model", model, "--source", src, "--target", tgt, "-q", *extra)
    return out.splitlines()


def parse(line):
    return {tuple(map(int, p.split("-"))) for p in line.split()}


def test_lines_equal_model_align(env):
    # F16: align widens the weights to floats once (model/checkpoint.h), model does not
    for name in ("marian_f16", "bart_f32"):
        lines_equal_model_align(env, seq2seq(env, name))


def lines_equal_model_align(env, model):
    src, tgt, both = write_pairs(env, PAIRS, "p")
    for extra in ([], ["--method", "alti", "--layers", "1"]):
        lines = align(env, model, src, tgt, *extra)
        assert len(lines) == len(PAIRS)
        for k, (s, t) in enumerate(PAIRS):
            one = env.path(f"one-{k}.txt")
            measure = ["--measure", extra[1]] if extra else []
            rest = extra[2:] if extra else []
            env.run("model", "--model", model, "--text", s, "--target", t, "--align", one, "-q",
                    *measure, *rest)
            assert lines[k] == open(one).read().strip(), (k, extra)
        out, _ = env.run("align", "--model", model, "--input", both, "-q", *extra)
        assert out.splitlines() == lines
    # --out: the same lines in a file, nothing printed
    path = env.path("a.txt")
    out, _ = env.run("align", "--model", model, "--source", src, "--target", tgt, "--out", path,
                     "-q")
    assert open(path).read().splitlines() == align(env, model, src, tgt)
    assert "3 sentence pairs aligned" in out and f"wrote {path}" in out, out


def mean_cross(env, model, s, t):
    path = env.path("m.json")
    env.run("model", "--model", model, "--text", s, "--target", t, "--json", path, "-q")
    return np.array(json.load(open(path))["cross_attention"], dtype=np.float64).mean((0, 1))


def test_threshold_takes_every_pair_at_or_above_it(env):
    model = seq2seq(env, "bart_f32")
    src, tgt, _ = write_pairs(env, PAIRS, "t")
    lines = align(env, model, src, tgt, "--extract", "threshold", "--threshold", "0.2")
    for (s, t), line in zip(PAIRS, lines):
        m = mean_cross(env, model, s, t)  # one piece a word: the word map is the mean map
        want = {(i, j) for j in range(m.shape[0]) for i in range(m.shape[1]) if m[j, i] >= 0.2}
        assert parse(line) == want, (line, want)


def test_argmax_null_leaves_words_whose_row_is_on_the_specials(env):
    """--extract argmax-null on the bundled model (its tokenizer ends the source with </s>):
    each target word's best source word unless 1 − the row's sum over the words (the weight on
    </s>) is larger, recomputed here from `model --npy`'s cross map and tokens; `model --align
    --align-method argmax-null` writes the same line."""
    sys.path.insert(0, os.path.join(env.samples, "translation"))
    from evaluate_translation import word_matrix, word_spans
    model = os.path.join(env.samples, "rv-kjv-marian")
    held = os.path.join(env.samples, "translation")
    es = open(os.path.join(held, "heldout.es"), encoding="utf-8").read().splitlines()[:6]
    en = open(os.path.join(held, "heldout.en"), encoding="utf-8").read().splitlines()[:6]
    src, tgt, _ = write_pairs(env, list(zip(es, en)), "null")
    reading = ["--layers", "1", "--heads", "0"]
    lines = align(env, model, src, tgt, "--extract", "argmax-null", *reading)
    plain = align(env, model, src, tgt, "--extract", "argmax", *reading)
    dropped = 0
    for k, (s, t) in enumerate(zip(es, en)):
        out = env.path(f"null-{k}")
        one = env.path(f"null-{k}.txt")
        env.run("model", "--model", model, "--text", s, "--target", t, "--npy", out, "-q",
                "--align", one, "--align-method", "argmax-null", *reading)
        assert open(one).read().strip() == lines[k], k
        cross = np.load(os.path.join(out, "cross_attention.npy")).astype(np.float64)[1, 0]
        tokens = lambda side: json.load(open(os.path.join(out, f"{side}_tokens.json"), encoding="utf-8"))
        assert tokens("source")[-1] == "</s>"
        m = word_matrix(cross, word_spans(tokens("target")), word_spans(tokens("source")))
        got, everyone = parse(lines[k]), parse(plain[k])
        assert got <= everyone
        for j in range(m.shape[0]):
            best, off = int(np.argmax(m[j])), 1.0 - m[j].sum()
            if abs(m[j, best] - off) < 1e-5:
                continue  # too close to call in float
            assert ((best, j) in got) == (m[j, best] >= off), (k, j, m[j, best], off)
            dropped += m[j, best] < off
    assert dropped > 0  # some word was left unaligned: the rule was exercised


def gdfa(forward, reverse):
    """grow-diag-final-and in plain Python: the IBM Model 2 baseline's
    (samples/translation/ibm_model2.py), written from Koehn et al.'s definition."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "samples", "translation"))
    import ibm_model2
    return ibm_model2.grow_diag_final_and(forward, reverse)


def test_both_directions_joined(env):
    model, back = seq2seq(env, "bart_f32"), seq2seq(env, "marian_f16")
    src, tgt, _ = write_pairs(env, PAIRS, "r")
    forward = [parse(l) for l in align(env, model, src, tgt)]
    reverse = [{(s, t) for t, s in parse(l)} for l in align(env, back, tgt, src)]
    joined = {
        "grow-diag-final-and": [gdfa(f, r) for f, r in zip(forward, reverse)],
        "intersect": [f & r for f, r in zip(forward, reverse)],
        "union": [f | r for f, r in zip(forward, reverse)],
    }
    for how, want in joined.items():
        got = align(env, model, src, tgt, "--reverse-model", back, "--symmetrize", how)
        assert [parse(l) for l in got] == want, how
        assert all(l.split() == sorted(l.split(), key=lambda p: tuple(map(int, p.split("-"))))
                   for l in got)
    default = align(env, model, src, tgt, "--reverse-model", back)
    assert [parse(l) for l in default] == joined["grow-diag-final-and"]
    # the pairs share the threads: the same lines on one thread, with a measure too
    for extra in ([], ["--method", "alti"]):
        many = PAIRS * 6
        src6, tgt6, _ = write_pairs(env, many, "r6")
        lines = {t: env.run("--threads", t, "align", "--model", model, "--source", src6, "--target",
                            tgt6, "--reverse-model", back, "-q", *extra)[0] for t in ("1", "2")}
        assert lines["1"] == lines["2"] and len(lines["1"].splitlines()) == len(many), extra
    # threshold with both: the forward map times the reverse map turned round
    got = align(env, model, src, tgt, "--reverse-model", back, "--extract", "threshold",
                "--threshold", "0.05")
    for (s, t), line in zip(PAIRS, got):
        product = mean_cross(env, model, s, t) * mean_cross(env, back, t, s).T
        want = {(i, j) for j in range(product.shape[0]) for i in range(product.shape[1])
                if product[j, i] >= 0.05}
        assert parse(line) == want, (line, want)


def test_resume_after_sigterm_aligns_only_the_missing_pairs(env):
    import random
    import signal
    import subprocess
    import time
    model = seq2seq(env, "bart_f32")
    rng = random.Random(5)
    pairs = [(" ".join(f"t{rng.randint(3, 59)}" for _ in range(rng.randint(3, 12))),
              " ".join(f"t{rng.randint(3, 59)}" for _ in range(rng.randint(3, 12))))
             for _ in range(2000)]
    src, tgt, _ = write_pairs(env, pairs, "many")
    # value zeroing runs every layer again per key: slow enough to be killed half way
    base = ["align", "--model", model, "--source", src, "--target", tgt, "-q", "--method",
            "value-zeroing"]
    env.run(*base, "--out", env.path("clean.txt"))
    assert not os.path.exists(env.path("clean.txt.attn-viz-journal.jsonl"))  # gone once done
    killed, journal = env.path("killed.txt"), env.path("killed.txt.attn-viz-journal.jsonl")
    proc = subprocess.Popen([env.exe, *base, "--out", killed], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(journal) and sum(1 for _ in open(journal, "rb")) > 100:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM, f"the run ended before the kill ({proc.returncode})"
    assert not os.path.exists(killed)
    done = sum(1 for _ in open(journal, "rb")) - 1
    assert 0 < done < len(pairs), done
    with open(journal, "ab") as f:  # a record cut short by the kill
        f.write(b'{"line": 4000, "pair": "00')
    before = open(journal, "rb").read()
    _, err = env.run(*base, "--out", killed, "--resume", "--layers", "0", expect=2)
    assert "other settings" in err and open(journal, "rb").read() == before
    out, _ = env.run(*base, "--out", killed, "--resume")
    assert f"({done} already done: --resume)" in out, out
    assert open(killed).read() == open(env.path("clean.txt")).read()
    assert not os.path.exists(journal)
    _, err = env.run(*base, "--resume", expect=2)
    assert "--out" in err


def test_refusals_name_the_line_and_write_nothing(env):
    model = seq2seq(env, "bart_f32")
    out = env.path("never.txt")

    def refused(*args, says):
        _, err = env.run("align", "--model", model, "--out", out, "-q", *args, expect=2)
        lines = [l for l in err.splitlines() if l.strip()]
        assert len(lines) == 1 and lines[0].startswith("attn-viz: error:"), err
        for word in says:
            assert word in lines[0], (word, lines[0])
        assert not os.path.exists(out)

    src, tgt, _ = write_pairs(env, [PAIRS[0], ("t5 t6", "   "), PAIRS[1]], "bad")
    refused("--source", src, "--target", tgt, says=["bad.tgt:2:", "target side is empty"])
    src, tgt, _ = write_pairs(env, PAIRS, "short")
    with open(tgt, "a") as f:
        f.write("t5 t6\n")
    refused("--source", src, "--target", tgt, says=["short.tgt", "4 lines", "3"])
    long_src = " ".join(["t5"] * 40)
    src, tgt, both = write_pairs(env, [PAIRS[0], PAIRS[1], (long_src, "t5 t6")], "long")
    refused("--source", src, "--target", tgt, says=["long.src:3:", "40 tokens"])
    with open(both, "a") as f:
        f.write("no bars here\n")
    refused("--input", both, says=["long.pairs:4:", "|||"])
    refused("--source", src, says=["--target"])
    refused("--source", src, "--target", tgt, "--symmetrize", "union", says=["--reverse-model"])
    _, err = env.run("align", "--model", os.path.join(env.data, "hf", "gpt2_f32"), "--source", src,
                     "--target", tgt, expect=2)
    assert "encoder–decoder" in err


def test_alignment_json_names_the_default_layer_and_head(env):
    """A model folder's alignment.json stands for --layers/--heads when neither is given (the
    summary says so); the flags win over it; a bad one is an error naming the file."""
    import shutil
    model = env.path("guided")
    shutil.copytree(seq2seq(env, "bart_f32"), model)
    src, tgt, _ = write_pairs(env, PAIRS, "g")
    explicit = align(env, model, src, tgt, "--layers", "1", "--heads", "0")
    every = align(env, model, src, tgt)
    assert explicit != every
    with open(os.path.join(model, "alignment.json"), "w") as f:
        json.dump({"layers": "1", "heads": 0, "why": "a test"}, f)
    assert align(env, model, src, tgt) == explicit
    assert align(env, model, src, tgt, "--layers", "0-1") == align(
        env, seq2seq(env, "bart_f32"), src, tgt, "--layers", "0-1")
    out, err = env.run("align", "--model", model, "--source", src, "--target", tgt, "-q")
    assert f"decoder layer 1, head 0 ({model}/alignment.json)" in err, err
    for bad, says in (({"layers": "7"}, "is not a list of the model's"),
                      ({"heads": [0]}, "expected a list"), ("[", "expected a JSON object")):
        with open(os.path.join(model, "alignment.json"), "w") as f:
            f.write(bad if isinstance(bad, str) else json.dumps(bad))
        _, err = env.run("align", "--model", model, "--source", src, "--target", tgt, "-q", expect=2)
        assert err.startswith(f"attn-viz: error: {model}/alignment.json") and says in err, err


def test_alignment_json_names_the_default_reading(env):
    """With the layers and heads it names, alignment.json may name how they are read: "extract"
    (and "threshold") alone, "with_reverse" with a reverse model; the same lines as those flags,
    the summary saying whence; any of --extract, --threshold, --symmetrize, or --layers/--heads,
    puts align's own defaults back; a bad reading is an error naming the file."""
    import shutil
    model, back = env.path("reads"), env.path("reads-back")
    shutil.copytree(seq2seq(env, "bart_f32"), model)
    shutil.copytree(seq2seq(env, "marian_f16"), back)
    with open(os.path.join(back, "alignment.json"), "w") as f:  # its head; no reading of its own
        json.dump({"layers": "1", "heads": "0"}, f)
    src, tgt, _ = write_pairs(env, PAIRS, "d")
    head = ["--layers", "1", "--heads", "0"]
    saved = {"layers": "1", "heads": "0", "extract": "threshold", "threshold": 0.2,
             "with_reverse": {"extract": "argmax", "symmetrize": "intersect"}}
    with open(os.path.join(model, "alignment.json"), "w") as f:
        json.dump(saved, f)
    alone = align(env, model, src, tgt, *head, "--extract", "threshold", "--threshold", "0.2")
    assert alone != align(env, model, src, tgt, *head)  # the flags' own default: argmax
    assert align(env, model, src, tgt) == alone
    both = align(env, model, src, tgt, *head, "--reverse-model", back, "--symmetrize", "intersect")
    assert both != align(env, model, src, tgt, *head, "--reverse-model", back)
    assert align(env, model, src, tgt, "--reverse-model", back) == both
    _, err = env.run("align", "--model", model, "--source", src, "--target", tgt, "-q")
    assert f"extract threshold 0.2 ({model}/alignment.json)" in err, err
    for flags in (["--extract", "argmax"], ["--threshold", "0.1"], ["--layers", "1", "--heads", "0"]):
        assert align(env, model, src, tgt, *flags) == align(env, model, src, tgt, *head), flags
    for bad, says in (({"extract": "max"}, '"extract": expected one of argmax, argmax-null'),
                      ({"extract": "threshold"}, '"threshold": expected a number from 0 to 1'),
                      ({"with_reverse": 3}, '"with_reverse": expected an object'),
                      ({"with_reverse": {"extract": "argmax", "symmetrize": "all"}},
                       '"with_reverse": "symmetrize": expected one of intersect')):
        with open(os.path.join(model, "alignment.json"), "w") as f:
            json.dump({"layers": "1", **bad}, f)
        _, err = env.run("align", "--model", model, "--source", src, "--target", tgt, "-q", expect=2)
        assert err.startswith(f"attn-viz: error: {model}/alignment.json") and says in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
