#!/usr/bin/env python3
"""compare --model / --weights: the heads of a layer, or the layers, compared with the JS
divergence, top-1 agreement and Spearman, recomputed here with NumPy (and SciPy-free ranks) from
attention.npy of the same run; causal maps over each row's visible keys, row 0 left out; the
figure is the JS matrix; the refusals of flags from the other mode."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, main, png_size  # noqa: E402

np = import_numpy()
IDS = "5,9,3,7,5,9,3,7,2,11,4,6"


def hf(env, name):
    return os.path.join(env.data, "hf", name)


def js_bits(p, q):
    m = (p + q) / 2
    def kl(a, b):
        nz = a > 0
        return float(np.sum(a[nz] * np.log2(a[nz] / b[nz])))
    return kl(p, m) / 2 + kl(q, m) / 2


def ranks(x):
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(len(x), dtype=float)
    for v in np.unique(x):  # ties share their mean rank
        tie = x == v
        r[tie] = r[tie].mean()
    return r


def spearman(p, q):
    if np.all(p == p[0]) or np.all(q == q[0]):
        return None
    a, b = ranks(p), ranks(q)
    a, b = a - a.mean(), b - b.mean()
    return float(np.sum(a * b) / np.sqrt(np.sum(a * a) * np.sum(b * b)))


def expected(maps, causal):
    """Pairwise means over the rows every map has weight in (row 0 and hidden keys out when
    causal)."""
    k, n = len(maps), maps[0].shape[0]
    js = np.zeros((k, k))
    agree = np.ones((k, k))
    rho = np.ones((k, k))
    rows = [i for i in range(n) if not (causal and i == 0)]
    for a in range(k):
        for b in range(a + 1, k):
            j_sum = t_sum = r_sum = 0.0
            r_rows = 0
            for i in rows:
                keys = i + 1 if causal else n
                p, q = maps[a][i, :keys], maps[b][i, :keys]
                j_sum += js_bits(p, q)
                t_sum += float(np.argmax(p) == np.argmax(q))
                r = spearman(p, q)
                if r is not None:
                    r_sum += r
                    r_rows += 1
            js[a, b] = js[b, a] = j_sum / len(rows)
            agree[a, b] = agree[b, a] = t_sum / len(rows)
            rho[a, b] = rho[b, a] = r_sum / r_rows if r_rows else np.nan
    entropy = []
    for m in maps:
        e = []
        for i in rows:
            p = m[i, :(i + 1 if causal else n)]
            p = p[p > 0]
            e.append(float(-np.sum(p * np.log2(p))))
        entropy.append(np.mean(e))
    return js, agree, rho, entropy


def run(env, name, *argv):
    out = env.path(name + ".json")
    stdout, _ = env.run("compare", *argv, "--json", out)
    return json.load(open(out)), stdout


def check(report, maps, causal, labels):
    js, agree, rho, entropy = expected(maps, causal)
    assert report["labels"] == labels and report["causal"] == causal
    got_rho = np.array([[np.nan if v is None else v for v in row] for row in report["spearman"]])
    assert np.allclose(report["js_divergence_bits"], js, atol=2e-6)
    assert np.allclose(report["top_key_agreement"], agree, atol=1e-6)
    assert np.allclose(got_rho, rho, atol=2e-6, equal_nan=True)
    assert np.allclose(report["entropy_bits"], entropy, atol=2e-6)


def test_heads_and_layers_against_numpy(env):
    for name, causal in [("gpt2_f32", True), ("llama_bf16_gqa", True), ("bert_f32", False)]:
        npy = env.path(name + "-npy")
        ids = IDS if causal else "2,7,9,11,3,5,8,3"
        env.run("model", "--model", hf(env, name), "--ids", ids, "--npy", npy, "-q")
        a = np.load(os.path.join(npy, "attention.npy")).astype(np.float64)
        L, H = a.shape[:2]
        for layer in range(L):
            report, text = run(env, f"{name}-h{layer}", "--model", hf(env, name), "--ids", ids,
                               "--between", "heads", "--layer", str(layer), "--quiet")
            check(report, [a[layer, h] for h in range(H)], causal, [f"H{h}" for h in range(H)])
            assert report["between"] == "heads" and report["layer"] == layer
            assert f"the heads of layer {layer} of {name}" in text and "most alike:" in text
        report, text = run(env, f"{name}-layers", "--model", hf(env, name), "--ids", ids,
                           "--between", "layers", "--quiet")
        check(report, [a[l].mean(0) for l in range(L)], causal, [f"L{l}" for l in range(L)])
        assert report["layer"] is None
        # the same maps from the file give the same numbers
        again, _ = run(env, f"{name}-file", "--weights", os.path.join(npy, "attention.npy"),
                       "--between", "layers")
        assert again["js_divergence_bits"] == report["js_divergence_bits"]


def test_figure_is_the_js_matrix(env):
    png, svg = env.path("js.png"), env.path("js.svg")
    env.run("compare", "--model", hf(env, "gpt2_f32"), "--ids", IDS, "--layer", "1", "--png", png,
            "--svg", svg, "--quiet")
    w, h = png_size(png)
    assert w > 200 and h > 150
    text = open(svg, encoding="utf-8").read()
    assert "JS divergence between the heads of layer 1" in text
    assert all(f">H{k}</text>" in text for k in range(4))


def test_refusals(env):
    model = ["compare", "--model", hf(env, "gpt2_f32"), "--ids", IDS]
    for extra, words in [(["--scores", "dot,cosine"], ["--scores", "variants"]),
                         (["--html", env.path("x.html")], ["--html", "variants"]),
                         (["--layer", "2"], ["--layer 2", "2 layers"]),
                         (["--between", "layers", "--layer", "1"], ["--layer", "--between heads"]),
                         (["--weights", "x.npy"], ["--model", "--weights"])]:
        _, err = env.run(*model, *extra, "--quiet", expect=2)
        for w in words:
            assert w in err, (extra, err)
        assert err.count("\n") == 1, err
    _, err = env.run("compare", "--text", "the cat sat", "--between", "layers", expect=2)
    assert "--between" in err and "--model" in err
    _, err = env.run("compare", "--model", hf(env, "gpt2_f32"), expect=2)
    assert "--text" in err and "--ids" in err


if __name__ == "__main__":
    sys.exit(main(globals()))
