#!/usr/bin/env python3
"""Long texts in bounded memory (attn-viz model): the maps kept only where an output reads
them, attention.npy written block by block as the forward makes it (the same bytes as when every
map is kept), --npy-layers/--npy-heads choosing its maps, received.npy (every map's column sums) against
NumPy and the same bytes on 1 and 2 threads, the received view (the attention each token
receives, drawn over the text) read back from its SVG against the numbers, its rolled-out
version (a second pass from the last layer down) against NumPy's rollout matrix, peak memory far
below the maps' size at 4,096 tokens for model and heads (its statistics measured row by row), --max-memory refusing before any work and naming the
flags that would fit, and nothing left behind when the outputs cannot be placed."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import colormap, nice_at_or_above, read_safetensors  # noqa: E402
from harness import import_numpy, main, peak_rss, sanitized  # noqa: E402
from test_views import write_gpt2  # noqa: E402

np = import_numpy()

IDS = "5,17,3,88,41,9,23,60,2,11,7"


def gpt2(env):
    return os.path.join(env.data, "hf", "gpt2_f32")


def npy_run(env, name, *extra, threads=None, folder=None):
    out = env.path(name)
    env.run("model", "--model", folder or gpt2(env), "--ids", IDS, "--npy", out, "-q", *extra,
            extra_env={"OMP_NUM_THREADS": str(threads)} if threads else None)
    return out


def load(out, name):
    return np.load(os.path.join(out, name))


def test_streamed_attention_is_the_kept_maps(env):
    # only --npy: no map is kept, attention.npy is written as the kernel makes it; with --json
    # every map is kept in one block and written from memory: the same bytes
    streamed = npy_run(env, "streamed")
    kept = npy_run(env, "kept", "--json", env.path("all.json"))
    a = open(os.path.join(streamed, "attention.npy"), "rb").read()
    assert a == open(os.path.join(kept, "attention.npy"), "rb").read()
    maps = load(streamed, "attention.npy")
    assert maps.shape == (2, 4, 11, 11), maps.shape
    assert np.abs(maps.sum(-1) - 1).max() <= 1e-6
    assert json.load(open(os.path.join(streamed, "attention_maps.json"))) == {
        "layers": [0, 1], "heads": [0, 1, 2, 3]}
    assert not [f for f in os.listdir(env.tmp) if ".tmp-" in f]


def test_layers_and_heads_choose_the_maps_written(env):
    full = load(npy_run(env, "full"), "attention.npy")
    out = npy_run(env, "some", "--npy-layers", "1", "--npy-heads", "3,0")
    some = load(out, "attention.npy")
    assert some.shape == (1, 2, 11, 11), some.shape
    assert np.array_equal(some, full[[1]][:, [3, 0]])
    assert json.load(open(os.path.join(out, "attention_maps.json"))) == {"layers": [1], "heads": [3, 0]}
    # a view draws from the maps it keeps (--layers, --heads), whatever the file holds
    out = npy_run(env, "mean", "--view", "mean", "--layers", "0,1", "--heads", "2",
                  "--npy-layers", "0", "--npy-heads", "1")
    assert np.abs(load(out, "view.npy") - full[:, 2].mean(0)).max() <= 1e-6
    assert np.array_equal(load(out, "attention.npy"), full[[0]][:, [1]])
    _, err = env.run("model", "--model", gpt2(env), "--ids", IDS, "--npy-heads", "1", expect=2)
    assert "--npy-heads" in err and "--npy DIR" in err, err
    _, err = env.run("model", "--model", gpt2(env), "--ids", IDS, "--npy", env.path("x"),
                     "--npy-layers", "2", expect=2)
    assert "--npy-layers" in err, err


def test_received_is_every_maps_column_sums(env):
    one = npy_run(env, "one-thread", threads=1)
    two = npy_run(env, "two-threads", threads=2)
    maps = load(one, "attention.npy").astype(np.float64)
    got = load(one, "received.npy")
    assert got.shape == (2, 4, 11), got.shape
    assert np.abs(got - maps.sum(2)).max() <= 1e-6, np.abs(got - maps.sum(2)).max()
    # added in fixed point: the threads' shares of the rows do not change a bit
    assert open(os.path.join(one, "received.npy"), "rb").read() == \
        open(os.path.join(two, "received.npy"), "rb").read()
    # a generation keeps its maps: the sums come from them
    gen = npy_run(env, "gen", "--generate", "3")
    maps = load(gen, "attention.npy").astype(np.float64)
    assert np.abs(load(gen, "received.npy") - maps.sum(2)).max() <= 1e-6


def received_values(maps, layers, heads):
    n = maps.shape[-1]
    return maps[layers][:, heads].sum(2).mean((0, 1)) / (n - np.arange(n))


def svg_tokens(svg):
    """(fill, text) of each token box: a rect followed by its text, after the two title lines."""
    pairs = re.findall(r'<rect x="\d+" y="\d+" width="\d+" height="20" fill="#([0-9a-f]{6})"/>\n'
                       r'<text [^>]*>([^<]*)</text>', svg)
    return [(tuple(int(f[k:k + 2], 16) for k in (0, 2, 4)), t) for f, t in pairs]


def test_received_view_colours_each_token(env):
    folder = gpt2(env)
    maps = load(npy_run(env, "maps"), "attention.npy").astype(np.float64)
    out, svg = env.path("received"), env.path("received.svg")
    env.run("model", "--model", folder, "--ids", IDS, "--npy", out, "--svg", svg, "-q",
            "--view", "received", "--layers", "1", "--heads", "0-2")
    want = received_values(maps, [1], [0, 1, 2])
    got = load(out, "view.npy")
    assert got.shape == (11,) and np.abs(got - want).max() <= 1e-6, (got, want)
    boxes = svg_tokens(open(svg, encoding="utf-8").read())
    vocab = {i: t for t, i in json.load(open(os.path.join(folder, "vocab.json"))).items()}
    assert [t for _, t in boxes] == [vocab[int(i)] for i in IDS.split(",")], boxes
    cmap, top = colormap(env, "viridis"), nice_at_or_above(want.max())
    for (fill, _), v in zip(boxes, want):
        k = min(len(cmap) - 1, int(v / top * len(cmap)))
        near = min(np.abs(cmap[k + d] - fill).max() for d in (-1, 0, 1) if 0 <= k + d < len(cmap))
        assert near <= 1, (fill, v)
    # draw reads the same view from attention.npy itself (its column sums)
    drawn = env.path("drawn-received")
    env.run("draw", "--weights", os.path.join(env.path("maps"), "attention.npy"), "--view",
            "received", "--layers", "1", "--heads", "0-2", "--npy", drawn)
    assert np.abs(load(drawn, "view.npy") - want).max() <= 1e-6
    # and as a PNG, without any map kept
    png = env.path("received.png")
    env.run("model", "--model", folder, "--ids", IDS, "--png", png, "--view", "received", "-q")
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def rollout_received(maps, layers):
    """1ᵀ R, R = Â_last ⋯ Â_first (Â = ½ mean_h A + ½ I, rows renormalised), per token divided
    by the queries that can see it: the matrix itself, in float64."""
    n = maps.shape[-1]
    r = np.eye(n)
    for l in layers:
        a = 0.5 * maps[l].mean(0) + 0.5 * np.eye(n)
        r = (a / a.sum(1, keepdims=True)) @ r
    causal = not np.triu(maps[0, 0], 1).any()
    return r.sum(0) / ((n - np.arange(n)) if causal else n)


def test_received_rollout_from_the_last_layer_down(env):
    # the model keeps no map: each chosen layer's input goes to a scratch file in $TMPDIR, then a
    # second pass runs the layers from the last down; against the rollout matrix of NumPy from
    # attention.npy, for a causal and a bidirectional model, all layers and one
    scratch = env.path("scratch")
    os.makedirs(scratch)
    ids = "5,17,3,8,41,9,23,60,2,11,7"  # within BERT's 64 ids
    for folder in (gpt2(env), os.path.join(env.data, "hf", "bert_f32")):
        env.run("model", "--model", folder, "--ids", ids, "--npy", env.path("rr-maps"), "-q")
        maps = load(env.path("rr-maps"), "attention.npy").astype(np.float64)
        for layers in ("0-1", "1"):
            out, svg = env.path("rr"), env.path("rr.svg")
            env.run("model", "--model", folder, "--ids", ids, "--view", "received-rollout",
                    "--layers", layers, "--npy", out, "--svg", svg, "-q", "--npy-layers", "0",
                    "--npy-heads", "0", extra_env={"TMPDIR": scratch})
            want = rollout_received(maps, [0, 1] if layers == "0-1" else [1])
            got = load(out, "view.npy")
            assert got.shape == (11,) and np.abs(got - want).max() <= 1e-6, (folder, layers, got, want)
            assert "rolled out through layers " + layers in open(svg, encoding="utf-8").read()
            assert os.listdir(scratch) == []  # the scratch file has no name: nothing left
    # the same bytes on 1 and 2 threads; draw computes the same from attention.npy's maps
    views = []
    for threads in (1, 2):
        out = npy_run(env, f"rr-{threads}", "--view", "received-rollout", threads=threads)
        views.append(open(os.path.join(out, "view.npy"), "rb").read())
    assert views[0] == views[1]
    drawn = env.path("rr-drawn")
    env.run("draw", "--weights", os.path.join(env.path("rr-1"), "attention.npy"), "--view",
            "received-rollout", "--npy", drawn)
    assert np.abs(load(drawn, "view.npy") - load(env.path("rr-1"), "view.npy")).max() <= 1e-6
    # a TMPDIR that is no folder: one message naming it, before any work, nothing written
    not_a_folder = env.path("not-a-folder")
    open(not_a_folder, "w").close()
    png = env.path("rr-never.png")
    _, err = env.run("model", "--model", gpt2(env), "--ids", IDS, "--view", "received-rollout",
                     "--png", png, "-q", expect=2, extra_env={"TMPDIR": not_a_folder})
    assert not_a_folder in err and "TMPDIR" in err and err.count("\n") == 1, err
    assert not os.path.exists(png)


def long_model(env):
    folder = env.path("gpt2-4096")
    if not os.path.isdir(folder):
        write_gpt2(folder, 2, 4, 32, 4096, 64, 3)
    return folder


def test_memory_stays_far_below_the_maps(env):
    folder, n = long_model(env), 4096
    ids = ",".join(str((7 * i + 3) % 64) for i in range(n))
    maps_bytes = 2 * 4 * n * n * 4  # 512 MiB: what keeping every map would take
    png = env.path("long.png")
    code, rss, err = peak_rss(env.exe, ["model", "--model", folder, "--ids", ids, "--png", png,
                                        "--view", "received", "-q"])
    assert code == 0, err
    if not sanitized(env.exe):
        assert rss < maps_bytes / 4, (rss, maps_bytes)
    # attention.npy of one head, written as the forward makes it: no map in memory
    code, rss_head, err = peak_rss(env.exe, ["model", "--model", folder, "--ids", ids, "--npy",
                                             env.path("long-npy"), "--npy-layers", "1",
                                             "--npy-heads", "2", "-q"])
    assert code == 0, err
    a = np.load(os.path.join(env.path("long-npy"), "attention.npy"), mmap_mode="r")
    assert a.shape == (1, 1, n, n)
    assert abs(float(a[0, 0, n - 1].sum()) - 1) <= 1e-5 and float(a[0, 0, 5, 6:].max()) == 0.0
    if not sanitized(env.exe):
        assert rss_head < maps_bytes / 4, (rss_head, maps_bytes)
    # the rolled-out view: the layers' inputs in a scratch file, no map
    code, rss_rolled, err = peak_rss(env.exe, ["model", "--model", folder, "--ids", ids, "--png",
                                               png, "--view", "received-rollout", "-q"])
    assert code == 0, err
    if not sanitized(env.exe):
        assert rss_rolled < maps_bytes / 4, (rss_rolled, maps_bytes)


def test_heads_measured_row_by_row(env):
    # the head finder's statistics on a 4,096-token text, no map kept; each head's first-token
    # share against the column sums of model's run: (received[l, h, 0] − a_00) / (n − 1)
    folder, n = long_model(env), 4096
    ids = ",".join(str((11 * i + 5) % 64) for i in range(n))
    out = env.path("heads.json")
    code, rss, err = peak_rss(env.exe, ["heads", "--model", folder, "--ids", ids, "--json", out,
                                        "-q"])
    assert code == 0, err
    if not sanitized(env.exe):
        assert rss < 2 * 4 * n * n * 4 / 4, rss
    npy = env.path("heads-received")
    env.run("model", "--model", folder, "--ids", ids, "--npy", npy, "--npy-layers", "0",
            "--npy-heads", "0", "-q")
    received = np.load(os.path.join(npy, "received.npy")).astype(np.float64)
    heads = json.load(open(out))["heads"]
    assert len(heads) == 8
    for h in heads:
        want = (received[h["layer"], h["head"], 0] - 1.0) / (n - 1)
        assert abs(h["first"] - want) <= 1e-6, (h, want)


def numpy_gpt2_hidden(folder, ids):
    """The last hidden state of write_gpt2's checkpoint in float64 (the attention a block of rows
    at a time, so 4,200 tokens fit)."""
    cfg = json.load(open(os.path.join(folder, "config.json")))
    W = {k: v.astype(np.float64) for k, v in read_safetensors(os.path.join(folder, "model.safetensors")).items()}
    d, H, n = cfg["n_embd"], cfg["n_head"], len(ids)
    dh = d // H

    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * W[p + ".weight"] + W[p + ".bias"]

    x = W["wte.weight"][ids] + W["wpe.weight"][:n]
    for l in range(cfg["n_layer"]):
        p = f"h.{l}."
        qkv = ln(x, p + "ln_1") @ W[p + "attn.c_attn.weight"] + W[p + "attn.c_attn.bias"]
        q, k, v = (qkv[:, i * d:(i + 1) * d].reshape(n, H, dh).transpose(1, 0, 2) for i in range(3))
        ctx = np.zeros((H, n, dh))
        for i0 in range(0, n, 512):
            s = q[:, i0:i0 + 512] @ k.transpose(0, 2, 1) / np.sqrt(dh)
            rows = np.arange(i0, min(n, i0 + 512))[:, None]
            s = np.where(np.arange(n)[None, :] > rows, -np.inf, s)
            a = np.exp(s - s.max(-1, keepdims=True))
            ctx[:, i0:i0 + 512] = (a / a.sum(-1, keepdims=True)) @ v
        x = x + ctx.transpose(1, 0, 2).reshape(n, d) @ W[p + "attn.c_proj.weight"] + W[p + "attn.c_proj.bias"]
        h = ln(x, p + "ln_2") @ W[p + "mlp.c_fc.weight"] + W[p + "mlp.c_fc.bias"]
        h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
        x = x + h @ W[p + "mlp.c_proj.weight"] + W[p + "mlp.c_proj.bias"]
    return ln(x, "ln_f")


def test_a_text_past_the_mlp_chunk_against_numpy(env):
    # past 4,096 rows the MLP runs in chunks: the hidden state of every row against NumPy
    folder, n = env.path("gpt2-4200"), 4200
    write_gpt2(folder, 2, 2, 16, n, 64, 9)
    ids = [(13 * i + 1) % 64 for i in range(n)]
    out = env.path("chunked")
    env.run("model", "--model", folder, "--ids", ",".join(map(str, ids)), "--npy", out,
            "--npy-layers", "1", "--npy-heads", "1", "-q")
    got = np.load(os.path.join(out, "hidden.npy")).astype(np.float64)
    want = numpy_gpt2_hidden(folder, ids)
    err = np.abs(got - want).max() / np.abs(want).max()
    assert err <= 1e-4, err
    print(f"  4,200 tokens: hidden state within {err:.1e} (relative to its largest entry)")


def test_max_memory_refuses_before_work(env):
    folder, n = long_model(env), 4096
    ids = ",".join(str(i % 64) for i in range(n))
    for args, words in [(["--view", "mean", "--png", "m.png"],
                         ["--max-memory", "--layers", "--heads", "maps fit", "--view received"]),
                        (["--json", "m.json"], ["--json", "--npy DIR"]),
                        (["--view", "head", "--layer", "1", "--png", "m.png", "--max-memory", "1M"],
                         ["shorter text"])]:
        cwd_args = [a if not a.startswith("m.") else env.path(a) for a in args]
        if "--max-memory" not in cwd_args:
            cwd_args += ["--max-memory", "200M"]
        _, err = env.run("model", "--model", folder, "--ids", ids, *cwd_args, expect=2)
        for w in words:
            assert w in err, (args, err)
        assert err.count("\n") == 1, err
        assert not os.path.exists(env.path("m.png")) and not os.path.exists(env.path("m.json"))


def test_nothing_left_when_the_outputs_cannot_be_placed(env):
    # hidden.npy cannot be written (a folder is there): the run fails after the forward, and
    # neither attention.npy nor its temporary stays behind
    out = env.path("blocked")
    os.makedirs(os.path.join(out, "hidden.npy"))
    _, err = env.run("model", "--model", gpt2(env), "--ids", IDS, "--npy", out, "-q", expect=2)
    assert "hidden.npy" in err, err
    assert os.listdir(out) == ["hidden.npy"], os.listdir(out)
    # a folder that does not exist yet: its temporary sits in the folder above, then moves in
    fresh = env.path("fresh")
    env.run("model", "--model", gpt2(env), "--ids", IDS, "--npy", fresh, "-q")
    assert os.path.exists(os.path.join(fresh, "attention.npy"))
    assert not [f for f in os.listdir(env.tmp) if ".tmp-" in f]

def llama_attention(p, config, ids):
    """LlamaForCausalLM's forward in float64 from its definition (RMSNorm, rotary positions on
    the two halves of each head, SwiGLU): per layer the column sums of every head's map [H, n]
    and the heads' mean map [n, n]."""
    d, H, n = config["hidden_size"], config["num_attention_heads"], len(ids)
    dh, eps = d // H, config["rms_norm_eps"]
    angles = np.outer(np.arange(n), 1.0 / config["rope_theta"] ** (np.arange(0, dh, 2) / dh))
    cos, sin = np.cos(np.concatenate([angles] * 2, -1)), np.sin(np.concatenate([angles] * 2, -1))

    def rms(x, w):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w

    def rotate(x):
        return x * cos + np.concatenate([-x[..., dh // 2:], x[..., :dh // 2]], -1) * sin

    x, hidden = p["model.embed_tokens.weight"][ids], np.triu(np.ones((n, n), bool), 1)
    received, means = [], []
    for l in range(config["num_hidden_layers"]):
        w = lambda name: p[f"model.layers.{l}.{name}.weight"]  # noqa: E731
        m = rms(x, w("input_layernorm"))
        q, k, v = ((m @ w(f"self_attn.{s}_proj").T).reshape(n, H, dh).transpose(1, 0, 2) for s in "qkv")
        s = rotate(q) @ rotate(k).transpose(0, 2, 1) / np.sqrt(dh)
        s -= np.where(hidden, 0, s).max(-1, keepdims=True)
        a = np.exp(s, where=~hidden, out=np.zeros_like(s))  # hidden keys: exactly 0
        a /= a.sum(-1, keepdims=True)
        received.append(a.sum(1))
        means.append(a.mean(0))
        x = x + (a @ v).transpose(1, 0, 2).reshape(n, d) @ w("self_attn.o_proj").T
        m = rms(x, w("post_attention_layernorm"))
        gate = m @ w("mlp.gate_proj").T
        x = x + (gate / (1 + np.exp(-gate)) * (m @ w("mlp.up_proj").T)) @ w("mlp.down_proj").T
    return np.stack(received), means


def test_the_bundled_long_model_reads_a_whole_book(env):
    """samples/kjv-llama (samples/train_long_model.py, rotary positions, 4,096 of them) over the
    whole book of Ruth (samples/ruth.txt, about 3,700 tokens): every map's rows sum to 1 and the
    rolled-out page to the text's length; on its first two chapters (about 2,000 tokens: a third
    of the whole book's n² work), received.npy and the rolled-out page against a float64 NumPy
    forward written from Llama's definition."""
    folder = os.path.join(env.samples, "kjv-llama")
    config = json.load(open(os.path.join(folder, "config.json")))
    assert config["max_position_embeddings"] >= 4096, config
    book = open(os.path.join(env.samples, "ruth.txt"), encoding="utf-8").read()
    out, png = env.path("ruth"), env.path("ruth.png")
    env.run("model", "--model", folder, "--text", "-", "--view", "received-rollout", "--npy", out,
            "--png", png, "-q", stdin=book)
    n = len(load(out, "token_ids.npy"))
    assert 3500 <= n <= 4096, n
    assert np.abs(load(out, "received.npy").sum(-1) - n).max() <= 1e-3 * n
    assert abs((load(out, "view.npy") * (n - np.arange(n))).sum() - n) <= 1e-3 * n
    assert os.path.getsize(png) > 0
    two = env.path("ruth-1-2")
    env.run("model", "--model", folder, "--text", "-", "--view", "received-rollout", "--npy", two,
            "-q", stdin="\n".join(book.split("\n")[:2]))
    ids = load(two, "token_ids.npy")
    n = len(ids)
    assert n > 1900, n
    received, means = llama_attention(read_safetensors(os.path.join(folder, "model.safetensors")),
                                      config, ids)
    got = load(two, "received.npy")
    assert got.shape == received.shape == (4, 4, n), (got.shape, received.shape)
    assert np.abs(got - received).max() <= 1e-3 * n ** 0.5, np.abs(got - received).max()
    v = np.ones(n)
    for mean in reversed(means):
        v = 0.5 * v + 0.5 * (v @ mean)
    want = v / (n - np.arange(n))
    assert np.abs(load(two, "view.npy") - want).max() <= 1e-4, np.abs(load(two, "view.npy") - want).max()


if __name__ == "__main__":
    sys.exit(main(globals()))
