#!/usr/bin/env python3
"""End-to-end tests of `attn-viz compare` and of the figure outputs (SVG, --show, --term).

compare's metrics are recomputed here with NumPy from the weights in its JSON."""
import json
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, main, png_size  # noqa: E402

np = import_numpy()

SENTENCE = "the cat sat on the floor because it was tired"
SIX = "dot,scaled_dot,general,additive,concat,cosine"


def entropy_bits(p):
    nz = p[p > 0]
    return float(-(nz * np.log2(nz)).sum())


def js_bits(p, q):
    m = (p + q) / 2
    def kl(a):
        nz = a > 0
        return float((a[nz] * np.log2(a[nz] / m[nz])).sum())
    return 0.5 * kl(p) + 0.5 * kl(q)


def average_ranks(x):
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    xs = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and xs[j + 1] == xs[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(p, q):
    rp, rq = average_ranks(p), average_ranks(q)
    if rp.std() == 0 or rq.std() == 0:
        return None
    return float(np.corrcoef(rp, rq)[0, 1])


def test_compare_multi_head_variants_on_their_heads_mean_or_max(env):
    for view in ("mean", "max"):
        js, png = env.path(f"mha-{view}.json"), env.path(f"mha-{view}.png")
        out, _ = env.run("compare", "--text", SENTENCE, "--embeddings", env.embeddings,
                         "--scores", "scaled_dot,general,additive", "--heads", "5",
                         "--head-view", view, "--json", js, "--png", png)
        doc = json.load(open(js, encoding="utf-8"))
        shown = []
        for v in doc["variants"]:
            assert v["variant"]["heads"] == 5 and len(v["heads"]) == 5
            heads = np.array([h["weights"] for h in v["heads"]], dtype=np.float64)
            assert np.allclose(v["mean_weights"], heads.mean(axis=0), atol=1e-6)
            assert len(v["output"]) == len(v["heads"][0]["weights"])
            # the metrics need distributions: always the heads' mean (max is only drawn)
            w = heads.mean(axis=0)
            shown.append(w)
            assert abs(v["mean_max_weight"] - w.max(axis=1).mean()) < 1e-6, view
        pair = doc["pairs"][0]
        agree = np.mean(shown[0].argmax(axis=1) == shown[1].argmax(axis=1))
        assert abs(pair["top_key_agreement"] - agree) < 1e-12
        assert png_size(png)[0] > 3 * 300


def test_compare_grid_table_and_metrics(env):
    png, svg, js = env.path("grid.png"), env.path("grid.svg"), env.path("cmp.json")
    out, _ = env.run("compare", "--text", SENTENCE, "--embeddings", env.embeddings, "--scores",
                     SIX, "--png", png, "--svg", svg, "--json", js)
    for name in SIX.split(","):
        assert name in out
    assert "JS (bits)" in out and "Spearman" in out
    doc = json.load(open(js, encoding="utf-8"))
    labels = [v["label"] for v in doc["variants"]]
    assert labels == SIX.split(","), labels
    weights = [np.array(v["heads"][0]["weights"], dtype=np.float64) for v in doc["variants"]]
    for v, w in zip(doc["variants"], weights):
        assert abs(v["mean_entropy_bits"] - np.mean([entropy_bits(r) for r in w])) < 1e-6
        assert abs(v["mean_max_weight"] - w.max(axis=1).mean()) < 1e-6
    assert len(doc["pairs"]) == 15
    for pair in doc["pairs"]:
        a, b = weights[labels.index(pair["a"])], weights[labels.index(pair["b"])]
        js_mean = np.mean([js_bits(p, q) for p, q in zip(a, b)])
        assert abs(pair["mean_js_divergence_bits"] - js_mean) < 1e-6, pair
        agree = np.mean(a.argmax(axis=1) == b.argmax(axis=1))
        assert abs(pair["top_key_agreement"] - agree) < 1e-12, pair
        rhos = [r for r in (spearman(p, q) for p, q in zip(a, b)) if r is not None]
        assert pair["spearman_rows"] == len(rhos)
        assert abs(pair["mean_spearman"] - np.mean(rhos)) < 1e-6, pair
    # scaled_dot = dot / sqrt(d) ranks keys the same way as dot: Spearman 1, same top keys
    same = [p for p in doc["pairs"] if (p["a"], p["b"]) == ("dot", "scaled_dot")][0]
    assert abs(same["mean_spearman"] - 1.0) < 1e-9 and same["top_key_agreement"] == 1.0
    width, height = png_size(png)
    assert width > 3 * 300 and height > 2 * 300, (width, height)
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg") and int(root.get("width")) == width
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "additive" in texts and "tired" in texts


def test_compare_is_deterministic(env):
    outputs = []
    for k in range(2):
        files = [env.path(f"same{k}.png"), env.path(f"same{k}.svg"), env.path(f"same{k}.json")]
        env.run("compare", "--text", SENTENCE, "--embeddings", env.embeddings, "--scores", "all",
                "--seed", "3", "--png", files[0], "--svg", files[1], "--json", files[2])
        outputs.append([open(f, "rb").read() for f in files])
    assert outputs[0] == outputs[1]
    assert len(json.loads(outputs[0][2])["variants"]) == 8


def test_compare_alignment_functions(env):
    js = env.path("aligns.json")
    env.run("compare", "--text", SENTENCE, "--embeddings", env.embeddings, "--score",
            "additive", "--aligns", "softmax,hardmax", "--scale", "panel", "--panel-cols", "1",
            "--json", js, "--png", env.path("aligns.png"))
    doc = json.load(open(js))
    assert [v["label"] for v in doc["variants"]] == ["softmax", "hardmax"]
    hard = np.array(doc["variants"][1]["heads"][0]["weights"])
    assert set(np.unique(hard)) <= {0.0, 1.0}
    assert doc["variants"][1]["mean_entropy_bits"] == 0.0
    assert doc["pairs"][0]["top_key_agreement"] == 1.0  # hardmax keeps softmax's top key


def test_compare_needs_two_variants_and_known_names(env):
    _, err = env.run("compare", "--text", SENTENCE, "--embeddings", env.embeddings, expect=2)
    assert "at least two variants" in err
    _, err = env.run("compare", "--text", SENTENCE, "--embeddings", env.embeddings, "--scores",
                     "dot,cosin", "--png", env.path("never.png"), expect=2)
    assert "Did you mean 'cosine'?" in err
    assert not os.path.exists(env.path("never.png"))


def test_run_svg_scores_and_colormaps(env):
    svg, png = env.path("scores.svg"), env.path("scores.png")
    env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--score", "additive",
            "--show", "scores", "--svg", svg, "--png", png)
    root = ET.parse(svg).getroot()
    width, height = png_size(png)
    assert (int(root.get("width")), int(root.get("height"))) == (width, height)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any(t and t.startswith("scores e_ij") for t in texts), texts
    for cmap in ("viridis", "magma", "inferno", "plasma", "cividis", "gray", "rdbu"):
        env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--cmap", cmap,
                "--png", env.path(f"{cmap}.png"))
    _, err = env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--cmap",
                     "viridiss", "--png", env.path("x.png"), expect=2)
    assert "Did you mean 'viridis'?" in err


def test_pixels_decode_in_pil(env):
    try:
        from PIL import Image
    except ImportError:
        print("  python3-pil is not installed; PNG decoding left to the IHDR check")
        return
    png = env.path("pil.png")
    env.run("run", "--tokens", "aaa bbb", "--embeddings", env.embeddings, "--align", "hardmax",
            "--png", png, "--cell", "40", "--annotate", "off")
    viridis = [tuple(round(float(c) * 255) for c in line.split(","))
               for line in open(os.path.join(os.path.dirname(env.samples), "assets", "colormaps",
                                             "viridis.csv")) if not line.startswith("#")]
    with Image.open(png) as im:
        colours = {c for _, c in im.convert("RGB").getcolors(1 << 20)}
    # hardmax weights are exactly 0 and 1: both ends of viridis fill whole cells
    assert viridis[0] in colours and viridis[255] in colours


def test_term_without_a_terminal_prints_numbers(env):
    out, _ = env.run("run", "--text", "the cat sat", "--embeddings", env.embeddings, "--term")
    assert "\x1b[" not in out and "0." in out
    out, _ = env.run("run", "--text", "the cat sat", "--embeddings", env.embeddings, "--term",
                     extra_env={"NO_COLOR": "1"})
    assert "\x1b[" not in out


if __name__ == "__main__":
    sys.exit(main(globals()))
