#!/usr/bin/env python3
"""End-to-end tests of `attn-viz explain`: the trace's numbers against `run`'s JSON, the nearest
words recomputed with NumPy from the embedding file, and bad queries."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, main  # noqa: E402

np = import_numpy()

SENTENCE = "the cat sat on the floor because it was tired"


def test_explain_text_names_the_variant_and_its_neighbours(env):
    out, _ = env.run("explain", "--text", SENTENCE, "--embeddings", env.embeddings, "--score",
                     "bahdanau", "--query", "cat")
    for words in ("additive (also: bahdanau)", "previous decoder state", "score.W_q",
                  "[50, 50]", "top keys:", "query 1 \"cat\"", "|c| ="):
        assert words in out, words
    out, _ = env.run("explain", "--text", SENTENCE, "--embeddings", env.embeddings, "--score",
                     "multiplicative", "--query", "2")
    assert "general (also: bilinear, multiplicative, luong-general)" in out


def test_explain_one_head_of_several_and_positions(env):
    j = env.path("mha.json")
    env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--heads", "5",
            "--position", "alibi", "--json", j)
    run = json.load(open(j))
    out, _ = env.run("explain", "--text", SENTENCE, "--embeddings", env.embeddings, "--heads", "5",
                     "--position", "alibi", "--head", "2", "--query", "cat", "--json")
    ex = json.loads(out)
    assert ex["head"] == 2 and ex["heads"] == 5 and ex["position"] == "alibi"  # from 0, as the arrays
    assert np.allclose(ex["weights"], run["heads"][2]["weights"][1], atol=1e-6)
    assert np.isclose(ex["output_norm"], np.linalg.norm(run["output"][1]), rtol=1e-5)
    text, _ = env.run("explain", "--text", SENTENCE, "--embeddings", env.embeddings, "--heads",
                      "5", "--position", "alibi", "--head", "2", "--query", "cat")
    for words in ("head 2 of heads 0 to 4", "position: alibi", "slope m = ", "output (all 5 heads"):
        assert words in text, words
    _, err = env.run("explain", "--text", SENTENCE, "--embeddings", env.embeddings, "--heads",
                     "5", "--head", "5", "--query", "cat", expect=2)
    assert "--head 5" in err and "5 heads (0 to 4)" in err, err


def test_explain_numbers_match_run_and_numpy(env):
    j = env.path("run.json")
    env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--score", "cosine",
            "--align", "sparsemax", "--json", j)
    run = json.load(open(j))["heads"][0]
    out, _ = env.run("explain", "--text", SENTENCE, "--embeddings", env.embeddings, "--score",
                     "cosine", "--align", "sparsemax", "--query", "floor", "--json", "--top", "4")
    ex = json.loads(out)
    i = ex["query_index"]
    assert i == 5 and ex["query_token"] == "floor"
    assert np.allclose(ex["scores"], run["scores"][i], atol=1e-6)
    assert np.allclose(ex["weights"], run["weights"][i], atol=1e-6)
    top = [t["weight"] for t in ex["top_keys"]]
    assert top == sorted(top, reverse=True) and len(top) == 4
    # nearest words of the context vector, recomputed over the whole sample file
    c = np.array(run["context"][i])
    words, vecs = [], []
    for line in open(env.embeddings, encoding="utf-8"):
        parts = line.split()
        words.append(parts[0])
        vecs.append([float(x) for x in parts[1:]])
    vecs = np.array(vecs)
    cos = vecs @ c / (np.linalg.norm(vecs, axis=1) * np.linalg.norm(c))
    best = [words[k] for k in np.argsort(-cos, kind="stable")[:5]]
    assert [n["word"] for n in ex["nearest_words"]] == best, (ex["nearest_words"], best)
    assert abs(ex["context_norm"] - np.linalg.norm(c)) < 1e-5


def test_explain_bad_queries(env):
    _, err = env.run("explain", "--text", SENTENCE, "--embeddings", env.embeddings, "--query",
                     "zebra", expect=2)
    assert "'zebra' is not one of the tokens" in err, err
    _, err = env.run("explain", "--text", SENTENCE, "--embeddings", env.embeddings, "--query",
                     "99", expect=2)
    assert "there are 10 tokens (positions 0 to 9)" in err, err
    env.run("explain", "--text", SENTENCE, "--embeddings", env.embeddings, expect=2)  # no --query


def test_a_repeated_query_token_says_which_was_taken(env):
    """"bank" twice: the first is taken and the run says so, with both ways to the other;
    bank#2 and the position take the second, silently, and walk the same row."""
    text = "I sat on the bank of the river near the bank"
    out, err = env.run("explain", "--text", text, "--embeddings", env.embeddings, "--query", "bank",
                       "--json")
    first = json.loads(out)
    assert "'bank' occurs 2 times (positions 4 and 10); took the first, position 4" in err, err
    assert "--query bank#2" in err and "--query 10" in err, err
    second = []
    for q in ("bank#2", "10"):
        out, err = env.run("explain", "--text", text, "--embeddings", env.embeddings, "--query", q,
                           "--json")
        assert "occurs" not in err, err
        second.append(json.loads(out))
    assert second[0] == second[1] and second[0] != first
    _, err = env.run("explain", "--text", text, "--embeddings", env.embeddings, "--query", "bank#3",
                     expect=2)
    assert "'bank' occurs 2 times (positions 4 and 10; bank#1 is the first)" in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
