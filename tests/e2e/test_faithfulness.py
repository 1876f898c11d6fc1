#!/usr/bin/env python3
"""attn-viz faithfulness on the bundled kjv-gpt, checked from outside: every point of every
curve recomputed by erasing the ranked tokens in Python and reading p(prediction) from
`attn-viz model --npy`'s hidden state through the output embeddings in NumPy (softmax in
float64); each measure's ranking against its rollout's row (`model --view rollout --npy`); the
random orders fixed by the seed; --replace-id; a masked LM's [MASK], [CLS] and [SEP] never
erased; the refusals (exit 2, one line, nothing written)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import read_safetensors  # noqa: E402
from harness import import_numpy, main  # noqa: E402

np = import_numpy()
TEXT = "And God said, Let there be light: and there was"
TOLERANCE = 2e-5


def kjv(env):
    return os.path.join(env.samples, "kjv-gpt")


class Model:
    """p(ŷ) of an id sequence at its last row: attn-viz's hidden state, NumPy's logits."""

    def __init__(self, env):
        self.env = env
        weights = read_safetensors(os.path.join(kjv(env), "model.safetensors"))
        self.wte = next(v for k, v in weights.items() if k.endswith("wte.weight"))
        self.runs = 0

    def probabilities(self, ids):
        self.runs += 1
        out = self.env.path(f"hidden-{self.runs}")
        self.env.run("model", "--model", kjv(self.env), "--ids", ",".join(map(str, ids)), "--npy",
                     out, "-q")
        z = np.load(os.path.join(out, "hidden.npy")).astype(np.float64)[-1] @ self.wte.T
        e = np.exp(z - z.max())
        return e / e.sum()


def faithfulness(env, name, *extra):
    out = env.path(name + ".json")
    env.run("faithfulness", "--model", kjv(env), "--text", TEXT, "--json", out, "-q", *extra)
    return json.load(open(out, encoding="utf-8"))


def test_curves_agree_with_erasing_by_hand(env):
    doc = faithfulness(env, "f", "--k", "3", "--random", "2", "--measures", "weights,alti")
    t = doc["texts"][0]
    ids, predicted = t["ids"], t["prediction"]["id"]
    model = Model(env)
    p = model.probabilities(ids)
    assert predicted == int(np.argmax(p))
    assert abs(t["prediction"]["probability"] - p[predicted]) <= TOLERANCE
    assert t["erasable"] == list(range(len(ids)))  # GPT-2 adds no special token
    full = p[predicted]
    for name, m in t["measures"].items():
        ranking = m["ranking"]
        assert sorted(ranking) == t["erasable"]
        for k in range(1, 4):
            top = set(ranking[:k])
            without = [i for j, i in enumerate(ids) if j not in top]
            only = [i for j, i in enumerate(ids) if j in top]
            comp = full - model.probabilities(without)[predicted]
            suff = full - model.probabilities(only)[predicted]
            assert abs(m["comprehensiveness"][k - 1] - comp) <= TOLERANCE, (name, k)
            assert abs(m["sufficiency"][k - 1] - suff) <= TOLERANCE, (name, k)
    summary = doc["summary"]["weights"]
    assert summary["comprehensiveness"] == t["measures"]["weights"]["comprehensiveness"]
    assert abs(summary["comprehensiveness_aopc"] - np.mean(summary["comprehensiveness"])) <= 1e-12
    print(f"  {len(ids)} tokens, p = {full:.4f}: 2 measures x 3 k x 2 curves agree "
          f"({model.runs} runs of attn-viz model)")


def test_rankings_are_the_rollout_rows(env):
    doc = faithfulness(env, "ranks", "--k", "2", "--random", "0")
    t = doc["texts"][0]
    ids = ",".join(map(str, t["ids"]))
    assert doc["measures"] == ["weights", "norms", "contrib", "alti", "value-zeroing"]
    for name in doc["measures"]:
        out = env.path("rollout-" + name)
        env.run("model", "--model", kjv(env), "--ids", ids, "--measure", name, "--view", "rollout",
                "--npy", out, "-q")
        row = np.load(os.path.join(out, "view.npy"))[t["position"]]
        ranking = t["measures"][name]["ranking"]
        shares = row[ranking]
        assert (np.diff(shares) <= 1e-6).all(), (name, shares)  # non-increasing
        assert ranking[0] == int(np.argmax(row)), name


def test_random_orders_follow_the_seed(env):
    a = faithfulness(env, "seed-a", "--k", "2", "--random", "3", "--measures", "weights",
                     "--seed", "4")
    b = faithfulness(env, "seed-b", "--k", "2", "--random", "3", "--measures", "weights",
                     "--seed", "4")
    c = faithfulness(env, "seed-c", "--k", "2", "--random", "3", "--measures", "weights",
                     "--seed", "5")
    assert open(env.path("seed-a.json"), "rb").read() == open(env.path("seed-b.json"), "rb").read()
    assert a["summary"]["random"] != c["summary"]["random"]
    assert a["summary"]["weights"] == c["summary"]["weights"]


def test_replace_id_puts_the_token_in_place(env):
    doc = faithfulness(env, "replace", "--k", "1", "--random", "0", "--measures", "weights",
                       "--replace-id", "0")
    assert doc["erase"].startswith("replace by id 0")
    t = doc["texts"][0]
    ids, predicted = list(t["ids"]), t["prediction"]["id"]
    top = t["measures"]["weights"]["ranking"][0]
    model = Model(env)
    full = model.probabilities(ids)[predicted]
    replaced = [0 if j == top else i for j, i in enumerate(ids)]
    comp = full - model.probabilities(replaced)[predicted]
    assert abs(t["measures"]["weights"]["comprehensiveness"][0] - comp) <= TOLERANCE


def test_keep_last_never_erases_the_last_token(env):
    doc = faithfulness(env, "keep", "--k", "2", "--random", "1", "--keep-last")
    assert doc["keep_last"] is True
    t = doc["texts"][0]
    last = len(t["ids"]) - 1
    assert t["erasable"] == list(range(last))
    for name, m in t["measures"].items():
        assert last not in m["ranking"], name
        assert sorted(m["ranking"]) == t["erasable"], name
    plain = faithfulness(env, "plain", "--k", "2", "--random", "0", "--measures", "weights")
    assert plain["keep_last"] is False and plain["texts"][0]["erasable"][-1] == last


def test_input_file_means_and_skipped_lines_and_figure(env):
    lines = env.path("texts.txt")
    with open(lines, "w", encoding="utf-8") as f:
        f.write(TEXT + "\n\nAnd\nIn the beginning God created the heaven and the earth.\n")
    png, js = env.path("f.png"), env.path("means.json")
    stdout, stderr = env.run("faithfulness", "--model", kjv(env), "--input", lines, "--k", "2",
                             "--random", "2", "--measures", "weights,norms", "--png", png,
                             "--json", js, "-q")
    assert "line 3: 1 tokens may be erased" in stderr and "skipped" in stderr, stderr
    doc = json.load(open(js, encoding="utf-8"))
    assert len(doc["texts"]) == 2
    for name in ("weights", "norms", "random"):
        per = [(t["random"] if name == "random" else t["measures"][name])["comprehensiveness"]
               for t in doc["texts"]]
        want = np.mean(per, axis=0)
        assert np.allclose(doc["summary"][name]["comprehensiveness"], want, atol=1e-12), name
    assert "weights" in stdout and "random (2)" in stdout and "comp AOPC" in stdout
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_a_masked_lm_keeps_its_mask_and_special_tokens(env):
    folder = os.path.join(env.data, "hf", "bert_f32")
    out = env.path("bert.json")
    env.run("faithfulness", "--model", folder, "--text", "w1 w2 w3 [MASK] w4 w5 w6", "--k", "2",
            "--random", "1", "--measures", "weights,contrib", "--json", out, "-q")
    t = json.load(open(out, encoding="utf-8"))["texts"][0]
    assert t["tokens"][0] == "[CLS]" and t["tokens"][-1] == "[SEP]", t["tokens"]
    assert t["tokens"][t["position"]] == "[MASK]"
    assert t["erasable"] == [j for j, s in enumerate(t["tokens"]) if s not in ("[CLS]", "[SEP]",
                                                                             "[MASK]")]
    for m in t["measures"].values():
        assert sorted(m["ranking"]) == t["erasable"]


def test_refusals(env):
    def refused(*argv, says):
        out = env.path("refused.json")
        _, err = env.run("faithfulness", *argv, "--json", out, expect=2)
        assert says in err, err
        assert len(err.strip().splitlines()) == 1, err
        assert not os.path.exists(out)

    refused("--model", kjv(env), "--text", "And God said", "--k", "3",
            says="3 tokens may be erased, and --k 3 needs at least 4")
    refused("--model", kjv(env), "--text", TEXT, "--measures", "alit", says="alti")
    refused("--model", kjv(env), says="--text")
    refused("--model", os.path.join(env.samples, "rv-kjv-marian"), "--text", TEXT,
            says="encoder")
    refused("--model", os.path.join(env.data, "hf", "bert_f32"), "--text", "w1 w2 w3 w4 w5",
            says="mask")
    blank = env.path("blank.txt")
    open(blank, "w").write("\n  \n")
    refused("--model", kjv(env), "--input", blank, says="has no text")


if __name__ == "__main__":
    sys.exit(main(globals()))
