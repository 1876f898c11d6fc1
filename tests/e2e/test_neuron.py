#!/usr/bin/env python3
"""attn-viz explain --model (the neuron view) against NumPy: layer 0's queries, keys and values
(after RoPE for the Llama family, key/value heads shared under grouped-query attention) computed
here from the checkpoint's tensors; in every layer, the scores, the softmax and the value mixing
recomputed from the JSON's vectors and compared with the model's map (`attn-viz model --npy`);
the masks (causal, Mistral's sliding window); the figure's cells decoded from the SVG and the PNG
against RdBu of the numbers; the text; the refusals."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import colormap, nice_at_or_above, read_safetensors, shown_tokens  # noqa: E402
from harness import import_numpy, main  # noqa: E402

np = import_numpy()


def hf(env, name):
    return os.path.join(env.data, "hf", name)


def layer0_gpt2(folder, ids):
    t = {k[len("transformer."):] if k.startswith("transformer.") else k: v
         for k, v in read_safetensors(os.path.join(folder, "model.safetensors")).items()}
    c = json.load(open(os.path.join(folder, "config.json")))
    x = t["wte.weight"][ids] + t["wpe.weight"][:len(ids)]
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    a = (x - mu) / np.sqrt(var + c["layer_norm_epsilon"]) * t["h.0.ln_1.weight"] + t["h.0.ln_1.bias"]
    qkv = a @ t["h.0.attn.c_attn.weight"] + t["h.0.attn.c_attn.bias"]
    d = c["n_embd"]
    return qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:], c["n_head"], c["n_head"]


def rope(x, heads, dh, theta):
    n = x.shape[0]
    inv = theta ** (-np.arange(0, dh, 2) / dh)           # dh / 2 frequencies
    ang = np.arange(n)[:, None] * inv[None, :]            # [n, dh / 2]
    cos, sin = np.cos(ang), np.sin(ang)
    out = x.copy()
    for h in range(heads):
        v = x[:, h * dh:(h + 1) * dh]
        a, b = v[:, :dh // 2], v[:, dh // 2:]
        out[:, h * dh:h * dh + dh // 2] = a * cos - b * sin
        out[:, h * dh + dh // 2:(h + 1) * dh] = b * cos + a * sin
    return out


def layer0_llama(folder, ids):
    t = read_safetensors(os.path.join(folder, "model.safetensors"))
    c = json.load(open(os.path.join(folder, "config.json")))
    H, KV = c["num_attention_heads"], c["num_key_value_heads"]
    dh = c.get("head_dim", c["hidden_size"] // H)
    x = t["model.embed_tokens.weight"][ids]
    m = x / np.sqrt((x ** 2).mean(-1, keepdims=True) + c["rms_norm_eps"]) * \
        t["model.layers.0.input_layernorm.weight"]
    p = "model.layers.0.self_attn."
    q = m @ t[p + "q_proj.weight"].T
    k = m @ t[p + "k_proj.weight"].T
    v = m @ t[p + "v_proj.weight"].T
    for name, arr in (("q_proj.bias", q), ("k_proj.bias", k), ("v_proj.bias", v)):
        if p + name in t:
            arr += t[p + name]
    return rope(q, H, dh, c["rope_theta"]), rope(k, KV, dh, c["rope_theta"]), v, H, KV


def neuron(env, folder, ids, layer, head, query, extra=()):
    out, _ = env.run("explain", "--model", folder, "--ids", ",".join(map(str, ids)), "--layer",
                     str(layer), "--head", str(head), "--query", str(query), "--json", "--quiet",
                     *extra)
    return json.loads(out)


def maps_of(env, folder, ids, name):
    npy = env.path(name)
    env.run("model", "--model", folder, "--ids", ",".join(map(str, ids)), "--npy", npy, "-q")
    return np.load(os.path.join(npy, "attention.npy")).astype(np.float64)


def check_walk(j, row, causal, window=0):
    """The scores, the softmax and the mixing of one JSON walk against the model's map row."""
    i, dh = j["query"]["position"], j["d_head"]
    q = np.array(j["q"])
    visible = [p for p in range(len(row)) if (not causal or p <= i) and (not window or i - p < window)]
    assert [k["position"] for k in j["keys"]] == visible
    assert j["hidden_keys"] == len(row) - len(visible)
    K = np.array([k["k"] for k in j["keys"]])
    V = np.array([k["v"] for k in j["keys"]])
    prod = np.array([k["q_times_k"] for k in j["keys"]])
    assert np.allclose(prod, q[None, :] * K, atol=1e-12)
    s = K @ q / np.sqrt(dh)
    assert np.allclose([k["score"] for k in j["keys"]], s, atol=1e-9)
    assert np.allclose([k["dot"] for k in j["keys"]], prod.sum(1), atol=1e-9)
    a = np.exp(s - s.max())
    a /= a.sum()
    assert np.allclose([k["weight"] for k in j["keys"]], a, atol=1e-12)
    # the vectors reproduce the model's map (itself checked against PyTorch in e2e.model)
    err = np.abs(a - row[visible]).max()
    assert err < 2e-6, err
    assert np.all(row[[p for p in range(len(row)) if p not in visible]] == 0)
    assert abs(j["weight_error"] - max(err, 0)) < 1e-6
    c = a @ V
    assert np.allclose(j["context"], c, atol=1e-9)
    assert abs(j["context_norm"] - np.linalg.norm(c)) < 1e-9
    assert np.allclose([k["mixed_norm"] for k in j["keys"]], a * np.linalg.norm(V, axis=1), atol=1e-9)
    return err


def test_layer0_vectors_match_numpy(env):
    for name, forward, ids in [("gpt2_f32", layer0_gpt2, [5, 9, 3, 7, 5, 9, 2, 11]),
                               ("llama_bf16_gqa", layer0_llama, [4, 17, 8, 30, 4, 17, 1, 9, 22]),
                               ("mistral_f16_window", layer0_llama, [3, 6, 9, 12, 15, 3, 6])]:
        folder = hf(env, name)
        Q, K, V, H, KV = forward(folder, ids)
        dh = Q.shape[1] // H
        worst = 0.0
        for head in range(H):
            g = head // (H // KV)
            for query in (len(ids) - 1, len(ids) // 2):
                j = neuron(env, folder, ids, 0, head, query)
                assert j["kv_head"] == g and j["d_head"] == dh
                scale = max(1.0, np.abs(Q).max(), np.abs(K).max())
                for got, want in [(j["q"], Q[query, head * dh:(head + 1) * dh])] + \
                        [(k["k"], K[k["position"], g * dh:(g + 1) * dh]) for k in j["keys"]] + \
                        [(k["v"], V[k["position"], g * dh:(g + 1) * dh]) for k in j["keys"]]:
                    d = np.abs(np.array(got) - want).max() / scale
                    worst = max(worst, d)
                    assert d < 2e-5, (name, head, query, d)
        print(f"  {name}: layer 0, {H} heads ({KV} key/value), worst relative |difference| {worst:.1e}")


def test_every_layer_reproduces_the_map(env):
    for name, ids, window in [("gpt2_f32", [5, 9, 3, 7, 5, 9, 2, 11], 0),
                              ("llama_bf16_gqa", [4, 17, 8, 30, 4, 17, 1, 9, 22], 0),
                              ("mistral_f16_window", [1, 5, 9, 13, 17, 21, 25, 29, 33, 2], 4),
                              ("bert_f32", [2, 7, 9, 11, 3], 0)]:
        folder = hf(env, name)
        maps = maps_of(env, folder, ids, name + "-maps")
        causal = name != "bert_f32"
        L, H = maps.shape[:2]
        worst = 0.0
        for layer in range(L):
            for head in range(H):
                for query in (0, len(ids) - 1, len(ids) // 2):
                    j = neuron(env, folder, ids, layer, head, query)
                    worst = max(worst, check_walk(j, maps[layer, head, query], causal, window))
        print(f"  {name}: {L} x {H} heads, worst |a - map| {worst:.1e}")


def colour(cmap, v, rng):
    t = min(1.0, max(0.0, 0.5 + 0.5 * v / rng))
    return cmap[0] if t <= 0 else cmap[min(int(t * len(cmap)), len(cmap) - 1)]


def test_figure_cells_are_the_numbers(env):
    from PIL import Image
    folder = hf(env, "llama_bf16_gqa")
    ids = [4, 17, 8, 30, 4, 17, 1, 9, 22]
    png, svg = env.path("neuron.png"), env.path("neuron.svg")
    out, err = env.run("explain", "--model", folder, "--ids", ",".join(map(str, ids)), "--layer", "1",
                       "--head", "3", "--query", "6", "--json", "--quiet", "--png", png, "--svg", svg)
    j = json.loads(out)
    assert f"wrote {png}" in err and f"wrote {svg}" in err
    dh = j["d_head"]
    cell = min(14, max(2, 480 // dh))
    text = open(svg).read()
    rects = [(int(x), int(y), int(w), int(h), f) for x, y, w, h, f in re.findall(
        r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" fill="#([0-9a-f]{6})"/>', text)]
    cells = [r for r in rects if r[2] == cell and r[3] == 14]
    keys = j["keys"]
    assert len(keys) == 7 and len(cells) == dh * (1 + 2 * len(keys)), len(cells)
    cmap = colormap(env, "rdbu")
    vec_range = nice_at_or_above(max(np.abs(j["q"]).max(), max(np.abs(k["k"]).max() for k in keys)))
    prod_range = nice_at_or_above(max(np.abs(k["q_times_k"]).max() for k in keys))
    want = [colour(cmap, v, vec_range) for v in j["q"]]
    for k in keys:
        want += [colour(cmap, v, vec_range) for v in k["k"]]
        want += [colour(cmap, v, prod_range) for v in k["q_times_k"]]
    img = np.asarray(Image.open(png).convert("RGB")).astype(int)
    w, h = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', text).groups()
    assert img.shape[:2] == (int(h), int(w))
    for (x, y, cw, ch, fill), rgb in zip(cells, want):
        assert fill == "%02x%02x%02x" % tuple(rgb), (x, y, fill, rgb)
        assert list(img[y + ch // 2, x + cw // 2]) == list(rgb), (x, y)
    # rows are the keys in position order, each labelled, with its weight
    for k in keys:
        assert f'{k["weight"] * 100:.1f}%' in text
        shown = shown_tokens([k["token"]])[0]  # SentencePiece: one token reads the same alone
        assert re.search(rf'>{k["position"]} {re.escape(shown)}</text>', text), k["position"]
    # the weight bars: widths round(a * 120)
    bars = [r for r in rects if r[3] == 12 and r[4] == "1f77b4"]
    assert [r[2] for r in bars] == [round(k["weight"] * 120) for k in keys if round(k["weight"] * 120) > 0]
    assert "2 hidden by the mask" in text


def test_page_in_a_real_browser(env):
    """explain --model --html: the page's own walk (recomputed in the browser) equals the JSON
    walk for the query it opens on and for another one chosen in its selector; hovering a cell
    of q ⊙ k shows that dimension's numbers; no request, no script error."""
    import re as _re
    from browser import start_browser
    folder = hf(env, "llama_bf16_gqa")
    ids = [4, 17, 8, 30, 4, 17, 1, 9, 22]
    page = env.path("neuron.html")
    env.run("explain", "--model", folder, "--ids", ",".join(map(str, ids)), "--layer", "1",
            "--head", "3", "--query", "6", "--html", page, "-q")
    html = open(page, encoding="utf-8").read()
    assert "default-src 'none'" in html and "https:" not in html
    browser = start_browser()
    try:
        url = "file://" + os.path.abspath(page)
        browser.open(url)
        for query in (6, 8, 2):
            if query != 6:
                browser.evaluate(f"window.attnviz.select({query})")
            want = neuron(env, folder, ids, 1, 3, query)
            got = json.loads(browser.evaluate("JSON.stringify(window.attnviz.trace())"))
            assert got["query"] == query
            assert [k["j"] for k in got["keys"]] == [k["position"] for k in want["keys"]]
            scale = max(1.0, max(abs(x) for x in want["q"]))
            assert max(abs(a - b) for a, b in zip(got["q"], want["q"])) <= 1e-5 * scale
            for g, k in zip(got["keys"], want["keys"]):
                assert abs(g["score"] - k["score"]) <= 1e-4 * max(1.0, abs(k["score"])), (g, k)
                assert abs(g["weight"] - k["weight"]) <= 1e-5, (g["weight"], k["weight"])
            assert got["error"] < 1e-5, got["error"]
            # hover the q ⊙ k cell of the top key, dimension 3
            row = max(range(len(want["keys"])), key=lambda r: want["keys"][r]["weight"])
            c = json.loads(browser.evaluate(f"JSON.stringify(window.attnviz.cellCenter({row}, 3, 'prod'))"))
            browser.move_mouse(c["x"], c["y"])
            text = browser.evaluate("document.getElementById('hover').textContent")
            k = want["keys"][row]
            assert f"key {k['position']} " in text and "dimension 3:" in text, text
            shown = float(_re.search(r"q·k = (-?\d+\.\d{4})$", text).group(1))
            assert abs(shown - k["q_times_k"][3]) <= 1e-3 * max(1.0, abs(k["q_times_k"][3])), (shown, k["q_times_k"][3])
        assert browser.console_errors() == []
        assert browser.requests() == [url], browser.requests()
    finally:
        browser.close()


def test_text_walk(env):
    folder = hf(env, "gpt2_f32")
    ids = "5,9,3,7,5,9"
    out, _ = env.run("explain", "--model", folder, "--ids", ids, "--layer", "1", "--head", "2",
                     "--top", "2", "--quiet")
    j = neuron(env, folder, [5, 9, 3, 7, 5, 9], 1, 2, 5)  # the last token by default: 5
    out_default, _ = env.run("explain", "--model", folder, "--ids", ids, "--layer", "1", "--head", "2",
                             "--top", "2", "--quiet")
    assert out == out_default
    assert 'layer 1, head 2 · query 5 "' in out
    top = sorted(j["keys"], key=lambda k: -k["weight"])[:2]
    for r, k in enumerate(top):
        assert re.search(rf"\n +{r + 1} +{k['position']} .* {k['dot']:+.4f} +{k['score']:+.4f} +"
                         rf"{100 * k['weight']:.2f}%", out), (k, out)
    assert f"|c_5| = {j['context_norm']:.4f}" in out
    assert "more keys" in out and "checked: " in out
    # a token as the vocabulary spells it, or without its word mark, picks its first occurrence
    vocab = json.load(open(os.path.join(folder, "vocab.json")))
    token = {v: k for k, v in vocab.items()}[9]
    j2 = neuron(env, folder, [5, 9, 3, 7, 5, 9], 1, 2, token)
    assert j2["query"]["position"] == 1


def test_weight_beside_contribution_agrees_with_the_norms_measure(env):
    """explain's part 5 (a_ij |v_j W_O^h|, in double, key by key) against `model --measure norms`
    (norms.npy: the measure's own path through the Gram matrices), for GPT-2's Conv1D layout and
    Llama's grouped-query heads; the shares sum to 1 and the sentence names the key where they
    part most."""
    for name, ids, layer, head, query in (("gpt2_f32", [5, 9, 3, 7, 5, 9], 1, 2, 5),
                                          ("llama_bf16_gqa", [3, 8, 12, 5, 9, 14, 2], 1, 3, 6)):
        folder = hf(env, name)
        j = neuron(env, folder, ids, layer, head, query)
        npy = env.path("norms-" + name)
        env.run("model", "--model", folder, "--ids", ",".join(map(str, ids)), "--measure", "norms",
                "--npy", npy, "-q")
        row = np.load(os.path.join(npy, "norms.npy"))[layer, head, query].astype(np.float64)
        for k in j["keys"]:
            assert abs(k["output_norm"] - row[k["position"]]) <= 1e-5 * row.max(), (k["position"], k["output_norm"], row)
            assert abs(k["norm_share"] - row[k["position"]] / row.sum()) <= 1e-5
        assert abs(sum(k["norm_share"] for k in j["keys"]) - 1.0) < 1e-9
        out, _ = env.run("explain", "--model", folder, "--ids", ",".join(map(str, ids)), "--layer",
                         str(layer), "--head", str(head), "--query", str(query), "--quiet")
        apart = max(j["keys"], key=lambda k: abs(k["weight"] - k["norm_share"]))
        if abs(apart["weight"] - apart["norm_share"]) >= 0.05:
            assert (f"{100 * apart['weight']:.0f} % of the weight is on key {apart['position']} "
                    f"\"{apart['token']}\", {100 * apart['norm_share']:.0f} % of the contribution") in out, out
        else:
            assert "agree within 5 points" in out, out


def test_layer_readings_agree_with_the_measures(env):
    """explain's part 6 (the whole layer at the query: its heads' mean weight, contrib, alti)
    against attention.npy and `model --measure contrib|alti` (contrib.npy, alti.npy) at the same
    row, for GPT-2, Llama's grouped-query heads and BERT's post-norm blocks; each reading sums
    to 1 and the sentence names the key other than the query where weights and a contribution
    part most."""
    for name, ids, layer, head, query in (("gpt2_f32", [5, 9, 3, 7, 5, 9], 1, 2, 5),
                                          ("llama_bf16_gqa", [3, 8, 12, 5, 9, 14, 2], 1, 3, 6),
                                          ("bert_f32", [2, 8, 12, 5, 9, 14, 3], 0, 1, 3)):
        folder = hf(env, name)
        j = neuron(env, folder, ids, layer, head, query)
        readings = j["layer_readings"]
        assert list(readings) == ["weights", "contrib", "alti"]
        weights = maps_of(env, folder, ids, "maps-" + name)[layer, :, query].mean(axis=0)
        assert np.abs(np.array(readings["weights"]) - weights).max() <= 1e-6, name
        for measure in ("contrib", "alti"):
            npy = env.path(f"{measure}-{name}")
            env.run("model", "--model", folder, "--ids", ",".join(map(str, ids)), "--measure",
                    measure, "--npy", npy, "-q")
            row = np.load(os.path.join(npy, measure + ".npy"))[layer, query].astype(np.float64)
            got = np.array(readings[measure])
            assert np.abs(got - row / row.sum()).max() <= 1e-6, (name, measure, got, row)
            assert abs(got.sum() - 1.0) <= 1e-5
        out, _ = env.run("explain", "--model", folder, "--ids", ",".join(map(str, ids)), "--layer",
                         str(layer), "--head", str(head), "--query", str(query), "--quiet")
        assert f"6. the whole layer at query {query}" in out, out
        gaps = [(abs(readings["weights"][k] - readings[m][k]), k)
                for m in ("contrib", "alti") for k in range(len(ids)) if k != query]
        widest, key = max(gaps, key=lambda g: (g[0], -g[1]))
        if widest > 0.05:
            assert (f"the layer's heads put {100 * readings['weights'][key]:.0f} % of their weight "
                    f"on key {key} ") in out, out
            assert (f"{100 * readings['contrib'][key]:.0f} % by contrib and "
                    f"{100 * readings['alti'][key]:.0f} % by alti") in out, out
        else:
            assert "agree within 5 points on every other key" in out, out


def test_refusals(env):
    folder = hf(env, "gpt2_f32")
    base = ["explain", "--model", folder, "--ids", "5,9,3"]
    for extra, words in [(["--layer", "2"], ["--layer 2", "2 layers"]),
                         (["--head", "4"], ["--head 4", "4 heads"]),
                         (["--query", "7"], ["--query 7", "3 tokens"]),
                         (["--query", "zebra"], ["zebra", "not one of the tokens"]),
                         (["--score", "dot"], ["--score", "does not apply with --model"]),
                         (["--embeddings", "x.txt"], ["--embeddings", "--model"])]:
        _, err = env.run(*base, *extra, expect=2)
        for w in words:
            assert w in err, (extra, err)
        assert err.count("\n") == 1, err
    _, err = env.run("explain", "--model", folder, expect=2)
    assert "--text" in err and "--ids" in err
    _, err = env.run("explain", "--text", "the cat sat", "--query", "cat", "--png",
                     env.path("never.png"), expect=2)
    assert "--png" in err and "--model" in err and not os.path.exists(env.path("never.png"))
    _, err = env.run("explain", "--text", "the cat sat", "--query", "cat", "--layer", "1", expect=2)
    assert "--layer" in err
    _, err = env.run("explain", "--text", "the cat sat", expect=2)
    assert "--query" in err
    # the word-vector walk is unchanged
    out, _ = env.run("explain", "--text", "the cat sat", "--query", "cat", "-e", env.embeddings)
    assert "cat" in out


if __name__ == "__main__":
    sys.exit(main(globals()))
