#!/usr/bin/env python3
"""--html: one self-contained page. Checked as a file (nothing fetched, the numbers equal the
JSON's) and in a real browser: headless Chromium loads it from disk, the mouse hovers cells, and
the page must show that query/key pair's score and weight and the query's explanation, follow the
head and variant selectors, throw no script error, and start no request but the page itself.

Without Chromium the browser checks are skipped (said on stdout), unless
ATTNVIZ_REQUIRE_BROWSER=1 (CI sets it after installing Debian's chromium)."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import start_browser  # noqa: E402
from harness import main  # noqa: E402

SENTENCE = "the cat sat on the floor because it was tired"
RUN = ("--text", SENTENCE, "--heads", "2", "--project", "--mask", "causal", "--seed", "4")


def page_data(path):
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="attnviz-data">(.*?)</script>', html, re.S)
    assert m, "no data block"
    return html, json.loads(m.group(1))


def make(env, name, *argv, command="run"):
    page, doc = env.path(name + ".html"), env.path(name + ".json")
    env.run(command, *argv, "--html", page, "--json", doc)
    return page, json.load(open(doc, encoding="utf-8"))


def close_enough(a, b):
    return abs(a - b) <= 1e-7 * max(1.0, abs(b))


def test_page_is_one_offline_file_with_the_runs_numbers(env):
    page, doc = make(env, "run", *RUN)
    html, data = page_data(page)
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    for needle in ("http:", "https:", " src=", "href=", "@import", "fetch(",
                   "XMLHttpRequest"):
        assert needle not in html, f"the page refers to something outside it: {needle}"
    # the one url( is the embedded font's data: URL
    assert re.findall(r"url\((?!data:font/ttf;base64,)", html) == [], "a url( outside the page"
    panel = data["panels"][0]
    assert panel["query_tokens"] == doc["query_tokens"]
    assert [v["label"] for v in panel["views"]] == ["head 0", "head 1", "mean of 2 heads"]
    for view, head in zip(panel["views"], doc["heads"]):
        for name in ("weights", "scores"):
            for got_row, want_row in zip(view[name], head[name]):
                assert all(close_enough(g, w) for g, w in zip(got_row, want_row)), name
        # causal: key j > i masked, exactly 0, and listed
        assert sorted(map(tuple, view["masked"])) == [(i, j) for i in range(10)
                                                      for j in range(10) if j > i]
        assert all(view["weights"][i][j] == 0 for i, j in view["masked"])
    for got_row, want_row in zip(panel["views"][2]["weights"], doc["mean_weights"]):
        assert all(close_enough(g, w) for g, w in zip(got_row, want_row))
    assert len(panel["views"][0]["explain"]) == 10
    assert panel["views"][0]["explain"][1].startswith('query 1 "cat" · head 0 of heads 0 to 1')
    assert len(data["colormaps"]["weights"]) == 256
    # same input, same bytes
    again = env.path("again.html")
    env.run("run", *RUN, "--html", again)
    assert open(again, "rb").read() == open(page, "rb").read()


def test_markup_in_tokens_stays_text(env):
    page, doc = make(env, "markup", "--tokens", "a </script> <b>x</b> & \"q\"")
    html, data = page_data(page)
    assert data["panels"][0]["query_tokens"] == ["a", "</script>", "<b>x</b>", "&", '"q"']
    assert html.count("</script>") == 2  # the data block's and the script's own


def hover(browser, i, j):
    pos = browser.evaluate(f"JSON.stringify(window.attnviz.cellCenter({i}, {j}))")
    pos = json.loads(pos)
    browser.move_mouse(pos["x"], pos["y"])
    return (browser.evaluate("document.getElementById('hover').textContent"),
            browser.evaluate("document.getElementById('explain').textContent"))


def shown_numbers(text):
    score = re.search(r"score e = *(-?\d+\.\d{4})", text)
    weight = re.search(r"weight a = *(-?\d+\.\d{4})", text)
    return (float(score.group(1)) if score else None), float(weight.group(1))


def select(browser, element, value):
    browser.evaluate(f"(function(){{var s=document.getElementById('{element}');"
                     f"s.value='{value}';s.dispatchEvent(new Event('change'));}})()")


def test_hover_in_a_real_browser(env):
    browser = start_browser()
    try:
        page, doc = make(env, "run", *RUN)
        url = "file://" + os.path.abspath(page)
        browser.open(url)
        assert browser.evaluate("document.title").startswith("self-attention")
        for i, j in [(1, 0), (9, 3), (5, 5), (0, 0)]:
            text, explain = hover(browser, i, j)
            q, k = doc["query_tokens"][i], doc["key_tokens"][j]
            assert f"query \u201c{q}\u201d ({i}) \u2192 key \u201c{k}\u201d ({j})" in text, text
            score, weight = shown_numbers(text)
            assert score == round(doc["heads"][0]["scores"][i][j], 4), (text, i, j)
            assert weight == round(doc["heads"][0]["weights"][i][j], 4), (text, i, j)
            assert explain.startswith(f'query {i} "{q}" · head 0 of heads 0 to 1'), explain
            assert "top keys" in explain and "|c_" in explain, explain
        # a masked cell: weight 0, said so
        text, _ = hover(browser, 2, 7)
        assert "(masked)" in text and shown_numbers(text)[1] == 0.0, text
        # the head selector: head 2, then the mean
        select(browser, "head", "1")
        text, explain = hover(browser, 9, 1)
        assert shown_numbers(text)[1] == round(doc["heads"][1]["weights"][9][1], 4), text
        assert "head 1 of heads 0 to 1" in explain
        select(browser, "head", "2")
        text, explain = hover(browser, 9, 2)
        assert shown_numbers(text)[1] == round(doc["mean_weights"][9][2], 4), text
        assert "mean of 2 heads" in explain
        assert browser.evaluate("document.getElementById('variant').parentNode.hidden") is True
        # the canvas drew the map: the cell under (0, 0) has head 1's colour for its weight
        assert browser.console_errors() == []
        assert browser.requests() == [url], browser.requests()
    finally:
        browser.close()


def test_variant_selector_in_a_real_browser(env):
    browser = start_browser()
    try:
        page, doc = make(env, "cmp", "--text", SENTENCE, "--scores", "dot,cosine,general",
                         command="compare")
        url = "file://" + os.path.abspath(page)
        browser.open(url)
        labels = browser.evaluate(
            "Array.from(document.getElementById('variant').options).map(o => o.text)")
        assert labels == [v["label"] for v in doc["variants"]], labels
        assert browser.evaluate("document.getElementById('head').parentNode.hidden") is True
        # the metrics compare prints, under the map
        notes = browser.evaluate("document.getElementById('notes').textContent")
        assert "JS (bits)" in notes and "Spearman" in notes, notes
        for pair in doc["pairs"]:
            assert f"{pair['mean_js_divergence_bits']:.4f}" in notes, (pair, notes)
        for index in (0, 2):
            select(browser, "variant", str(index))
            text, explain = hover(browser, 3, 2)
            want = doc["variants"][index]["heads"][0]
            assert shown_numbers(text) == (round(want["scores"][3][2], 4),
                                           round(want["weights"][3][2], 4)), text
            stages = browser.evaluate("document.getElementById('stages').textContent")
            assert doc["variants"][index]["variant"]["score"] in stages
        assert browser.console_errors() == []
        assert browser.requests() == [url], browser.requests()
    finally:
        browser.close()


def test_long_sentences_stay_legible_in_a_real_browser(env):
    """60 and 200 tokens: the labels are thinned so they are at least 13 px apart (no overlap),
    the map scrolls, and hovering a far cell still shows its numbers."""
    words = "the cat sat on the floor because it was tired and the dog was in the garden".split()
    browser = start_browser()
    try:
        opened = []
        for n in (60, 200):
            tokens = " ".join(words[k % len(words)] for k in range(n))
            page, doc = make(env, f"long{n}", "--tokens", tokens)
            url = "file://" + os.path.abspath(page)
            opened.append(url)
            browser.open(url)
            cell = max(4, min(40, 720 // n))
            step = browser.evaluate("window.attnviz.labelStep()")
            assert step == -(-13 // cell) and step * cell >= 13, (n, step, cell)
            i, j = n - 2, n // 2
            browser.evaluate(f"window.attnviz.reveal({i}, {j})")
            text, _ = hover(browser, i, j)
            assert shown_numbers(text)[1] == round(doc["heads"][0]["weights"][i][j], 4), (n, text)
        assert browser.console_errors() == []
        assert browser.requests() == opened, browser.requests()
    finally:
        browser.close()


def unifont_bitmap(env, cp):
    """Rows of 0/1 of the bundled Unifont glyph for code point cp (read from the .hex file)."""
    path = os.path.join(os.path.dirname(env.samples), "assets", "unifont", "unifont-15.0.01-bmp.hex")
    key = f"{cp:04X}:"
    for line in open(path):
        if line.startswith(key):
            bits = line.strip().split(":")[1]
            width = len(bits) // 4  # 32 hex digits: 8 px wide; 64: 16 px
            return [[(int(bits[r * width // 4:(r + 1) * width // 4], 16) >> (width - 1 - x)) & 1
                     for x in range(width)] for r in range(16)]
    raise KeyError(hex(cp))


def embedded_font(html):
    import base64
    m = re.search(r'<style id="attnviz-font">@font-face\{font-family:AttnVizUnifont;'
                  r'src:url\(data:font/ttf;base64,([A-Za-z0-9+/=]+)\)', html)
    assert m, "no embedded font"
    return base64.b64decode(m.group(1))


def test_labels_in_any_script_use_the_embedded_font(env):
    """A page with CJK, Cyrillic and Greek tokens embeds the bundled font's glyphs for every
    character past ASCII it holds: fontTools reads the font and each glyph's outline is its
    Unifont bitmap; Chromium draws a label with the page's canvas font exactly as that bitmap,
    whatever fonts this machine has. A page of ASCII tokens holds only its own few symbols."""
    page, _ = make(env, "scripts", "--tokens", "机器 学习 Жизнь λόγος the cat")
    html = open(page, encoding="utf-8").read()
    ttf = embedded_font(html)
    wanted = {ord(c) for c in html if ord(c) > 0x7e}
    try:
        from fontTools.ttLib import TTFont
    except ImportError:
        if os.environ.get("ATTNVIZ_REQUIRE_BROWSER"):
            raise
        print("  fontTools is not installed (Debian: python3-fonttools); the font's tables "
              "were not read")
    else:
        import io
        font = TTFont(io.BytesIO(ttf), checkChecksums=2)  # a wrong table checksum raises
        for tag in font.keys():  # every table parses
            font[tag]
        cmap = font.getBestCmap()
        assert set(cmap) == wanted, (sorted(set(cmap) ^ wanted))[:10]
        assert font["head"].unitsPerEm == 1024 and font["hhea"].ascent == 896
        glyf = font["glyf"]
        for cp in sorted(wanted)[:40]:
            want = unifont_bitmap(env, cp)
            got = [[0] * len(want[0]) for _ in range(16)]
            coords, ends, _ = glyf[cmap[cp]].getCoordinates(glyf)
            start = 0
            for end in ends:
                xs = [x for x, _ in coords[start:end + 1]]
                ys = [y for _, y in coords[start:end + 1]]
                start = end + 1
                for row in range(14 - max(ys) // 64, 14 - min(ys) // 64):
                    for x in range(min(xs) // 64, max(xs) // 64):
                        got[row][x] = 1
            assert got == want, chr(cp)
            assert font["hmtx"][cmap[cp]][0] == 64 * len(want[0]), chr(cp)
    ascii_page, _ = make(env, "ascii", "--text", "the cat sat")
    small = embedded_font(open(ascii_page, encoding="utf-8").read())  # the page's own · → “ ”
    assert len(small) < len(ttf) / 2, (len(small), len(ttf))

    browser = start_browser()
    try:
        browser.open("file://" + os.path.abspath(page))
        for ch in ("机", "Ж", "λ"):
            want = unifont_bitmap(env, ord(ch))
            got = browser.evaluate(
                "(function () { var c = document.createElement('canvas'); c.width = 20; "
                "c.height = 20; var x = c.getContext('2d'); "
                "x.font = '16px AttnVizUnifont, system-ui, sans-serif'; "
                f"x.textBaseline = 'alphabetic'; x.fillText('{ch}', 0, 14); "
                "var d = x.getImageData(0, 0, 20, 16).data, rows = []; "
                "for (var r = 0; r < 16; r++) { var row = []; "
                "for (var k = 0; k < 20; k++) row.push(d[(r * 20 + k) * 4 + 3] > 127 ? 1 : 0); "
                "rows.push(row); } return rows; })()")
            assert [row[:len(want[0])] for row in got] == want, (ch, got)
            assert all(v == 0 for row in got for v in row[len(want[0]):]), ch
        assert browser.requests() == ["file://" + os.path.abspath(page)]
    finally:
        browser.close()


def test_usage(env):
    _, err = env.run("run", "--text", SENTENCE, "--stream", "--html", env.path("s.html"),
                     expect=2)
    assert "--html" in err and "--no-stream" in err, err
    _, err = env.run("run", "--text", SENTENCE, "--html", env.path("missing/dir/p.html"),
                     expect=2)
    assert "--html" in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
