#!/usr/bin/env python3
"""attn-viz draw: weights computed elsewhere, drawn with the model views. Arrays written by NumPy
itself (float16/32/64, C and Fortran order, ranks 2-4) give the same computed maps as NumPy
computes from them; the maps of `attn-viz model --npy` drawn again give the same view.npy as the
model run; the refusals name the file and write nothing."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, main, png_size  # noqa: E402

np = import_numpy()


def softmax_maps(shape, seed, causal=False):
    rng = np.random.default_rng(seed)
    e = rng.normal(0, 2, shape)
    if causal:
        n = shape[-1]
        e = np.where(np.triu(np.ones((n, n), bool), 1), -np.inf, e)
    e = np.exp(e - e.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def draw_view(env, weights, view, *extra):
    out = env.path(f"draw-{view}-{os.path.basename(weights)}-{len(extra)}")
    env.run("draw", "--weights", weights, "--view", view, "--npy", out, *extra)
    return np.load(os.path.join(out, "view.npy")).astype(np.float64)


def test_numpy_arrays_of_every_kind(env):
    maps = softmax_maps((2, 3, 7, 7), 1)
    f64 = env.path("m64.npy")
    np.save(f64, maps)  # float64, [layers, heads, n, n]
    got = draw_view(env, f64, "mean")
    assert np.abs(got - maps.mean((0, 1))).max() <= 1e-6
    got = draw_view(env, f64, "max", "--layers", "1", "--heads", "0,2")
    assert np.abs(got - maps[1, [0, 2]].max(0)).max() <= 1e-6
    # one layer's heads as float16 in Fortran order
    f16 = env.path("m16.npy")
    np.save(f16, np.asfortranarray(maps[0].astype(np.float16)))
    got = draw_view(env, f16, "mean")
    assert np.abs(got - maps[0].astype(np.float16).astype(np.float64).mean(0)).max() <= 1e-6
    # one map, float32: rollout through its one layer is ½ A + ½ I
    one = env.path("one.npy")
    np.save(one, maps[0, 0].astype(np.float32))
    got = draw_view(env, one, "rollout")
    want = 0.5 * maps[0, 0].astype(np.float32) + 0.5 * np.eye(7)
    assert np.abs(got - want / want.sum(-1, keepdims=True)).max() <= 1e-6
    # the figures of each view
    tokens = env.path("tokens.txt")
    open(tokens, "w").write("\n".join(f"w{i}" for i in range(7)) + "\n")
    for view in ("head", "model", "lines", "overlay", "mean", "rollout", "flow"):
        png = env.path(f"{view}.png")
        env.run("draw", "--weights", f64, "--tokens", tokens, "--view", view, "--png", png)
        assert png_size(png)[0] > 100, view


def test_model_maps_drawn_again_give_the_same_views(env):
    folder = os.path.join(env.data, "hf", "gpt2_f32")
    ids = "5,17,3,88,41,9,23"
    for view in ("rollout", "flow", "mean"):
        out = env.path(f"model-{view}")
        env.run("model", "--model", folder, "--ids", ids, "--npy", out, "--view", view, "-q")
        again = draw_view(env, os.path.join(out, "attention.npy"), view)
        assert (again == np.load(os.path.join(out, "view.npy"))).all(), view
    # tokens.json names the rows; the causal maps are recognised
    svg = env.path("again.svg")
    stdout, _ = env.run("draw", "--weights", os.path.join(out, "attention.npy"), "--tokens",
                        os.path.join(out, "tokens.json"), "--svg", svg)
    assert "causal" in stdout
    tokens = json.load(open(os.path.join(out, "tokens.json")))
    text = open(svg, encoding="utf-8").read()
    assert all(f">{t}</text>" in text for t in tokens if t.isalnum())


def test_refusals(env):
    good = env.path("good.npy")
    np.save(good, softmax_maps((2, 5, 5), 2))
    out = env.path("never.png")
    cases = []
    bad_shape = env.path("shape.npy")
    np.save(bad_shape, np.zeros((3, 4), np.float32))
    cases.append((["--weights", bad_shape], ["shape.npy", "[3, 4]"]))
    ints = env.path("ints.npy")
    np.save(ints, np.zeros((3, 3), np.int64))
    cases.append((["--weights", ints], ["ints.npy", "not a float"]))
    nan = env.path("nan.npy")
    a = softmax_maps((2, 5, 5), 3)
    a[1, 2, 3] = np.nan
    np.save(nan, a)
    cases.append((["--weights", nan], ["nan.npy", "head 1, 2, 3"]))
    short = env.path("short.npy")
    open(short, "wb").write(open(good, "rb").read()[:-8])
    cases.append((["--weights", short], ["short.npy", "byte"]))
    npz = env.path("maps.npz")
    np.savez(npz, a=a)
    cases.append((["--weights", npz], ["maps.npz", ".npy"]))
    few = env.path("few.txt")
    open(few, "w").write("a\nb\n")
    cases.append((["--weights", good, "--tokens", few], ["few.txt", "2 tokens", "5 x 5"]))
    cases.append((["--weights", good, "--view", "head", "--npy", env.path("nodir")], ["--npy"]))
    cases.append((["--weights", good, "--head", "7"], ["--head", "2 heads"]))
    for args, words in cases:
        _, err = env.run("draw", *args, "--png", out, expect=2)
        for w in words:
            assert w in err, (args, err)
        assert err.count("\n") == 1, err
        assert not os.path.exists(out)
    _, err = env.run("draw", "--weights", good, expect=2)
    assert "nothing to write" in err


if __name__ == "__main__":
    sys.exit(main(globals()))
