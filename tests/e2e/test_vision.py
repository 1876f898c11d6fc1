#!/usr/bin/env python3
"""Vision transformers (ViT, DeiT, DINOv2 with and without registers) against independent
references: the preprocessed pixels against PIL and numpy as Hugging Face's image processors
compute them, every attention map, the last hidden state, the CLS maps, the classifier's
probabilities and the norms, contrib and ALTI measures against a float64 PyTorch forward written from the model
definitions (tests/data/make_vision_models.py), within 1e-5.

Always checks the checked-in tiny checkpoints (tests/data/vision/); where torch can be imported
also makes a fresh set with another seed and checks that. The pictures' reading and resizing
are also checked against PIL for every filter and PNG colour type."""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, import_pil_image, main, png_size  # noqa: E402

np = import_numpy()
Image = import_pil_image()
TOLERANCE = 1e-5


def run_case(env, folder, out, *extra):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    env.run("model", "--model", folder, "--image", os.path.join(folder, "picture.png"), "--npy",
            out, "--quiet", *extra)


def check_folder(env, folder):
    name = os.path.basename(folder)
    ref = np.load(os.path.join(folder, "reference.npz"))
    out = env.path(os.path.join("out", name))
    run_case(env, folder, out)
    pixels = np.load(os.path.join(out, "pixels.npy"))
    assert pixels.shape == ref["pixels"].shape, (pixels.shape, ref["pixels"].shape)
    dp = np.abs(pixels - ref["pixels"]).max()
    assert dp <= 1e-6, dp  # the same 8-bit values after PIL's resize: no rounding apart
    diffs = {}
    for key in ("attention", "hidden", "cls_map"):
        got = np.load(os.path.join(out, key + ".npy"))
        assert got.shape == ref[key].shape, (key, got.shape, ref[key].shape)
        diffs[key] = np.abs(got - ref[key]).max()
        assert diffs[key] <= TOLERANCE, (key, diffs[key])
    a = np.load(os.path.join(out, "attention.npy"))
    assert np.abs(a.sum(-1) - 1).max() <= 1e-6
    tokens = json.load(open(os.path.join(out, "tokens.json")))
    assert tokens[0] == "CLS" and len(tokens) == a.shape[-1], tokens[:4]
    assert not os.path.exists(os.path.join(out, "token_ids.npy"))
    if "logits" in ref:
        js = env.path(name + ".json")
        env.run("model", "--model", folder, "--image", os.path.join(folder, "picture.png"),
                "--top-k", str(len(ref["logits"])), "--json", js, "--quiet")
        top = json.load(open(js))["predictions"][0]["top"]
        z = ref["logits"] - ref["logits"].max()
        want = np.exp(z) / np.exp(z).sum()
        labels = json.load(open(os.path.join(folder, "config.json")))["id2label"]
        for t in top:
            assert t["token"] == labels[str(t["id"])]
            assert abs(t["probability"] - want[t["id"]]) <= TOLERANCE, (t, want)
        assert [t["id"] for t in top] == list(np.argsort(-want, kind="stable")), top
        diffs["probabilities"] = max(abs(t["probability"] - want[t["id"]]) for t in top)
    nout = env.path(os.path.join("norms", name))
    run_case(env, folder, nout, "--measure", "norms")
    got = np.load(os.path.join(nout, "norms.npy"))
    diffs["norms"] = np.abs(got - ref["norms"]).max()
    assert diffs["norms"] <= TOLERANCE, diffs["norms"]
    for measure in ("contrib", "alti"):  # through the residual, DINOv2's layer scale included
        mout = env.path(os.path.join(measure, name))
        run_case(env, folder, mout, "--measure", measure)
        got = np.load(os.path.join(mout, measure + ".npy"))
        assert got.shape == ref[measure].shape, (measure, got.shape, ref[measure].shape)
        assert np.abs(got.sum(-1) - 1).max() <= 1e-6
        diffs[measure] = np.abs(got - ref[measure]).max()
        assert diffs[measure] <= TOLERANCE, (measure, diffs[measure])
    print(f"  {name}: n {a.shape[-1]}, pixels {dp:.0e}, " +
          ", ".join(f"{k} {v:.1e}" for k, v in diffs.items()))


def test_checked_in_models(env):
    root = os.path.join(env.data, "vision")
    names = sorted(n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)))
    assert len(names) == 5, names
    for name in names:
        check_folder(env, os.path.join(root, name))


def test_fresh_models_when_torch_is_installed(env):
    try:
        import torch  # noqa: F401
    except ImportError:
        print("  (torch not installed here: only the checked-in models were compared)")
        return
    sys.path.insert(0, env.data)
    import make_vision_models
    root = env.path("fresh")
    make_vision_models.make_all(root, seed=5)
    for name in sorted(os.listdir(root)):
        check_folder(env, os.path.join(root, name))


def pil_pixels(path, width, height, resample):
    img = Image.open(path).convert("RGB").resize((width, height), resample=resample)
    a = np.array(img).astype(np.float64) * (1 / 255)
    return a.astype(np.float32).transpose(2, 0, 1)


def test_every_filter_and_colour_type_gives_pils_pixels(env):
    base = os.path.join(env.data, "vision", "vit_f32_classifier")
    folder = env.path("filters")
    shutil.copytree(base, folder)
    rng = np.random.default_rng(3)
    rgba = rng.integers(0, 256, (23, 31, 4), dtype=np.uint8)
    pictures = {"rgba": Image.fromarray(rgba, "RGBA"), "grey": Image.fromarray(rgba[..., 0], "L"),
                "grey_alpha": Image.fromarray(rgba[..., :2], "LA"),
                "palette": Image.fromarray(rgba[..., :3], "RGB").quantize(64)}
    checked = 0
    for kind, img in pictures.items():
        path = env.path(kind + ".png")
        img.save(path)
        for resample in range(6):
            for width, height in ((32, 40), (17, 9)):
                pre = {"size": {"height": height, "width": width}, "resample": resample,
                       "do_normalize": False}
                json.dump(pre, open(os.path.join(folder, "preprocessor_config.json"), "w"))
                out = env.path(f"f_{kind}_{resample}_{width}")
                env.run("model", "--model", folder, "--image", path, "--npy", out, "--quiet")
                got = np.load(os.path.join(out, "pixels.npy"))
                want = pil_pixels(path, width, height, resample)
                assert got.shape == want.shape, (got.shape, want.shape)
                assert np.abs(got - want).max() <= 1e-6, (kind, resample, width,
                                                          np.abs(got - want).max() * 255)
                checked += 1
    print(f"  {checked} pictures resized as PIL resizes them (filters 0-5, up and down; RGBA, "
          f"L, LA, P)")


def test_jpeg_pixels_are_within_three_levels_of_pils(env):
    """JPEG decoding is stb_image's; PIL's is libjpeg-turbo's. Their inverse DCTs and colour
    conversions round differently: for full-resolution (4:4:4) and 4:2:0 chroma, the default of
    most encoders, the pixels agree within 3 levels of 255 (measured: 2-3). 4:2:2 chroma is
    upsampled differently at the right border (up to 27 levels in the last columns; reported,
    as README's vision section says)."""
    folder = env.path("jpeg_model")
    shutil.copytree(os.path.join(env.samples, "shapes-vit"), folder)
    json.dump({"do_resize": False, "do_normalize": False},
              open(os.path.join(folder, "preprocessor_config.json"), "w"))
    scene = Image.open(os.path.join(env.samples, "vision", "scene-star.png")).convert("RGB")
    worst = {}
    for quality in (50, 75, 95):
        for subsampling in (0, 1, 2):
            path = env.path(f"scene_{quality}_{subsampling}.jpg")
            scene.save(path, quality=quality, subsampling=subsampling)
            out = env.path(f"jpeg_{quality}_{subsampling}")
            env.run("model", "--model", folder, "--image", path, "--npy", out, "--quiet")
            got = np.load(os.path.join(out, "pixels.npy")) * 255
            want = np.asarray(Image.open(path).convert("RGB"), np.float64).transpose(2, 0, 1)
            diff = float(np.abs(got - want).max())
            worst[subsampling] = max(worst.get(subsampling, 0.0), diff)
            if subsampling != 1:
                assert diff <= 3.0 + 1e-3, (quality, subsampling, diff)
    print(f"  JPEG against PIL, most levels apart: 4:4:4 {worst[0]:.0f}, 4:2:2 {worst[1]:.0f}, "
          f"4:2:0 {worst[2]:.0f}")


def test_bad_pictures_and_wrong_inputs_are_refused_with_one_message(env):
    vit = os.path.join(env.data, "vision", "vit_f32_classifier")
    picture = os.path.join(vit, "picture.png")
    not_picture = env.path("notes.png")
    open(not_picture, "w").write("GIF? no: these are notes\n")
    _, err = env.run("model", "--model", vit, "--image", not_picture, expect=2)
    assert "notes.png" in err and "is not a picture" in err and "PNG" in err, err
    damaged = env.path("damaged.png")
    open(damaged, "wb").write(open(picture, "rb").read()[:200])
    _, err = env.run("model", "--model", vit, "--image", damaged, expect=2)
    assert "damaged.png" in err and "damaged" in err, err
    # a JPEG whose Huffman table declares more than 256 codes (stb_image would write past it)
    jpeg = env.path("tables.jpg")
    Image.new("RGB", (16, 16), (200, 30, 30)).save(jpeg, quality=90)
    data = bytearray(open(jpeg, "rb").read())
    dht = data.index(b"\xff\xc4")
    data[dht + 5:dht + 21] = bytes([255] * 16)  # the first table's 16 counts: 4,080 codes
    open(jpeg, "wb").write(bytes(data))
    _, err = env.run("model", "--model", vit, "--image", jpeg, expect=2)
    assert "tables.jpg" in err and "Huffman table declares 4080 codes" in err, err
    # a PNG whose data chunk claims a gigabyte (stb_image would reserve it before finding the
    # bytes missing): refused, naming the chunk's offset
    claims = env.path("claims.png")
    data = bytearray(open(picture, "rb").read())
    idat = data.index(b"IDAT") - 4
    data[idat:idat + 4] = (1 << 30).to_bytes(4, "big")
    open(claims, "wb").write(bytes(data))
    _, err = env.run("model", "--model", vit, "--image", claims, expect=2)
    assert f"claims.png (byte {idat})" in err and 'chunk "IDAT" declares 1073741824 bytes' in err, err
    # a JPEG without its Huffman tables (as some video frames are stored): stb_image would decode
    # with uninitialised tables; refused, naming the table. A progressive JPEG still reads.
    bare = env.path("bare.jpg")
    Image.open(picture).convert("RGB").save(bare, quality=90)
    data = open(bare, "rb").read()
    while b"\xff\xc4" in data:
        at = data.index(b"\xff\xc4")
        data = data[:at] + data[at + 2 + int.from_bytes(data[at + 2:at + 4], "big"):]
    open(bare, "wb").write(data)
    _, err = env.run("model", "--model", vit, "--image", bare, expect=2)
    assert "bare.jpg" in err and "decodes with Huffman table DC 0 before any table defines it" in err, err
    progressive = env.path("progressive.jpg")
    Image.open(picture).convert("RGB").save(progressive, quality=90, progressive=True)
    env.run("model", "--model", vit, "--image", progressive, "--quiet")
    # a BMP cut short (stb_image would read the missing rows as zeros): refused
    bmp = env.path("cut.bmp")
    Image.open(picture).convert("RGB").save(bmp)
    whole = open(bmp, "rb").read()
    open(bmp, "wb").write(whole[:-64])
    _, err = env.run("model", "--model", vit, "--image", bmp, expect=2)
    assert "cut.bmp" in err and "is a damaged BMP" in err and f"has {len(whole) - 64} bytes" in err, err
    _, err = env.run("model", "--model", vit, "--text", "a cat", expect=2)
    assert "vision model" in err and "--image" in err, err
    _, err = env.run("model", "--model", vit, "--image", picture, "--generate", "3", expect=2)
    assert "--generate" in err and "vision model" in err, err
    gpt = os.path.join(env.data, "hf", "gpt2_f32")
    _, err = env.run("model", "--model", gpt, "--image", picture, expect=2)
    assert "--image" in err and "gpt2" in err, err
    nothing = os.path.join(env.data, "vision", "vit_bf16_interpolated")
    _, err = env.run("model", "--model", nothing, "--image", picture, "--top-k", "3", expect=2)
    assert "no classifier" in err and "--top-k" in err, err
    for command in (["heads"], ["faithfulness", "--text", "a b"], ["explain", "--text", "a b"],
                    ["compare", "--text", "a b"]):
        _, err = env.run(*command, "--model", vit, expect=2)
        assert "reads text models" in err and "--image FILE" in err, (command, err)
    tiny_folder = env.path("tiny")
    shutil.copytree(vit, tiny_folder)
    json.dump({"do_resize": False}, open(os.path.join(tiny_folder, "preprocessor_config.json"), "w"))
    tiny = env.path("tiny.png")
    Image.new("RGB", (5, 30)).save(tiny)
    _, err = env.run("model", "--model", tiny_folder, "--image", tiny, expect=2)
    assert "tiny.png" in err and "smaller than one 8 × 8 patch" in err, err
    json.dump({"size": {"height": 32}}, open(os.path.join(tiny_folder, "preprocessor_config.json"), "w"))
    _, err = env.run("model", "--model", tiny_folder, "--image", picture, expect=2)
    assert "preprocessor_config.json" in err and "size" in err, err
    # id2label must name the classifier's classes; transformers' default names (LABEL_0,
    # LABEL_1 …, written for a config without labels) follow the classifier instead
    labels_folder = env.path("labels")
    shutil.copytree(vit, labels_folder)
    config_path = os.path.join(labels_folder, "config.json")
    config = json.load(open(config_path))
    classes = len(config["id2label"])
    for named in (classes + 1, 2):
        config["id2label"] = {str(i): f"class {i}" for i in range(named)}
        json.dump(config, open(config_path, "w"))
        _, err = env.run("model", "--model", labels_folder, "--image", picture, expect=2)
        assert "config.json" in err and f"id2label names {named} classes" in err, err
    config["id2label"] = {str(i): f"LABEL_{i}" for i in range(classes + 2)}
    json.dump(config, open(config_path, "w"))
    js = env.path("labels.json")
    env.run("model", "--model", labels_folder, "--image", picture, "--top-k", str(classes),
            "--json", js, "--quiet")
    top = json.load(open(js))["predictions"][0]["top"]
    assert sorted(t["token"] for t in top) == [f"LABEL_{i}" for i in range(classes)], top
    for e in (err,):
        assert "Traceback" not in e and "terminate" not in e


def test_a_run_without_outputs_prints_the_classes_and_views_draw(env):
    vit = os.path.join(env.data, "vision", "deit_f16_teacher")
    picture = os.path.join(vit, "picture.png")
    out, _ = env.run("model", "--model", vit, "--image", picture)
    assert "square" in out and "p = " in out, out
    png = env.path("model_view.png")
    env.run("model", "--model", vit, "--image", picture, "--view", "model", "--png", png, "--quiet")
    assert os.path.getsize(png) > 1000
    html = env.path("page.html")
    env.run("model", "--model", vit, "--image", picture, "--html", html, "--quiet")
    assert "rollout through every layer" in open(html, encoding="utf-8").read()


def rollout_reference(a, fusion, discard, residual=0.5):
    """Abnar & Zuidema's rollout with vit-explain's head fusion and discarding, in numpy:
    per layer the heads fused, the smallest floor(n^2 * discard) entries but (0, 0) set to 0,
    then (1 - r) A + r I with rows renormalised; R = A_last ... A_first."""
    L, H, n, _ = a.shape
    r = np.eye(n)
    for layer in range(L):
        f = {"mean": a[layer].mean(0), "max": a[layer].max(0), "min": a[layer].min(0)}[fusion]
        f = f.astype(np.float64).ravel().copy()
        k = int(np.floor(n * n * discard))
        if k:
            order = sorted(range(1, n * n), key=lambda i: (f[i], i))[:k]
            f[order] = 0.0
        m = (1 - residual) * f.reshape(n, n) + residual * np.eye(n)
        m /= m.sum(1, keepdims=True)
        r = m @ r
    return r


def test_rollout_fuses_and_discards_as_vit_explain_describes(env):
    folder = os.path.join(env.data, "vision", "dinov2_registers_bf16_swiglu")
    picture = os.path.join(folder, "picture.png")
    for fusion, discard in (("mean", 0.0), ("max", 0.0), ("min", 0.5), ("mean", 0.9)):
        out = env.path(f"rollout_{fusion}_{discard}")
        env.run("model", "--model", folder, "--image", picture, "--view", "rollout",
                "--head-fusion", fusion, "--discard-ratio", str(discard), "--npy", out,
                "--png", out + ".png", "--quiet")
        a = np.load(os.path.join(out, "attention.npy")).astype(np.float64)
        got = np.load(os.path.join(out, "view.npy"))
        want = rollout_reference(a, fusion, discard)
        assert np.abs(got - want).max() <= 1e-5, (fusion, discard, np.abs(got - want).max())
        assert np.abs(got.sum(1) - 1).max() <= 1e-5
    _, err = env.run("model", "--model", folder, "--image", picture, "--view", "mean",
                     "--head-fusion", "max", "--png", env.path("x.png"), expect=2)
    assert "--head-fusion" in err and "rollout" in err, err
    print("  rollout: mean, max, min fusion and discard 0.5, 0.9 agree with numpy within 1e-5")


def test_views_draw_on_the_picture(env):
    folder = os.path.join(env.data, "vision", "vit_bf16_interpolated")
    picture = os.path.join(folder, "picture.png")
    sizes = {}
    for view in ("overlay", "model", "mean", "rollout", "received", "received-rollout", "head"):
        png = env.path(f"view_{view}.png")
        env.run("model", "--model", folder, "--image", picture, "--view", view, "--png", png,
                "--quiet")
        sizes[view] = png_size(png)
        assert os.path.getsize(png) > 2000, view
    # one panel at 448 px on the long side (the picture is 48 x 40: 448 x 373)
    assert sizes["overlay"][1] >= 373, sizes
    assert sizes["model"][0] > sizes["overlay"][0], sizes
    clear, full = env.path("alpha0.png"), env.path("alpha1.png")
    env.run("model", "--model", folder, "--image", picture, "--view", "overlay", "--alpha", "0",
            "--png", clear, "--quiet")
    env.run("model", "--model", folder, "--image", picture, "--view", "overlay", "--alpha", "1",
            "--png", full, "--quiet")
    assert open(clear, "rb").read() != open(full, "rb").read()
    svg = env.path("overlay.svg")
    env.run("model", "--model", folder, "--image", picture, "--view", "overlay", "--svg", svg,
            "--quiet")
    assert "<image" in open(svg, encoding="utf-8").read()


def test_the_page_shows_each_head_over_the_picture_in_a_real_browser(env):
    from browser import start_browser
    folder = os.path.join(env.data, "vision", "deit_f16_teacher")
    page = env.path("vision.html")
    env.run("model", "--model", folder, "--image", os.path.join(folder, "picture.png"), "--html",
            page, "--npy", env.path("page_npy"), "--quiet")
    text = open(page, encoding="utf-8").read()
    start = text.index('id="attnviz-data">') + len('id="attnviz-data">')
    data = json.loads(text[start:text.index("</script>", start)].replace("<\\/", "</"))
    cls = np.load(os.path.join(env.path("page_npy"), "cls_map.npy"))
    L, H, R, C = cls.shape
    assert data["grid"] == [R, C] and data["layers"] == L and data["heads"] == H
    assert np.abs(np.array(data["maps"]) - cls.reshape(L * H, -1)).max() <= 1e-5
    assert [a["label"].split(" ")[0] for a in data["aggregates"]] == ["mean", "rollout", "attention"]
    browser = start_browser()
    try:
        url = "file://" + os.path.abspath(page)
        browser.open(url)
        assert browser.evaluate("document.documentElement.getAttribute('data-ready')") == "1"
        assert browser.evaluate("document.querySelectorAll('#thumbs canvas').length") == L * H + 3
        browser.evaluate(f"window.attnviz.show({L * H + 1})")
        assert browser.evaluate("document.getElementById('name').textContent").startswith("rollout")
        browser.evaluate("window.attnviz.show(5)")
        assert browser.evaluate("document.getElementById('name').textContent") == "layer 1 · head 1 · CLS"
        # the large view holds the picture under the colours: not one flat colour
        spread = browser.evaluate("(function(){var c=document.getElementById('view');"
                                  "var d=c.getContext('2d').getImageData(0,0,c.width,c.height).data;"
                                  "var lo=255,hi=0;for(var i=0;i<d.length;i+=4){lo=Math.min(lo,d[i]);"
                                  "hi=Math.max(hi,d[i]);}return hi-lo;})()")
        assert spread > 40, spread
        assert browser.requests() == [url], browser.requests()
        assert not browser.console_errors(), browser.console_errors()
    finally:
        browser.close()


def test_a_list_of_pictures_runs_once_each_and_resumes(env):
    folder = os.path.join(env.data, "vision", "vit_f32_classifier")
    pics = env.path("pics")
    os.makedirs(pics)
    for k, name in enumerate(("a.png", "b.png", "c.png")):
        shutil.copy(os.path.join(env.data, "vision", sorted(os.listdir(os.path.join(env.data, "vision")))[k],
                                 "picture.png"), os.path.join(pics, name))
    listing = os.path.join(pics, "list.txt")
    open(listing, "w").write("a.png\n# skipped\n\nnot-there.png\nb.png\nc.png\n")
    out = env.path("batch")
    stdout, err = env.run("model", "--model", folder, "--images", listing, "--out-dir", out,
                          "--formats", "png,npy", "--view", "overlay", "--quiet")
    assert "ran 3 of 4 picture(s), 1 skipped" in stdout, stdout
    assert "list.txt:4" in err and "not-there.png" in err, err
    index = json.load(open(os.path.join(out, "index.json")))
    assert [p["line"] for p in index["pictures"]] == [1, 4, 5, 6]
    assert "error" in index["pictures"][1]
    # each picture's files are what `model --image` writes for it alone
    single = env.path("single")
    env.run("model", "--model", folder, "--image", os.path.join(pics, "b.png"), "--npy", single,
            "--quiet")
    for name in ("attention.npy", "cls_map.npy", "pixels.npy"):
        assert open(os.path.join(out, "0005-b", name), "rb").read() == \
            open(os.path.join(single, name), "rb").read(), name
    # a resumed run redoes nothing and leaves the same bytes
    before = {f: open(os.path.join(out, f), "rb").read() for f in ("0001-a.png", "index.json")}
    stdout, _ = env.run("model", "--model", folder, "--images", listing, "--out-dir", out,
                        "--formats", "png,npy", "--view", "overlay", "--quiet", "--resume")
    assert "ran 0 of 4 picture(s), 3 already done (--resume)" in stdout, stdout
    for f, b in before.items():
        assert open(os.path.join(out, f), "rb").read() == b, f
    _, err = env.run("model", "--model", folder, "--images", listing, "--out-dir", out,
                     "--formats", "png", "--quiet", "--resume", expect=2)
    assert "other settings" in err, err
    _, err = env.run("model", "--model", folder, "--images", listing, "--out-dir", out,
                     "--png", env.path("x.png"), expect=2)
    assert "--png does not go with --images" in err, err
    _, err = env.run("model", "--model", folder, "--image", os.path.join(pics, "a.png"),
                     "--out-dir", out, expect=2)
    assert "--out-dir needs --images" in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
