#!/usr/bin/env python3
"""--html for a whole model (attn-viz model and draw): one offline page with every layer's every
head. As a file: nothing outside it, the weights equal attention.npy of the same run (float32,
exactly; past 4 M weights to 1/131070), the shared colour range as the PNG model view rounds it. In headless
Chromium: the grid has a thumbnail per head whose pixels are the viridis colour of its map,
clicking a thumbnail opens that head (selectors follow), hovering a cell shows its tokens and
weight and the row's largest weights, the layer/head selectors and the mean, labels thinned at
60 and 200 tokens with the map still drawn, no script error and no request."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import start_browser  # noqa: E402
from formats import colormap, nice_at_or_above, page_aggregate, page_maps, shown_tokens  # noqa: E402
from harness import import_numpy, main  # noqa: E402

np = import_numpy()

IDS = [5, 9, 3, 7, 5, 9, 3, 7, 2, 11, 4, 6]


def hf(env, name):
    return os.path.join(env.data, "hf", name)


def page_data(path):
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="attnviz-data">(.*?)</script>', html, re.S)
    assert m, "no data block"
    return html, json.loads(m.group(1))


def make(env, name, folder, ids, *extra):
    page, npy = env.path(name + ".html"), env.path(name + "-npy")
    env.run("model", "--model", folder, "--ids", ",".join(map(str, ids)), "--html", page, "--npy",
            npy, "-q", *extra)
    maps = np.load(os.path.join(npy, "attention.npy")).astype(np.float64)
    tokens = json.load(open(os.path.join(npy, "tokens.json")))
    return page, maps, tokens


def test_page_holds_the_models_maps_offline(env):
    for name, causal in [("gpt2_f32", True), ("llama_bf16_gqa", True), ("bert_f32", False)]:
        page, maps, tokens = make(env, name, hf(env, name), IDS[:10] if name == "bert_f32" else IDS)
        html, data = page_data(page)
        assert "default-src 'none'" in html
        for needle in ("http:", "https:", " src=", "href=", "@import", "fetch(",
                       "XMLHttpRequest"):
            assert needle not in html, needle
        assert re.findall(r"url\((?!data:font/ttf;base64,)", html) == [], "a url( outside the page"
        L, H, n = maps.shape[:3]
        assert (data["layers"], data["heads"], data["n"], data["causal"]) == (L, H, n, causal)
        assert data["tokens"] == shown_tokens(tokens)  # tokens.json keeps them raw
        assert data["encoding"] == "f32"
        assert np.array_equal(page_maps(html, data), maps), name  # float32, exact
        rows = maps[:, :, 1:, :] if causal else maps
        assert data["vmax"] == nice_at_or_above(rows.max())
        assert np.allclose(data["map_vmax"], rows.reshape(L * H, -1).max(-1))
        assert len(data["colormap"]) == 256 and data["captions"] == []
    # same input, same bytes; --name-heads captions every head; the first map open is --layer/--head
    again, _, _ = make(env, "again", hf(env, "gpt2_f32"), IDS)
    first = env.path("gpt2_f32.html")
    assert open(again, "rb").read() == open(first, "rb").read()
    named, _, _ = make(env, "named", hf(env, "gpt2_f32"), IDS, "--name-heads", "--layer", "1",
                       "--head", "2")
    _, data = page_data(named)
    assert len(data["captions"]) == 8 and any(data["captions"]), data["captions"]
    assert all(re.fullmatch(r"((previous|first|induction|self) \d\.\d\d)?", c) for c in data["captions"])
    assert data["start"] == {"layer": 1, "head": 2, "scale": "shared"}


def test_draw_writes_the_page_too(env):
    page, maps, tokens = make(env, "m", hf(env, "gpt2_f32"), IDS)
    drawn = env.path("drawn.html")
    env.run("draw", "--weights", os.path.join(env.path("m-npy"), "attention.npy"), "--tokens",
            os.path.join(env.path("m-npy"), "tokens.json"), "--html", drawn)
    ha, a = page_data(page)
    hb, b = page_data(drawn)
    assert np.array_equal(page_maps(ha, a), page_maps(hb, b))
    assert a["tokens"] == b["tokens"] and b["causal"] is True


def test_a_measure_page_holds_the_weights_beside_the_measure(env):
    """--html with --measure: two stacks behind a Measure selector, the weights (attention.npy of
    the same run, exactly) and the measure's maps (each head showing its layer's alti.npy map,
    and the rollout chained as alti_rollout.npy), opening on the measure; in a browser, the
    selector switches between them."""
    page, weights, _ = make(env, "measured", hf(env, "gpt2_f32"), IDS, "--measure", "alti")
    html, data = page_data(page)
    assert [s["name"] for s in data["stacks"]] == ["weights", "alti"]
    assert data["start"]["stack"] == 1
    assert re.search(r"<label>Measure <select id=\"stack\">", html)
    assert np.array_equal(page_maps(html, data, data["stacks"][0]), weights)
    alti = np.load(env.path("measured-npy/alti.npy"))
    shown = page_maps(html, data, data["stacks"][1])
    L, H = weights.shape[:2]
    for layer in range(L):
        for head in range(H):
            assert np.abs(shown[layer, head] - alti[layer] / alti[layer].sum(-1, keepdims=True)).max() <= 1e-6
    labels = [a["label"] for a in data["stacks"][1]["aggregates"]]
    rollout = page_aggregate(html, data, labels.index("rollout through every layer"), data["stacks"][1])
    assert np.abs(rollout - np.load(env.path("measured-npy/alti_rollout.npy"))).max() <= 1e-5
    plain, _, _ = make(env, "plain", hf(env, "gpt2_f32"), IDS)
    assert "stacks" not in page_data(plain)[1]
    browser = start_browser()
    try:
        browser.open("file://" + os.path.abspath(page))
        names = js(browser, "Array.from(document.getElementById('stack').options).map(function (o) { return o.text; })")
        assert names == ["weights", "alti"], names
        assert js(browser, "window.attnviz.state()")["stack"] == 1
        browser.evaluate("window.attnviz.stack(0)")
        assert js(browser, "window.attnviz.state()")["stack"] == 0
        assert browser.console_errors() == []
    finally:
        browser.close()


def test_refusals(env):
    _, err = env.run("model", "--model", hf(env, "gpt2_f32"), "--ids", "1,2,3", "--html",
                     env.path("missing/dir/p.html"), expect=2)
    assert "--html" in err
    # a page past 160,000,000 weights is refused before any work, naming the limit (the file is
    # sparse: its header is all that is read)
    big = env.path("big.npy")
    np.lib.format.open_memmap(big, mode="w+", dtype=np.float16, shape=(10, 16, 1024, 1024)).flush()
    _, err = env.run("draw", "--weights", big, "--html", env.path("big.html"), expect=2)
    assert "160000000" in err and "--png" in err and err.count("\n") == 1, err
    assert not os.path.exists(env.path("big.html"))


def js(browser, expression):
    return json.loads(browser.evaluate(f"JSON.stringify({expression})"))


def pixel(browser, canvas, x, y):
    """The canvas pixel under page point (x, y), in device pixels."""
    return js(browser, f"""(function(){{var c=document.getElementById('{canvas}'),
        b=c.getBoundingClientRect(), r=c.width/b.width;
        return Array.from(c.getContext('2d').getImageData(Math.floor(({x}-b.left)*r),
        Math.floor(({y}-b.top)*r),1,1).data).slice(0,3);}})()""")


def test_grid_click_and_hover_in_a_real_browser(env):
    browser = start_browser()
    try:
        page, maps, tokens = make(env, "b", hf(env, "llama_bf16_gqa"), IDS)
        tokens = shown_tokens(tokens)  # the page shows ▁ as ·
        _, data = page_data(page)
        L, H, n = maps.shape[:3]
        cmap = colormap(env, "viridis")
        url = "file://" + os.path.abspath(page)
        browser.open(url)
        # each thumbnail's centre pixel: viridis of the mean of the cells it covers
        t = max(24, min(96, 640 // max(L, H)))
        y = x = t // 2
        for l in range(L):
            for h in range(H):
                c = js(browser, f"window.attnviz.thumbCenter({l}, {h})")
                i0, i1 = y * n // t, max(y * n // t + 1, (y + 1) * n // t)
                j0, j1 = x * n // t, max(x * n // t + 1, (x + 1) * n // t)
                cells = [maps[l, h, i, j] for i in range(i0, i1) for j in range(j0, j1) if j <= i]
                want = cmap[min(255, int(np.mean(cells) / data["vmax"] * 256))]
                got = pixel(browser, "grid", c["x"], c["y"])
                assert max(abs(g - w) for g, w in zip(got, want)) <= 1, (l, h, got, want)
        # click L1 H3: the selectors and the title follow
        c = js(browser, "window.attnviz.thumbCenter(1, 3)")
        browser.click(c["x"], c["y"])
        assert js(browser, "window.attnviz.state()")["layer"] == 1
        assert js(browser, "window.attnviz.state()")["head"] == 3
        assert browser.evaluate("document.getElementById('layer').value") == "1"
        assert browser.evaluate("document.getElementById('head').value") == "3"
        assert browser.evaluate("document.getElementById('maptitle').textContent") == "layer 1 · head 3"
        for i, j in [(11, 0), (7, 3), (4, 4), (2, 9)]:
            c = js(browser, f"window.attnviz.cellCenter({i}, {j})")
            browser.move_mouse(c["x"], c["y"])
            text = browser.evaluate("document.getElementById('hover').textContent")
            row = browser.evaluate("document.getElementById('row').textContent")
            assert f"L1 H3 · query \u201c{tokens[i]}\u201d ({i}) \u2192 key \u201c{tokens[j]}\u201d ({j})" in text, text
            if j > i:
                assert "hidden by the causal mask" in text
                continue
            assert f"weight a = {maps[1, 3, i, j]:.4f}" in text, (text, maps[1, 3, i, j])
            top = np.argsort(-maps[1, 3, i, :i + 1], kind="stable")[:5]
            assert f"{maps[1, 3, i, top[0]] * 100:.2f}%  \u201c{tokens[top[0]]}\u201d ({top[0]})" in row, row
            # the map's cell has viridis of its weight over the shared range
            got = pixel(browser, "map", c["x"] + 3, c["y"] + 3)
            want = cmap[min(255, int(maps[1, 3, i, j] / data["vmax"] * 256))]
            assert max(abs(g - w) for g, w in zip(got, want)) <= 1, (i, j, got, want)
        # the mean of layer 0's heads through the selector
        browser.evaluate("(function(){var s=document.getElementById('layer');s.value='0';"
                         "s.dispatchEvent(new Event('change'));"
                         "s=document.getElementById('head');s.value='4';"
                         "s.dispatchEvent(new Event('change'));})()")
        c = js(browser, "window.attnviz.cellCenter(9, 2)")
        browser.move_mouse(c["x"], c["y"] + 1)
        text = browser.evaluate("document.getElementById('hover').textContent")
        assert text.startswith("L0 mean") and f"weight a = {maps[0, :, 9, 2].mean():.4f}" in text, text
        assert browser.console_errors() == []
        assert browser.requests() == [url], browser.requests()
    finally:
        browser.close()


def test_a_page_of_a_million_weights_a_map_in_a_real_browser(env):
    """Past 4 M weights the page holds each weight as 16-bit fixed point (render/page_blobs.h):
    2 layers x 3 heads at 1,024 tokens. The blobs against attention.npy (|error| <= 1/131070),
    then in Chromium: thumbnails and cells in viridis of the weights, a click opens a head,
    hovering shows the weight to its 4 decimals, the head view's lines, no error."""
    from test_views import write_gpt2
    folder, n = env.path("gpt2-1024"), 1024
    write_gpt2(folder, 2, 3, 24, n, 64, 5)
    ids = [(37 * i + 11) % 64 for i in range(n)]
    page, maps, tokens = make(env, "big-page", folder, ids)
    html, data = page_data(page)
    assert data["encoding"] == "u16" and os.path.getsize(page) < 2 * maps.size, os.path.getsize(page)
    got = page_maps(html, data)
    assert np.abs(got - maps).max() <= 1 / 131070 + 1e-9, np.abs(got - maps).max()
    tokens = shown_tokens(tokens)
    cmap, L, H = colormap(env, "viridis"), 2, 3
    browser = start_browser()
    try:
        url = "file://" + os.path.abspath(page)
        browser.open(url)
        t = data["thumb_size"]
        for l in range(L):
            for h in range(H):
                c = js(browser, f"window.attnviz.thumbCenter({l}, {h})")
                y = x = t // 2
                i0, i1 = y * n // t, max(y * n // t + 1, (y + 1) * n // t)
                j0, j1 = x * n // t, max(x * n // t + 1, (x + 1) * n // t)
                block = maps[l, h, i0:i1, j0:j1]
                mean = block[np.tril(np.ones((n, n), bool))[i0:i1, j0:j1]].mean()
                want = cmap[min(255, int(mean / data["vmax"] * 256))]
                got_px = pixel(browser, "grid", c["x"], c["y"])
                assert max(abs(g - w) for g, w in zip(got_px, want)) <= 1, (l, h, got_px, want)
        c = js(browser, "window.attnviz.thumbCenter(1, 2)")
        browser.click(c["x"], c["y"])
        assert js(browser, "window.attnviz.state()")["layer"] == 1
        assert browser.evaluate("document.getElementById('maptitle').textContent") == "layer 1 · head 2"
        for i, j in [(1023, 0), (700, 699), (512, 3), (5, 5), (900, 1000)]:
            browser.evaluate(f"window.attnviz.reveal({i}, {j})")
            c = js(browser, f"window.attnviz.cellCenter({i}, {j})")
            px = pixel(browser, "map", c["x"], c["y"])  # before the hover frames the cell
            browser.move_mouse(c["x"], c["y"])
            text = browser.evaluate("document.getElementById('hover').textContent")
            assert f"query \u201c{tokens[i]}\u201d ({i}) \u2192 key \u201c{tokens[j]}\u201d ({j})" in text, text
            if j > i:
                assert "hidden by the causal mask" in text and px == [232, 232, 232], (text, px)
                continue
            shown = float(re.search(r"weight a = ([0-9.]+)", text).group(1))
            assert abs(shown - maps[1, 2, i, j]) <= 5e-5 + 1 / 131070, (text, maps[1, 2, i, j])
            k = min(255, int(maps[1, 2, i, j] / data["vmax"] * 256))
            near = min(max(abs(p - w) for p, w in zip(px, cmap[q])) for q in (k - 1, k, k + 1) if 0 <= q < 256)
            assert near <= 1, (i, j, px, k)
        assert browser.console_errors() == []
        assert browser.requests() == [url], browser.requests()
    finally:
        browser.close()


def test_colour_scale_flags_reach_the_page(env):
    """--scale log and --vmax: the page maps each cell as the PNG does (log over [the decade of
    the smallest weight, --vmax]); power=0.5 likewise."""
    import math
    browser = start_browser()
    try:
        cmap = colormap(env, "viridis")
        for extra in (["--scale", "log", "--vmax", "0.5"], ["--scale", "power=0.5"]):
            page, maps, tokens = make(env, "scale-" + extra[1], hf(env, "gpt2_f32"), IDS, *extra)
            _, data = page_data(page)
            L, H, n = maps.shape[:3]
            url = "file://" + os.path.abspath(page)
            browser.open(url)
            select(browser, "layer", "1")
            select(browser, "head", "0")
            if extra[1] == "log":
                hi = 0.5  # the low end: the decade of the smallest weight above 0, at most four
                #            decades under the decade of --vmax (0.1)
                lo = max(10 ** math.floor(math.log10(maps[maps > 0].min()) + 1e-12), 0.1 * 1e-4)
                assert abs(data["scale"]["low"] - lo) < 1e-12 * lo, (data["scale"], lo)
                position = lambda v: 0 if v <= lo else min(1, math.log(v / lo) / math.log(hi / lo))  # noqa: E731
            else:
                hi = data["vmax"]
                position = lambda v: min(1, v / hi) ** 0.5  # noqa: E731
            for i, j in [(11, 0), (7, 3), (4, 4), (9, 8)]:
                c = js(browser, f"window.attnviz.cellCenter({i}, {j})")
                got = pixel(browser, "map", c["x"] + 3, c["y"] + 3)
                want = cmap[min(255, int(position(maps[1, 0, i, j]) * 256))]
                assert max(abs(g - w) for g, w in zip(got, want)) <= 1, (extra, i, j, got, want)
            assert browser.console_errors() == []
    finally:
        browser.close()


def test_two_line_captions_in_a_real_browser(env):
    """The bundled model's induction head is captioned "induction …" and "first …": the page
    draws the second line under the first (ink in the band 12 px lower), and a one-line caption
    leaves that band blank."""
    verse = "And God said, Let there be light: and there was light."
    page = env.path("kjv.html")
    env.run("model", "--model", os.path.join(env.samples, "kjv-gpt"), "--text", verse + " " + verse,
            "--name-heads", "--html", page, "-q")
    _, data = page_data(page)
    assert data["captions"][4].startswith("induction") and "\nfirst" in data["captions"][4]
    assert "\n" not in data["captions"][1]
    browser = start_browser()
    try:
        browser.open("file://" + os.path.abspath(page))
        L, H = data["layers"], data["heads"]
        t = max(24, min(96, 640 // max(L, H)))

        def ink(l, h, line):
            c = js(browser, f"window.attnviz.thumbCenter({l}, {h})")
            x0, y = c["x"] - t // 2, c["y"] - t // 2 + t + 8 + 12 * line
            # the grid's background is transparent ([0, 0, 0] here); the captions are #555
            return sum(1 for dx in range(2, t - 2, 2) for dy in (-3, -1, 1, 3)
                       if pixel(browser, "grid", x0 + dx, y + dy) != [0, 0, 0])
        assert ink(1, 0, 0) > 0 and ink(1, 0, 1) > 0, (ink(1, 0, 0), ink(1, 0, 1))
        assert ink(0, 1, 0) > 0 and ink(0, 1, 1) == 0, (ink(0, 1, 0), ink(0, 1, 1))
        assert browser.console_errors() == []
    finally:
        browser.close()


def select(browser, element, value):
    browser.evaluate(f"(function(){{var s=document.getElementById('{element}');"
                     f"s.value='{value}';s.dispatchEvent(new Event('change'));}})()")


def test_aggregates_and_head_view_in_a_real_browser(env):
    folder = hf(env, "gpt2_f32")
    page, maps, tokens = make(env, "agg", folder, IDS)
    tokens = shown_tokens(tokens)  # the page shows Ġ as ·
    html, data = page_data(page)
    L, H, n = maps.shape[:3]
    want = {}
    for view in ("mean", "max", "rollout", "flow"):
        out = env.path("agg-" + view)
        env.run("model", "--model", folder, "--ids", ",".join(map(str, IDS)), "--view", view,
                "--npy", out, "-q")
        want[view] = np.load(os.path.join(out, "view.npy")).astype(np.float64)
    assert [a["label"] for a in data["aggregates"]] == [
        "mean of every layer and head", "max of every layer and head",
        "rollout through every layer", "flow through every layer"]
    for k, view in enumerate(("mean", "max", "rollout", "flow")):
        got = page_aggregate(html, data, k)
        assert np.all(np.abs(got - want[view]) <= 1e-7 * np.abs(want[view]) + 1e-12), view
    browser = start_browser()
    try:
        url = "file://" + os.path.abspath(page)
        browser.open(url)
        # the rollout, chosen in the layer selector, drawn and hovered like a map
        select(browser, "layer", str(L + 2))
        assert browser.evaluate("document.getElementById('head').disabled") is True
        assert browser.evaluate("document.getElementById('maptitle').textContent") == \
            "rollout through every layer"
        for i, j in [(11, 0), (6, 6), (9, 4)]:
            c = js(browser, f"window.attnviz.cellCenter({i}, {j})")
            browser.move_mouse(c["x"], c["y"])
            text = browser.evaluate("document.getElementById('hover').textContent")
            assert text.startswith("rollout through every layer · query") and \
                f"weight a = {want['rollout'][i, j]:.4f}" in text, text
        # the head view: one head's lines are its weights >= 0.01; "every head" draws them all
        select(browser, "draw", "lines")
        select(browser, "layer", "1")
        select(browser, "head", "2")
        expect = [[2, i, j] for i in range(n) for j in range(n) if maps[1, 2, i, j] >= 0.01]
        assert js(browser, "window.attnviz.lines()") == expect
        assert browser.evaluate("getComputedStyle(document.getElementById('map')).display") == "none"
        assert browser.evaluate("getComputedStyle(document.getElementById('lines')).display") == "block"
        select(browser, "head", str(H))
        expect = [[h, i, j] for h in range(H) for i in range(n) for j in range(n)
                  if maps[1, h, i, j] >= 0.01]
        assert js(browser, "window.attnviz.lines()") == expect
        assert browser.evaluate("document.getElementById('maptitle').textContent") == "layer 1 · every head"
        # hovering a query keeps its lines only, and lists its row
        c = js(browser, "window.attnviz.queryCenter(7)")
        browser.move_mouse(c["x"], c["y"])
        assert all(i == 7 for _, i, _ in js(browser, "window.attnviz.lines()"))
        assert "query \u201c" + tokens[7] + "\u201d (7): its lines" in \
            browser.evaluate("document.getElementById('hover').textContent")
        assert browser.console_errors() == []
        assert browser.requests() == [url], browser.requests()
    finally:
        browser.close()


def test_long_texts_stay_legible_in_a_real_browser(env):
    browser = start_browser()
    try:
        rng = np.random.default_rng(7)
        opened = []
        for n in (60, 200):
            # causal rows of random weights, drawn from a file (the test models have 64 positions)
            raw = np.tril(rng.random((2, 3, n, n)))
            maps = (raw / raw.sum(-1, keepdims=True)).astype(np.float32)
            weights, token_file = env.path(f"long{n}.npy"), env.path(f"long{n}.json")
            np.save(weights, maps)
            tokens = [f"word{k}" for k in range(n)]
            json.dump(tokens, open(token_file, "w"))
            page = env.path(f"long{n}.html")
            env.run("draw", "--weights", weights, "--tokens", token_file, "--html", page)
            url = "file://" + os.path.abspath(page)
            opened.append(url)
            browser.open(url)
            cell = max(4, min(28, 720 // n))
            step = js(browser, "window.attnviz.labelStep()")
            assert step == max(1, -(-13 // cell)) and step * cell >= 13, (n, step, cell)
            i, j = n - 1, n // 3
            browser.evaluate(f"window.attnviz.reveal({i}, {j})")
            c = js(browser, f"window.attnviz.cellCenter({i}, {j})")
            browser.move_mouse(c["x"], c["y"])
            text = browser.evaluate("document.getElementById('hover').textContent")
            assert f"weight a = {maps[0, 0, i, j]:.4f}" in text, (n, text)
            assert browser.console_errors() == []
            assert browser.requests() == opened, browser.requests()
    finally:
        browser.close()


if __name__ == "__main__":
    sys.exit(main(globals()))
