#!/usr/bin/env python3
"""Recomputes every stage with NumPy (float64) from what a run wrote and compares.

For each case: run attn-viz with --json and --params-out, then rebuild the inputs from the
JSON's tokens, the embedding file (parsed here) and the safetensors file (parsed here), compute
scores, weights and context with the formulas of VARIANTS.md, and check that every number
agrees to 1e-5 (relative to max(1, |value|)). Nothing here calls attn-viz code.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, main, png_size  # noqa: E402

np = import_numpy()

TOL = 1e-5
SENTENCE = "the cat sat on the floor because it was tired"


def read_vectors(path, words):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ")
            if parts[0] in words and parts[0] not in out:
                out[parts[0]] = np.array([float(x) for x in parts[1:]], dtype=np.float64)
    return out


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        assert entry["dtype"] == "F32"
        b, e = entry["data_offsets"]
        arr = np.frombuffer(data[base + b:base + e], dtype="<f4").astype(np.float64)
        tensors[name] = arr.reshape(entry["shape"])
    return tensors


def score(name, q, k, p, sharpen):
    if name == "dot":
        return q @ k.T
    if name == "scaled_dot":
        return q @ k.T / np.sqrt(k.shape[1])
    if name == "general":
        return q @ p["score.W"] @ k.T
    if name == "additive":  # broadcast (n_q, n_k, d_a)
        h = (q @ p["score.W_q"].T)[:, None, :] + (k @ p["score.W_k"].T)[None, :, :] + p["score.b"]
        return np.tanh(h) @ p["score.v"]
    if name == "concat":  # the literal [q_i ; k_j] for every pair
        pairs = np.concatenate([np.repeat(q[:, None, :], len(k), axis=1),
                                np.repeat(k[None, :, :], len(q), axis=0)], axis=2)
        return np.tanh(pairs @ p["score.W"].T) @ p["score.v"]
    if name == "cosine":
        qn = q / np.linalg.norm(q, axis=1, keepdims=True)
        kn = k / np.linalg.norm(k, axis=1, keepdims=True)
        return sharpen * (qn @ kn.T)
    if name == "location":
        return (q @ p["score.W"].T)[:, :len(k)]
    if name == "relative":  # Transformer-XL's four terms, r_{i-j} the sinusoid of i - j
        d = q.shape[1]
        offsets = np.arange(len(q))[:, None] - np.arange(len(k))[None, :]
        r = sinusoid(offsets.astype(np.float64), d)  # (n_q, n_k, d)
        wr = r @ p["score.W_R"].T
        return (q @ k.T + np.einsum("id,ijd->ij", q, wr) + (k @ p["score.u"])[None, :]
                + wr @ p["score.w"]) / np.sqrt(d)  # scaled as the paper scales
    raise ValueError(name)


def sinusoid(pos, d):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), for an array of pos."""
    pos = np.asarray(pos, dtype=np.float64)[..., None]
    c = np.arange(d)
    angle = pos / np.power(10000.0, (c - c % 2) / d)
    return np.where(c % 2 == 0, np.sin(angle), np.cos(angle))


def rope(x):
    """Rotary encoding through complex numbers: pair (x_2i, x_2i+1) at position p times
    exp(i p 10000^(-2i/d))."""
    n, d = x.shape
    half = d // 2
    z = x[:, 0:2 * half:2] + 1j * x[:, 1:2 * half:2]
    z = z * np.exp(1j * np.arange(n)[:, None] * np.power(10000.0, -2.0 * np.arange(half) / d))
    out = x.copy()
    out[:, 0:2 * half:2], out[:, 1:2 * half:2] = z.real, z.imag
    return out


def bisect_threshold(f, lo, hi):
    """theta with f(theta) = 1 for a decreasing f, by bisection (independent of any sort)."""
    for _ in range(200):
        mid = (lo + hi) / 2
        if f(mid) > 1:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def sparse_rows(z, power, scale):
    out = np.zeros_like(z)
    for i, row in enumerate(z):
        live = np.isfinite(row)
        if not live.any():
            continue
        x = row[live] * scale
        theta = bisect_threshold(lambda t: (np.maximum(x - t, 0) ** power).sum(), x.min() - 2, x.max())
        out[i, live] = np.maximum(x - theta, 0) ** power
    return out


def window_rows(e, centres, window, tau, shape):
    a = np.zeros_like(e)
    for i, p in enumerate(centres):
        j = np.arange(e.shape[1])
        inside = (np.abs(j - p) <= window + 1e-9) & np.isfinite(e[i])
        if not inside.any():
            continue
        z = np.where(inside, np.exp((e[i] - e[i][inside].max()) / tau), 0.0) * shape(j, p)
        a[i] = z / z.sum()
    return a


def align(name, e, tau, v=None, q=None, p=None):
    if name == "sparsemax":
        return sparse_rows(e / tau, 1, 1.0)
    if name == "entmax15":
        return sparse_rows(e / tau, 2, 0.5)
    if name in ("local-m", "local-p"):
        n_q, n_k = e.shape
        if name == "local-m":
            centres = [i if n_q == n_k else round(i * (n_k - 1) / (n_q - 1)) for i in range(n_q)]
            return window_rows(e, centres, v["window"], tau, lambda j, c: 1.0)
        centres = n_k / (1 + np.exp(-(np.tanh(q @ p["align.W_p"].T) @ p["align.v_p"])))
        sigma = v["window"] / 2
        return window_rows(e, centres, v["window"], tau,
                           lambda j, c: np.exp(-((j - c) ** 2) / (2 * sigma ** 2)))
    if name == "softmax":
        out = np.zeros_like(e)
        for i, row in enumerate(e):
            if np.isfinite(row).any():
                z = np.exp((row - row[np.isfinite(row)].max()) / tau)
                out[i] = z / z.sum()
        return out
    if name == "hardmax":
        a = np.zeros_like(e)
        a[np.arange(len(e)), e.argmax(axis=1)] = 1.0
        return a
    raise ValueError(name)


def close(what, got, want):
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    assert err.max() <= TOL, f"{what}: max relative error {err.max():.3g} at {np.unravel_index(err.argmax(), err.shape)}"
    return err.max()


def scoped(p, prefix):
    """The tensors under `prefix` ("heads.2.") with the prefix taken off (plus the rest)."""
    out = dict(p)
    out.update({n[len(prefix):]: t for n, t in p.items() if n.startswith(prefix)})
    return out


def check_head(name, v, head, q, k, val, p):
    """One head: scores, masks, weights and context against the JSON's head; returns the
    context computed here and the worst relative difference."""
    e = score(v["score"], q, k, p, v.get("sharpen", 1.0))
    n_q, n_k = e.shape
    i, j = np.meshgrid(np.arange(n_q), np.arange(n_k), indexing="ij")
    if v["positional"] == "alibi":
        e = e - head["alibi_slope_expected"] * np.abs(i - j)
    worst = close(f"{name} scores", head["scores"], e)
    masked = e.copy()
    for m in v["masks"]:
        if m == "causal":
            masked[j > i] = -np.inf
        elif m.startswith("window:"):
            masked[np.abs(i - j) > int(m[7:])] = -np.inf
        elif m.startswith("dilated:"):
            masked[np.abs(i - j) % int(m[8:]) != 0] = -np.inf
        elif m.startswith("pad:"):
            for key in m[4:].split(","):
                masked[:, int(key)] = -np.inf
    a = align(v["align"], masked, v.get("temperature", 1.0), v, q, p)
    worst = max(worst, close(f"{name} weights", head["weights"], a))
    got_a = np.asarray(head["weights"])
    live = np.isfinite(masked).any(axis=1)
    assert np.all(np.abs(got_a[live].sum(axis=1) - 1.0) <= 1e-6), f"{name}: a row does not sum to 1"
    assert np.all(got_a[~np.isfinite(masked)] == 0.0), f"{name}: a masked weight is not exactly 0"
    assert head["masked_rows"] == [int(r) for r in np.where(~live)[0]]
    if v["context"] == "soft":
        c = a @ val
    else:
        chosen = head["chosen_keys"]
        if v["hard"] == "argmax":
            assert chosen == list(a.argmax(axis=1)), (chosen, list(a.argmax(axis=1)))
        for r, jstar in enumerate(chosen):
            assert a[r, jstar] > 0.0, f"{name}: row {r} drew key {jstar} with zero weight"
        c = val[chosen]
    worst = max(worst, close(f"{name} context", head["context"], c))
    return c, worst


def linear(x, p, name):
    y = x @ p[name + ".weight"].T if name + ".weight" in p else x
    return y + p[name + ".bias"] if name + ".bias" in p else y


def verify(name, doc, p, vectors, alibi_slope=None):
    """Recomputes one result (the JSON of run, or one of transformer's attentions) from the
    embeddings and the parameters p; returns the worst relative difference."""
    v = doc["variant"]
    value_tokens = doc.get("value_tokens", doc["key_tokens"])
    xq = np.stack([vectors[t] for t in doc["query_tokens"]])
    xk = np.stack([vectors[t] for t in doc["key_tokens"]])
    xv = np.stack([vectors[t] for t in value_tokens])
    if v["positional"] == "sinusoidal":
        xq, xk, xv = (x + sinusoid(np.arange(len(x)), x.shape[1]) for x in (xq, xk, xv))
    q, k, val = xq, xk, xv
    if v["projected"]:
        q, k = linear(xq, p, "q_proj"), linear(xk, p, "k_proj")
        val = k + xv if v["values"] == "convs2s" else linear(xv, p, "v_proj")
    elif v["values"] == "convs2s":
        val = xk + xv
    heads = doc["heads"]
    H, dk, dv = len(heads), v["d_k"], v["d_v"]
    assert H == v["heads"]
    m = alibi_slope or 2.0 ** (-8.0 / H)
    worst, contexts = 0.0, []
    for h, head in enumerate(heads):
        qh, kh = q[:, h * dk:(h + 1) * dk], k[:, h * dk:(h + 1) * dk]
        if v["positional"] == "rope":
            qh, kh = rope(qh), rope(kh)
        head["alibi_slope_expected"] = m ** (h + 1)
        c, w = check_head(f"{name} head {h}", v, head, qh, kh, val[:, h * dv:(h + 1) * dv],
                          scoped(p, f"heads.{h}.") if H > 1 else p)
        contexts.append(c)
        worst = max(worst, w)
    if v["multihead"]:
        wo = p["out_proj.weight"]
        share = np.ones(H)
        if v["combine"] == "weighted":
            share = p["combine.kappa"] / p["combine.kappa"].sum()
            close(f"{name} head_share", doc["head_share"], share)
        out = sum(share[h] * contexts[h] @ wo[:, h * dv:(h + 1) * dv].T for h in range(H))
        out = out + p.get("out_proj.bias", 0.0)
        worst = max(worst, close(f"{name} output", doc["output"], out))
        if H > 1:
            mean = np.mean([np.asarray(hd["weights"]) for hd in heads], axis=0)
            worst = max(worst, close(f"{name} mean_weights", doc["mean_weights"], mean))
    return worst


def all_tokens(doc):
    return set(doc["query_tokens"]) | set(doc["key_tokens"]) | set(doc.get("value_tokens", []))


def check_case(env, name, args, embeddings=None, alibi_slope=None):
    embeddings = embeddings or env.embeddings
    j, st = env.path(f"{name}.json"), env.path(f"{name}.safetensors")
    env.run("run", "--embeddings", embeddings, "--json", j, "--params-out", st, *args)
    doc = json.load(open(j, encoding="utf-8"))
    assert not doc["oov_tokens"], doc["oov_tokens"]
    worst = verify(name, doc, read_safetensors(st), read_vectors(embeddings, all_tokens(doc)),
                   alibi_slope)
    print(f"  {name}: max relative difference {worst:.2e}")


def test_every_score_function(env):
    for s in ["dot", "scaled_dot", "general", "additive", "concat", "cosine", "location",
              "relative"]:
        check_case(env, s, ["--text", SENTENCE, "--score", s, "--seed", "11"])


def test_projected_and_sized(env):
    check_case(env, "additive-projected", ["--text", SENTENCE, "--score", "additive",
                                           "--project", "--dk", "16", "--da", "8"])
    check_case(env, "scaled-projected", ["--text", SENTENCE, "--score", "scaled_dot",
                                         "--project", "--seed", "4"])


def test_cross_attention(env):
    check_case(env, "cross-general", ["--source", "paris is the capital and largest city of france",
                                      "--target", "what is the capital of france ?",
                                      "--score", "general", "--project", "--dk", "20"])


def test_temperature_hardmax_and_hard_context(env):
    check_case(env, "cosine-tau", ["--text", SENTENCE, "--score", "cosine", "--sharpen", "5",
                                   "--temperature", "0.5"])
    check_case(env, "hardmax", ["--text", SENTENCE, "--score", "dot", "--align", "hardmax",
                                "--context", "hard", "--hard", "argmax"])
    check_case(env, "hard-sample", ["--text", SENTENCE, "--score", "additive", "--context",
                                    "hard", "--seed", "5"])


def test_sparse_local_and_masked_alignments(env):
    check_case(env, "sparsemax", ["--text", SENTENCE, "--align", "sparsemax", "--temperature", "0.7"])
    check_case(env, "entmax15", ["--text", SENTENCE, "--score", "cosine", "--sharpen", "4",
                                 "--align", "entmax15"])
    check_case(env, "local-m", ["--text", SENTENCE, "--align", "local-m", "--window", "2"])
    check_case(env, "local-m-cross", ["--source", "paris is the capital and largest city of france",
                                      "--target", "what is the capital ?", "--align", "local-m",
                                      "--window", "1"])
    check_case(env, "local-p", ["--text", SENTENCE, "--score", "general", "--align", "local-p",
                                "--window", "2", "--seed", "9"])
    check_case(env, "causal", ["--text", SENTENCE, "--mask", "causal", "--score", "additive"])
    check_case(env, "window-dilated-pad", ["--text", SENTENCE, "--mask", "window:3,dilated:2",
                                           "--pad-keys", "0,2", "--align", "sparsemax"])


def test_multi_head(env):
    check_case(env, "mha5", ["--text", SENTENCE, "--heads", "5", "--seed", "3"])
    check_case(env, "mha2-additive-local", ["--text", SENTENCE, "--heads", "2", "--score",
                                            "additive", "--da", "6", "--align", "local-p",
                                            "--window", "2"])
    check_case(env, "mha4-dk3-weighted", ["--text", SENTENCE, "--heads", "4", "--dk", "3",
                                          "--combine", "weighted", "--score", "general",
                                          "--mask", "causal"])
    check_case(env, "mha-cross", ["--source", "paris is the capital and largest city of france",
                                  "--target", "what is the capital ?", "--heads", "10",
                                  "--context", "hard", "--seed", "2"])


def test_positions(env):
    check_case(env, "sinusoidal", ["--text", SENTENCE, "--position", "sinusoidal"])
    check_case(env, "sinusoidal-mha", ["--text", SENTENCE, "--position", "sinusoidal", "--heads",
                                       "2"])
    check_case(env, "rope", ["--text", SENTENCE, "--position", "rope", "--score", "dot"])
    check_case(env, "rope-mha", ["--text", SENTENCE, "--position", "rope", "--heads", "5",
                                 "--dk", "6"])
    check_case(env, "alibi-mha", ["--text", SENTENCE, "--position", "alibi", "--heads", "5"])
    check_case(env, "alibi-slope", ["--text", SENTENCE, "--position", "alibi", "--alibi-slope",
                                    "0.7", "--heads", "2"], alibi_slope=0.7)
    check_case(env, "relative-projected", ["--text", SENTENCE, "--score", "relative",
                                           "--project", "--dk", "12", "--seed", "8"])


def test_memory_and_convs2s_values(env):
    check_case(env, "memory", ["--source", "paris is the capital of france", "--target",
                               "what is the capital ?", "--values",
                               "city was one of the country"])
    check_case(env, "convs2s", ["--text", SENTENCE, "--convs2s", "--project", "--score", "general"])
    check_case(env, "convs2s-raw", ["--source", "paris is the capital of france", "--target",
                                    "what is the capital ?", "--convs2s"])
    check_case(env, "convs2s-mha", ["--text", SENTENCE, "--convs2s", "--heads", "5"])


def test_transformer_three_attentions(env):
    j, st = env.path("transformer.json"), env.path("transformer.safetensors")
    env.run("transformer", "--source", "paris is the capital and largest city of france",
            "--target", "what is the capital ?", "--heads", "5", "--embeddings", env.embeddings,
            "--json", j, "--params-out", st)
    doc = json.load(open(j, encoding="utf-8"))
    p = read_safetensors(st)
    parts = {a["name"]: a for a in doc["attentions"]}
    assert list(parts) == ["encoder_self", "decoder_self", "encoder_decoder"]
    src, tgt = parts["encoder_self"]["query_tokens"], parts["decoder_self"]["query_tokens"]
    assert parts["encoder_self"]["key_tokens"] == src and parts["decoder_self"]["key_tokens"] == tgt
    assert parts["encoder_decoder"]["query_tokens"] == tgt
    assert parts["encoder_decoder"]["key_tokens"] == src
    assert parts["decoder_self"]["variant"]["masks"] == ["causal"]
    assert parts["encoder_self"]["variant"]["masks"] == []
    prefixes = {a["parameter_prefix"] for a in doc["attentions"]}
    assert prefixes == {"encoder.self_attn.", "decoder.self_attn.", "decoder.cross_attn."}
    vectors = read_vectors(env.embeddings, set(src) | set(tgt))
    for name, a in parts.items():
        assert a["variant"]["positional"] == "sinusoidal"
        worst = verify(name, a, scoped(p, a["parameter_prefix"]), vectors)
        print(f"  transformer {name}: max relative difference {worst:.2e}")
    # each attention has its own parameters
    assert not np.allclose(p["encoder.self_attn.q_proj.weight"], p["decoder.self_attn.q_proj.weight"])


def softmax(x, axis):
    z = np.exp(x - x.max(axis=axis, keepdims=True))
    return z / z.sum(axis=axis, keepdims=True)


def test_attention_over_attention(env):
    j = env.path("aoa.json")
    out, _ = env.run("aoa", "--document", "paris is the capital and largest city of france . "
                     "it is known for its history", "--query", "what is the largest city ?",
                     "--embeddings", env.embeddings, "--json", j, "--top", "3")
    doc = json.load(open(j, encoding="utf-8"))
    assert not doc["oov_tokens"], doc["oov_tokens"]
    vectors = read_vectors(env.embeddings, set(doc["document_tokens"]) | set(doc["query_tokens"]))
    d = np.stack([vectors[t] for t in doc["document_tokens"]])
    q = np.stack([vectors[t] for t in doc["query_tokens"]])
    m = d @ q.T
    alpha, beta = softmax(m, 0), softmax(m, 1)
    beta_bar = beta.mean(axis=0)
    s = alpha @ beta_bar
    worst = max(close("M", doc["M"], m), close("alpha", doc["alpha"], alpha),
                close("beta", doc["beta"], beta), close("beta_bar", doc["beta_bar"], beta_bar),
                close("s", doc["s"], s))
    assert abs(sum(doc["s"]) - 1) < 1e-6
    words = {}
    for t, v in zip(doc["document_tokens"], s):
        words[t] = words.get(t, 0.0) + v
    best = max(words, key=words.get)
    assert doc["word_scores"][0]["word"] == best
    close("word score", [doc["word_scores"][0]["score"]], np.array([words[best]]))
    assert f"1. {best}" in out, out
    print(f"  aoa: max relative difference {worst:.2e}")


def test_hierarchical_attention(env):
    j, st = env.path("han.json"), env.path("han.safetensors")
    env.run("han", "--document", "the city was built near the river . it was the capital !\n"
            "the war was long", "--embeddings", env.embeddings, "--seed", "4", "--json", j,
            "--params-out", st)
    doc = json.load(open(j, encoding="utf-8"))
    p = read_safetensors(st)
    assert [len(s["tokens"]) for s in doc["sentences"]] == [8, 5, 4]
    vectors = read_vectors(env.embeddings, {t for s in doc["sentences"] for t in s["tokens"]})

    def pool(h, w, b, u):
        a = softmax(np.tanh(h @ w.T + b) @ u, 0)
        return a, a @ h

    worst, svecs = 0.0, []
    for i, sent in enumerate(doc["sentences"]):
        h = np.stack([vectors[t] for t in sent["tokens"]])
        a, v = pool(h, p["han.W_w"], p["han.b_w"], p["han.u_w"])
        worst = max(worst, close(f"word weights {i}", sent["word_weights"], a),
                    close(f"sentence vector {i}", sent["vector"], v))
        svecs.append(v)
    alpha, v = pool(np.stack(svecs), p["han.W_s"], p["han.b_s"], p["han.u_s"])
    worst = max(worst, close("sentence weights", [s["weight"] for s in doc["sentences"]], alpha),
                close("document vector", doc["document_vector"], v))
    print(f"  han: max relative difference {worst:.2e}")


def test_hierarchical_attention_over_a_file_of_documents(env):
    """--file: one sentence per line (never split further: "it was . long" stays one), a blank
    line (spaces allowed) between documents; each document against NumPy with the same
    parameters; the figure stacks one view per document; a line with no word is named."""
    path, j, st = env.path("docs.txt"), env.path("docs.json"), env.path("docs.safetensors")
    with open(path, "w", encoding="utf-8") as f:
        f.write("the city was built near the river\nit was . the capital\n  \n\n"
                "the war was long\r\nthe army was tired !\nthe king was old\n")
    out, _ = env.run("han", "--file", path, "--embeddings", env.embeddings, "--seed", "4",
                     "--json", j, "--params-out", st, "--png", env.path("docs.png"))
    doc = json.load(open(j, encoding="utf-8"))
    p = read_safetensors(st)
    assert doc["file"] == "docs.txt"
    assert [d["first_line"] for d in doc["documents"]] == [1, 5], doc["documents"]
    assert [[len(s["tokens"]) for s in d["sentences"]] for d in doc["documents"]] == [[7, 5], [4, 5, 4]]
    assert "document 2 (line 5)" in out, out
    words = {t for d in doc["documents"] for s in d["sentences"] for t in s["tokens"]}
    vectors = read_vectors(env.embeddings, words)

    def pool(h, w, b, u):
        a = softmax(np.tanh(h @ w.T + b) @ u, 0)
        return a, a @ h

    worst = 0.0
    for d in doc["documents"]:
        svecs = []
        for i, sent in enumerate(d["sentences"]):
            h = np.stack([vectors[t] for t in sent["tokens"]])
            a, v = pool(h, p["han.W_w"], p["han.b_w"], p["han.u_w"])
            worst = max(worst, close(f"word weights {i}", sent["word_weights"], a))
            svecs.append(v)
        alpha, v = pool(np.stack(svecs), p["han.W_s"], p["han.b_s"], p["han.u_s"])
        worst = max(worst, close("sentence weights", [s["weight"] for s in d["sentences"]], alpha),
                    close("document vector", d["document_vector"], v))
    print(f"  han --file: max relative difference {worst:.2e}")
    w, h = png_size(env.path("docs.png"))
    single = env.path("one.png")
    env.run("han", "--document", "the war was long", "--embeddings", env.embeddings, "--png", single)
    assert h > 2 * png_size(single)[1], (h, png_size(single))  # two document views, one under another
    with open(path, "w", encoding="utf-8") as f:
        f.write("the city\n\u200b\n")
    _, err = env.run("han", "--file", path, expect=2)
    assert f"{path}:2" in err or f"{path}, line 2" in err, err
    _, err = env.run("han", "--file", path, "--document", "x", expect=2)
    assert "--document" in err and "--file" in err, err
    _, err = env.run("han", expect=2)
    assert "--document TEXT or --file FILE" in err, err


def test_full_glove_file_when_available(env):
    glove = os.path.join(env.shared, "glove.6B.50d.top10k.txt")
    if not os.path.exists(glove):
        print("  ../shared/data is not here; nothing to do")
        return
    check_case(env, "glove10k", ["--text", "the committee approved the budget after a long debate",
                                 "--score", "concat", "--da", "12"], embeddings=glove)


def merge_blocks(a, rows, cols, mean_cols):
    """Word map from a piece map: block sums over key pieces, means over query pieces."""
    out = np.zeros((len(rows), len(cols)))
    for I, ri in enumerate(rows):
        for J, cj in enumerate(cols):
            block = a[np.ix_(ri, cj)]
            out[I, J] = block.mean() if mean_cols else block.sum(axis=1).mean()
    return out


def test_merge_subwords(env):
    """--merge-subwords against the same run on the unmarked pieces, merged here in NumPy: the
    marks only change how pieces are looked up (without them) and grouped."""
    # (name, marked pieces, the same pieces unmarked, flags, query words, key words)
    cases = [
        ("self", ["--tokens", "[CLS] the cat play ##ed on the mat ##s [SEP]"],
         ["--tokens", "[CLS] the cat play ed on the mat s [SEP]"],
         ["--heads", "2", "--mask", "window:2", "--seed", "3"],
         [[0], [1], [2], [3, 4], [5], [6], [7, 8], [9]], None),
        # SentencePiece pieces through the tokenizer (--source/--target), which keeps ▁ attached
        ("cross", ["--source", "▁the ▁cat ▁play ed ▁on ▁it", "--target", "▁what ▁pl ay ed"],
         ["--source", "the cat play ed on it", "--target", "what pl ay ed"],
         ["--heads", "2", "--seed", "3"],
         [[0], [1, 2, 3]], [[0], [1], [2, 3], [4], [5]]),
    ]
    for name, marked, plain, flags_here, rows, cols in cases:
        cols = cols or rows
        got_path, want_path = env.path(f"merged-{name}.json"), env.path(f"plain-{name}.json")
        env.run("run", *marked, *flags_here, "--merge-subwords", "--json", got_path)
        env.run("run", *plain, *flags_here, "--json", want_path)
        got = json.load(open(got_path, encoding="utf-8"))
        want = json.load(open(want_path, encoding="utf-8"))
        assert got["subwords"]["merged"] is True
        assert [len(p) for p in got["subwords"]["query_pieces"]] == [len(r) for r in rows]
        assert [len(p) for p in got["subwords"]["key_pieces"]] == [len(c) for c in cols]
        for gh, wh in zip(got["heads"], want["heads"]):
            w = np.array(wh["weights"], dtype=np.float64)
            close(f"{name} merged weights", np.array(gh["weights"]), merge_blocks(w, rows, cols, False))
            close(f"{name} merged scores", np.array(gh["scores"]),
                  merge_blocks(np.array(wh["scores"]), rows, cols, True))
            c = np.array(wh["context"])
            close(f"{name} merged context", np.array(gh["context"]),
                  np.array([c[r].mean(axis=0) for r in rows]))
            merged = np.array(gh["weights"])
            assert np.all(np.abs(merged.sum(axis=1) - 1) < 1e-6), merged.sum(axis=1)
        out = np.array(want["output"])
        close(f"{name} merged output", np.array(got["output"]),
              np.array([out[r].mean(axis=0) for r in rows]))
    doc = json.load(open(env.path("merged-self.json"), encoding="utf-8"))
    assert doc["query_tokens"] == ["[CLS]", "the", "cat", "played", "on", "the", "mats", "[SEP]"]
    # the window mask hides "[CLS]" from "on" (pieces 0 and 5): exactly 0 in the merged map
    assert doc["heads"][0]["weights"][4][0] == 0.0
    _, err = env.run("run", "--tokens", "a ##b", "--merge-subwords", "--stream", "--png",
                     env.path("x.png"), expect=2)
    assert "--merge-subwords" in err and "--no-stream" in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
