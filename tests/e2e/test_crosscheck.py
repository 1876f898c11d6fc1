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
from harness import import_numpy, main  # noqa: E402

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
    raise ValueError(name)


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


def check_case(env, name, args, embeddings=None):
    embeddings = embeddings or env.embeddings
    j, st = env.path(f"{name}.json"), env.path(f"{name}.safetensors")
    env.run("run", "--embeddings", embeddings, "--json", j, "--params-out", st, *args)
    doc = json.load(open(j, encoding="utf-8"))
    assert not doc["oov_tokens"], doc["oov_tokens"]
    v = doc["variant"]
    vectors = read_vectors(embeddings, set(doc["query_tokens"]) | set(doc["key_tokens"]))
    xq = np.stack([vectors[t] for t in doc["query_tokens"]])
    xk = np.stack([vectors[t] for t in doc["key_tokens"]])
    p = read_safetensors(st)
    q, k, val = xq, xk, xk
    if v["projected"]:
        q = xq @ p["q_proj.weight"].T
        k = xk @ p["k_proj.weight"].T
        val = xk @ p["v_proj.weight"].T
    head = doc["heads"][0]
    e = score(v["score"], q, k, p, v.get("sharpen", 1.0))
    worst = close(f"{name} scores", head["scores"], e)
    masked = e.copy()
    n_q, n_k = e.shape
    for m in v["masks"]:
        i, j = np.meshgrid(np.arange(n_q), np.arange(n_k), indexing="ij")
        if m == "causal":
            masked[j > i] = -np.inf
        elif m.startswith("window:"):
            masked[np.abs(i - j) > int(m[7:])] = -np.inf
        elif m.startswith("dilated:"):
            masked[np.abs(i - j) % int(m[8:]) != 0] = -np.inf
        elif m.startswith("pad:"):
            for k in m[4:].split(","):
                masked[:, int(k)] = -np.inf
    a = align(v["align"], masked, v.get("temperature", 1.0), v, q, p)
    worst = max(worst, close(f"{name} weights", head["weights"], a))
    got_a = np.asarray(head["weights"])
    live = np.isfinite(masked).any(axis=1)
    assert np.all(np.abs(got_a[live].sum(axis=1) - 1.0) <= 1e-6), f"{name}: a row does not sum to 1"
    assert np.all(got_a[~np.isfinite(masked)] == 0.0), f"{name}: a masked weight is not exactly 0"
    assert head["masked_rows"] == [int(i) for i in np.where(~live)[0]]
    if v["context"] == "soft":
        c = a @ val
    else:
        chosen = head["chosen_keys"]
        if v["hard"] == "argmax":
            assert chosen == list(a.argmax(axis=1)), (chosen, list(a.argmax(axis=1)))
        for i, jstar in enumerate(chosen):
            assert a[i, jstar] > 0.0, f"{name}: row {i} drew key {jstar} with zero weight"
        c = val[chosen]
    worst = max(worst, close(f"{name} context", head["context"], c))
    print(f"  {name}: max relative difference {worst:.2e}")


def test_every_score_function(env):
    for s in ["dot", "scaled_dot", "general", "additive", "concat", "cosine", "location"]:
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


def test_full_glove_file_when_available(env):
    glove = os.path.join(env.shared, "glove.6B.50d.top10k.txt")
    if not os.path.exists(glove):
        print("  ../shared/data is not here; nothing to do")
        return
    check_case(env, "glove10k", ["--text", "the committee approved the budget after a long debate",
                                 "--score", "concat", "--da", "12"], embeddings=glove)


if __name__ == "__main__":
    sys.exit(main(globals()))
