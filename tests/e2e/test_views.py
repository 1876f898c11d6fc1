#!/usr/bin/env python3
"""The views of a whole model (attn-viz model --view model), decoded and checked against the
numbers: the PNG is read with PIL (Debian's python3-pil, an independent decoder), every
thumbnail found by its frame, and each of its pixels compared with the colour the map's weight
should have (viridis over the shared range) against attention.npy of the same run; the layer and
head labels are in the SVG as text; --layers/--heads cut the grid; a 32 x 32 model stays legible
(thumbnails of 50 px, every frame apart, every label present); the refusals."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import colormap, nice_at_or_above, write_safetensors  # noqa: E402
from harness import import_numpy, import_pil_image, main  # noqa: E402

np = import_numpy()
Image = import_pil_image()

MUTED = (102, 102, 102)
HIDDEN = (232, 232, 232)


def frames(img, t):
    """Top-left corners (x, y) of the (t + 2) x (t + 2) frames in MUTED, row-major."""
    a = np.asarray(img.convert("RGB")).astype(int)
    muted = (a == MUTED).all(-1)
    found = []
    H, W = muted.shape
    for y in range(H - t - 1):
        row = muted[y]
        for x in np.flatnonzero(row[:W - t - 1]):
            if row[x:x + t + 2].all() and muted[y + t + 1, x:x + t + 2].all() \
                    and muted[y:y + t + 2, x].all() and muted[y:y + t + 2, x + t + 1].all():
                found.append((x, y))
    return a, found


def shared_top(maps):
    """Row 0 of a causal map is always [1, 0, ...]; the range leaves it out."""
    return nice_at_or_above(float(maps[..., 1:, :].max()))


def check_thumbnail(a, x, y, weights, vmax, cmap):
    """Thumbnail of side n (one pixel per cell) at frame (x, y) against the map."""
    n = weights.shape[0]
    worst = 0
    for i in range(n):
        for j in range(n):
            px = a[y + 1 + i, x + 1 + j]
            if j > i:
                assert tuple(px) == HIDDEN, (i, j, px)
                continue
            v = min(1.0, weights[i, j] / vmax)
            k = min(len(cmap) - 1, int(v * len(cmap))) if v > 0 else 0
            near = min(abs(cmap[max(0, k + d)] - px).max() for d in (-1, 0, 1) if 0 <= k + d < len(cmap))
            worst = max(worst, near)
    assert worst <= 1, worst


def run_view(env, folder, ids, name, *extra):
    npy = env.path(name + "-npy")
    png = env.path(name + ".png")
    env.run("model", "--model", folder, "--ids", ids, "--npy", npy, "--png", png,
            "--view", "model", "-q", *extra)
    return np.load(os.path.join(npy, "attention.npy")), Image.open(png)


def test_every_thumbnail_shows_its_map(env):
    folder = os.path.join(env.data, "hf", "gpt2_f32")
    ids = ",".join(str(i) for i in [5, 17, 3, 88, 41, 9, 23, 60, 2, 71, 14, 33])
    n = 12
    maps, img = run_view(env, folder, ids, "grid", "--cell", str(n))
    L, H = maps.shape[:2]
    a, found = frames(img, n)
    assert len(found) == L * H, found
    xs = sorted({x for x, _ in found})
    ys = sorted({y for _, y in found})
    assert len(xs) == H and len(ys) == L  # a regular grid: rows = layers, columns = heads
    cmap = colormap(env, "viridis")
    vmax = shared_top(maps)
    for (x, y) in found:
        check_thumbnail(a, x, y, maps[ys.index(y), xs.index(x)], vmax, cmap)
    # labels: some ink left of each row and above each column
    for y in ys:
        assert (a[y:y + n, :xs[0] - 4] < 128).any()
    for x in xs:
        assert (a[:ys[0] - 2, x:x + n] < 128).any()


def test_layers_and_heads_cut_the_grid(env):
    folder = os.path.join(env.data, "hf", "gpt2_f32")
    ids = "5,17,3,88,41,9,23,60,2,71"
    maps, img = run_view(env, folder, ids, "cut", "--cell", "10", "--layers", "1", "--heads", "2,0")
    a, found = frames(img, 10)
    assert len(found) == 2, found
    found.sort()
    cmap = colormap(env, "viridis")
    # heads in the order written: 2 then 0
    vmax = shared_top(maps[1:2, [2, 0]])  # the range of the maps shown
    check_thumbnail(a, *found[0], maps[1, 2], vmax, cmap)
    check_thumbnail(a, *found[1], maps[1, 0], vmax, cmap)
    svg = env.path("cut.svg")
    env.run("model", "--model", folder, "--ids", ids, "--svg", svg, "--view", "model",
            "--layers", "1", "--heads", "2,0", "-q")
    text = open(svg, encoding="utf-8").read()
    labels = re.findall(r">(L\d+|H\d+)</text>", text)
    assert sorted(labels) == ["H0", "H2", "L1"], labels
    assert text.count("<image") == 2


def write_gpt2(folder, layers, heads, d, positions, vocab, seed):
    """A GPT-2 checkpoint in Hugging Face's names and shapes (random weights)."""
    rng = np.random.default_rng(seed)
    t = {"wte.weight": rng.normal(0, 0.5, (vocab, d)), "wpe.weight": rng.normal(0, 0.3, (positions, d)),
         "ln_f.weight": np.ones(d), "ln_f.bias": np.zeros(d)}
    for l in range(layers):
        p = f"h.{l}."
        t.update({p + "ln_1.weight": np.ones(d), p + "ln_1.bias": np.zeros(d),
                  p + "attn.c_attn.weight": rng.normal(0, 1.0, (d, 3 * d)),
                  p + "attn.c_attn.bias": np.zeros(3 * d),
                  p + "attn.c_proj.weight": rng.normal(0, 0.1, (d, d)), p + "attn.c_proj.bias": np.zeros(d),
                  p + "ln_2.weight": np.ones(d), p + "ln_2.bias": np.zeros(d),
                  p + "mlp.c_fc.weight": rng.normal(0, 0.1, (d, 4 * d)), p + "mlp.c_fc.bias": np.zeros(4 * d),
                  p + "mlp.c_proj.weight": rng.normal(0, 0.1, (4 * d, d)), p + "mlp.c_proj.bias": np.zeros(d)})
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"), t)
    json.dump({"model_type": "gpt2", "n_embd": d, "n_head": heads, "n_layer": layers,
               "n_positions": positions, "vocab_size": vocab, "layer_norm_epsilon": 1e-5,
               "activation_function": "gelu_new"}, open(os.path.join(folder, "config.json"), "w"))


def test_a_32_by_32_model_stays_legible(env):
    folder = env.path("gpt2-32x32")
    write_gpt2(folder, 32, 32, 64, 64, 50, 3)
    ids = ",".join(str(i % 50) for i in range(0, 7 * 40, 7))
    maps, img = run_view(env, folder, ids, "big")
    assert maps.shape == (32, 32, 40, 40)
    t = 50  # clamp(1600 / 32, 24, 160)
    a, found = frames(img, t)
    assert len(found) == 32 * 32, len(found)
    assert img.size[0] <= 2000 and img.size[1] <= 2000, img.size
    xs = sorted({x for x, _ in found})
    ys = sorted({y for _, y in found})
    assert min(np.diff(xs)) >= t + 2 and min(np.diff(ys)) >= t + 2  # no two thumbnails touch
    svg = env.path("big.svg")
    env.run("model", "--model", folder, "--ids", ids, "--svg", svg, "--view", "model", "-q")
    labels = set(re.findall(r">(L\d+|H\d+)</text>", open(svg, encoding="utf-8").read()))
    assert labels == {f"L{i}" for i in range(32)} | {f"H{i}" for i in range(32)}


def residual(maps, l):
    """Â_l = ½ mean over heads + ½ I, rows renormalised."""
    a = 0.5 * maps[l].mean(0) + 0.5 * np.eye(maps.shape[-1])
    return a / a.sum(-1, keepdims=True)


def edmonds_karp(cap, s, t):
    """Maximum flow on a dense capacity matrix (BFS augmenting paths): another algorithm than
    attn-viz's Dinic, written here."""
    cap = cap.copy()
    total = 0.0
    n = len(cap)
    while True:
        parent = [-1] * n
        parent[s] = s
        queue = [s]
        for u in queue:
            for v in np.flatnonzero(cap[u] > 1e-15):
                if parent[v] < 0:
                    parent[v] = u
                    queue.append(v)
        if parent[t] < 0:
            return total
        f, v = np.inf, t
        while v != s:
            f = min(f, cap[parent[v], v])
            v = parent[v]
        v = t
        while v != s:
            cap[parent[v], v] -= f
            cap[v, parent[v]] += f
            v = parent[v]
        total += f


def view_npy(env, folder, ids, view, *extra):
    out = env.path(f"view-{view}-{len(extra)}")
    env.run("model", "--model", folder, "--ids", ids, "--npy", out, "--view", view, "-q", *extra)
    return (np.load(os.path.join(out, "attention.npy")).astype(np.float64),
            np.load(os.path.join(out, "view.npy")).astype(np.float64))


def test_mean_max_rollout_and_flow_against_numpy(env):
    folder = os.path.join(env.data, "hf", "gpt2_f32")
    ids = "5,17,3,88,41,9,23,60"
    maps, mean = view_npy(env, folder, ids, "mean")
    assert np.abs(mean - maps.mean((0, 1))).max() <= 1e-6
    maps, got = view_npy(env, folder, ids, "max", "--layers", "1", "--heads", "0,3")
    assert np.abs(got - maps[1, [0, 3]].max(0)).max() <= 1e-7
    maps, got = view_npy(env, folder, ids, "mean", "--layers", "0", "--heads", "2")
    assert np.abs(got - maps[0, 2]).max() <= 1e-7
    # rollout: Â_last ... Â_first, rows summing to 1
    maps, rollout = view_npy(env, folder, ids, "rollout")
    want = np.eye(maps.shape[-1])
    for l in range(maps.shape[0]):
        want = residual(maps, l) @ want
    assert np.abs(rollout - want).max() <= 1e-6, np.abs(rollout - want).max()
    assert np.abs(rollout.sum(-1) - 1).max() <= 1e-6
    # flow: one max-flow per (position, token) through the layered graph, by Edmonds-Karp
    for layers in (None, "1,0"):
        extra = ("--layers", layers) if layers else ()
        maps, flow = view_npy(env, folder, ids, "flow", *extra)
        order = [1, 0] if layers else list(range(maps.shape[0]))
        n, L = maps.shape[-1], len(order)
        cap = np.zeros(((L + 1) * n, (L + 1) * n))
        for b, l in enumerate(order, start=1):
            a = residual(maps, l)
            cap[(b - 1) * n:b * n, b * n:(b + 1) * n] = a.T  # (b − 1, j) → (b, i): Â[i, j]
        want = np.array([[edmonds_karp(cap, j, L * n + i) for j in range(n)] for i in range(n)])
        assert np.abs(flow - want).max() <= 1e-6, np.abs(flow - want).max()
        assert (flow <= 1 + 1e-6).all()
    # the figure of each is drawn too
    for view in ("mean", "max", "rollout", "flow"):
        png = env.path(f"{view}.png")
        env.run("model", "--model", folder, "--ids", ids, "--png", png, "--view", view, "-q")
        assert Image.open(png).size[0] > 100


TABLEAU = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]


def test_head_view_draws_each_weight_as_a_line(env):
    folder = os.path.join(env.data, "hf", "gpt2_f32")
    ids = "5,17,3,88,41,9,23,60"
    npy = env.path("lines-npy")
    svg = env.path("lines.svg")
    png = env.path("lines.png")
    env.run("model", "--model", folder, "--ids", ids, "--npy", npy, "--svg", svg, "--png", png,
            "--view", "lines", "--layer", "1", "--heads", "3,1", "-q")
    maps = np.load(os.path.join(npy, "attention.npy"))[1]
    text = open(svg, encoding="utf-8").read()
    lines = [tuple(m) for m in re.findall(
        r'<line x1="(\d+)" y1="(\d+)" x2="(\d+)" y2="(\d+)" stroke="(#[0-9a-f]{6})" '
        r'stroke-width="[\d.]+" stroke-opacity="([\d.]+)"', text)]
    want = [(h, i, j, maps[h, i, j]) for h in (3, 1) for i in range(8) for j in range(8)
            if maps[h, i, j] >= 0.01]
    assert len(lines) == len(want), (len(lines), len(want))
    # one panel per head, left to right in the order given; rows evenly spaced, 18 px apart
    ys = sorted({int(l[1]) for l in lines})
    assert len(ys) == 8 and set(np.diff(ys)) == {18}, ys
    panel_x = sorted({int(l[0]) for l in lines})
    assert len(panel_x) == 2
    for (x1, y1, x2, y2, colour, opacity), (h, i, j, w) in zip(lines, want):
        assert int(x1) == panel_x[[3, 1].index(h)]
        assert ys.index(int(y1)) == i and ys.index(int(y2)) == j
        assert colour == TABLEAU[h]
        assert abs(float(opacity) - min(1.0, w)) <= 5e-4, (opacity, w)
    # in the raster, a line of weight 1 (query 0 on key 0 under the causal mask) is solid
    img = np.asarray(Image.open(png).convert("RGB")).astype(int)
    x1, y1, x2, y2 = (int(v) for v in lines[0][:4])
    mid = img[(y1 + y2) // 2, (x1 + x2) // 2]
    assert tuple(mid) == tuple(int(TABLEAU[3][k:k + 2], 16) for k in (1, 3, 5)), mid
    # overlay: every head in one panel
    env.run("model", "--model", folder, "--ids", ids, "--svg", svg, "--view", "overlay",
            "--layer", "0", "-q")
    text = open(svg, encoding="utf-8").read()
    starts = set(re.findall(r'<line x1="(\d+)"', text))
    colours = set(re.findall(r'<line [^>]*stroke="(#[0-9a-f]{6})"', text))
    assert len(starts) == 1 and colours == set(TABLEAU[:4]), (starts, colours)


def test_refusals(env):
    folder = os.path.join(env.data, "hf", "gpt2_f32")
    out = env.path("never.png")
    for args, words in [(["--layers", "0"], ["--view model"]),
                        (["--view", "model", "--layers", "7"], ["--layers", "2 layers"]),
                        (["--view", "model", "--heads", "1-x"], ["--heads", "0,5-7"]),
                        (["--name-heads"], ["--view model"]),
                        (["--view", "rollout", "--heads", "1"], ["--view rollout", "--heads"]),
                        (["--view", "lines", "--layers", "1"], ["--view lines", "--layer"]),
                        (["--view", "lines", "--term"], ["--view lines", "--png"]),
                        # one causal layer: L · n⁴ / 12 <= 1e10 up to 588 tokens
                        (["--view", "flow", "--ids", ",".join(["1"] * 600)],
                         ["at most 588 tokens", "this run has 600", "rollout"])]:
        ids = [] if "--ids" in args else ["--ids", "1,2,3"]
        model = folder
        if "--ids" in args:  # 600 tokens need a model with that many positions
            model = env.path("gpt2-640-positions")
            write_gpt2(model, 1, 2, 8, 640, 50, 1)
        _, err = env.run("model", "--model", model, *ids, "--png", out, *args, expect=2)
        for w in words:
            assert w in err, (args, err)
        assert err.count("\n") == 1, err
        assert not os.path.exists(out)


if __name__ == "__main__":
    sys.exit(main(globals()))
