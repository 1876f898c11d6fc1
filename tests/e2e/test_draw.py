#!/usr/bin/env python3
"""attn-viz draw: weights computed elsewhere, drawn with the model views. Arrays written by NumPy
itself (float16/32/64, C and Fortran order, ranks 2-4) give the same computed maps as NumPy
computes from them; the maps of `attn-viz model --npy` drawn again give the same view.npy as the
model run; the refusals name the file and write nothing."""
import json
import re
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import bf16_bits, page_maps, write_safetensors  # noqa: E402
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


def decoded(dtype, a):
    if dtype == "F16":
        return a.astype(np.float16).astype(np.float32)
    if dtype == "BF16":
        return (bf16_bits(a).astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float32)


def drawn_maps(env, name, *argv):
    """The maps draw read, as its --html page holds them (6 significant digits), and the page's
    tokens."""
    page = env.path(name + ".html")
    env.run("draw", *argv, "--html", page)
    html = open(page, encoding="utf-8").read()
    data = json.loads(re.search(r'id="attnviz-data">(.*?)</script>', html, re.S).group(1))
    return page_maps(html, data), data["tokens"], data["subtitle"]


def test_every_format_reads_the_same_maps(env):
    L, H, n = 3, 2, 6
    maps = softmax_maps((L, H, n, n), 11).astype(np.float32)
    tokens = [f"w{k}" for k in range(n)]
    near = lambda a, b: np.all(np.abs(a - b) <= 5e-6 * np.abs(b) + 1e-12)  # noqa: E731
    npy = env.path("all.npy")
    np.save(npy, maps)
    base, _, _ = drawn_maps(env, "npy", "--weights", npy)
    assert near(base, maps)
    # numpy.savez(*per-layer [1, H, n, n]), as from Hugging Face's output_attentions; compressed too
    layers = [maps[l][None] for l in range(L)]
    for name, save in [("layers.npz", np.savez), ("zipped.npz", np.savez_compressed)]:
        np_path = env.path(name)
        save(np_path, *layers)
        got, _, subtitle = drawn_maps(env, name, "--weights", np_path)
        assert near(got, maps) and "arr_0 … arr_2 stacked" in subtitle, (name, subtitle)
    # twelve layers: arr_10 and arr_11 come after arr_9
    many = softmax_maps((12, 1, 3, 3), 5).astype(np.float32)
    np.savez(env.path("twelve.npz"), *[many[l][None] for l in range(12)])
    got, _, _ = drawn_maps(env, "twelve", "--weights", env.path("twelve.npz"))
    assert near(got, many)
    # --key picks one array of several
    np.savez(env.path("keyed.npz"), attention=maps, other=maps[:, :1])
    got, _, subtitle = drawn_maps(env, "keyed", "--weights", env.path("keyed.npz"), "--key", "attention")
    assert near(got, maps) and "'attention'" in subtitle
    # safetensors in F32, F16 and BF16: one tensor, or one per layer stacked in name order
    for dtype in ("F32", "F16", "BF16"):
        one = env.path(f"one-{dtype}.safetensors")
        write_safetensors(one, {"attentions": maps}, dtype)
        got, _, _ = drawn_maps(env, "st1" + dtype, "--weights", one)
        assert near(got, decoded(dtype, maps)), dtype
        per = env.path(f"per-{dtype}.safetensors")
        write_safetensors(per, {f"layer.{l}": maps[l] for l in (2, 0, 1)}, dtype)
        got, _, _ = drawn_maps(env, "st2" + dtype, "--weights", per)
        assert near(got, decoded(dtype, maps)), dtype
    # JSON: nested lists with a batch of one, or an object with the tokens
    plain = env.path("plain.json")
    json.dump([maps[l][None].tolist() for l in range(L)], open(plain, "w"))
    got, got_tokens, _ = drawn_maps(env, "plainjson", "--weights", plain)
    assert near(got, maps) and got_tokens == [str(k) for k in range(n)]
    obj = env.path("obj.json")
    json.dump({"attentions": maps.tolist(), "tokens": tokens}, open(obj, "w"))
    got, got_tokens, _ = drawn_maps(env, "objjson", "--weights", obj)
    assert near(got, maps) and got_tokens == tokens
    # and every view reads them: the rollout of the .npz is the .npy's
    out_a, out_b = env.path("roll-a"), env.path("roll-b")
    env.run("draw", "--weights", npy, "--view", "rollout", "--npy", out_a)
    env.run("draw", "--weights", env.path("zipped.npz"), "--view", "rollout", "--npy", out_b)
    assert (np.load(os.path.join(out_a, "view.npy")) == np.load(os.path.join(out_b, "view.npy"))).all()


def zeros_npz(path, shape):
    """An .npz whose one member is `shape` float32 zeros, deflated a block at a time (a 1 GiB
    array is a megabyte on disk): what a hostile or careless file looks like."""
    import io
    import zipfile
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f4", "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        with z.open("arr_0.npy", "w", force_zip64=True) as f:
            f.write(head.getvalue())
            left, block = int(np.prod(shape)) * 4, bytes(1 << 24)
            while left:
                f.write(block[:min(left, len(block))])
                left -= min(left, len(block))


def test_a_zip_bomb_is_refused_from_its_headers_before_inflating(env):
    """A 5 MB .npz declaring a 1 GiB array: the memory it needs is read from the zip directory and
    the .npy header alone, and past --max-memory the run stops at once (the same file used to be
    inflated in full first); the output already there is left as it was."""
    bomb = env.path("bomb.npz")
    zeros_npz(bomb, (16, 16, 1024, 1024))
    assert os.path.getsize(bomb) < 8 << 20, os.path.getsize(bomb)
    png = env.path("bomb.png")
    open(png, "wb").write(b"keep me")
    _, err = env.run("draw", "--weights", bomb, "--png", png, "--max-memory", "512M", expect=2, timeout=20)
    assert err.startswith(f"attn-viz: error: {bomb}: its arrays would need about 2.0 GiB to read") \
        and "--max-memory" in err, err
    assert open(png, "rb").read() == b"keep me"
    _, err = env.run("draw", "--weights", bomb, "--png", png, "--max-memory", "abc", expect=2)
    assert "--max-memory" in err, err


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
    text = env.path("maps.txt")
    open(text, "w").write("0.5 0.5\n")
    cases.append((["--weights", text], ["maps.txt", ".npz", ".safetensors", ".json"]))
    mixed = env.path("mixed.npz")
    np.savez(mixed, first=softmax_maps((2, 5, 5), 1), second=softmax_maps((5, 5), 1))
    cases.append((["--weights", mixed], ["mixed.npz", "different shapes", "first, second", "--key"]))
    cases.append((["--weights", mixed, "--key", "third"], ["mixed.npz", "no array 'third'"]))
    cases.append((["--weights", good, "--key", "a"], ["--key", "good.npy"]))
    batch = env.path("batch.npy")
    np.save(batch, softmax_maps((2, 2, 3, 4, 4), 1))
    cases.append((["--weights", batch], ["batch.npy", "batch of 2"]))
    damaged = env.path("damaged.npz")
    np.savez_compressed(damaged, a=softmax_maps((3, 6, 6), 1))
    raw = bytearray(open(damaged, "rb").read())
    for k in range(60, 90):
        raw[k] ^= 0x5A
    open(damaged, "wb").write(bytes(raw))
    cases.append((["--weights", damaged], ["damaged.npz", "byte", "damaged"]))
    for name, doc, words in [("ragged.json", [[0.5, 0.5], [1.0]], ["ragged.json", "the list[1]", "1 items", "2"]),
                             ("null.json", {"attentions": [[1.0, None], [0.5, 0.5]]},
                              ["null.json", '"attentions"[0][1] is null']),
                             ("notokens.json", {"tokens": ["a"]}, ["notokens.json", '"attentions"']),
                             ("fewtokens.json", {"attentions": [[1.0, 0.0], [0.5, 0.5]], "tokens": ["a"]},
                              ["fewtokens.json", "1 tokens", "2 x 2"])]:
        path = env.path(name)
        json.dump(doc, open(path, "w"))
        cases.append((["--weights", path], words))
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
