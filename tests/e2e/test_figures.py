#!/usr/bin/env python3
"""Figures a user can publish: colour scales and ranges, cell annotations, titles, token ranges
and vector output, each decoded and checked on its own terms.

Colours: every cell of the PNG (read with PIL, an independent decoder) has the colour of its
weight (from --json) under the scale computed here in NumPy (linear, log, power=G; --vmin,
--vmax), and the colour bar's labels (SVG text) name the range's ends. Annotations: the SVG's
text boxes never overlap one another, each sits inside its cell, and each reads its cell's weight
in the format the figure says it uses."""
import json
import math
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import colormap, nice_at_or_above  # noqa: E402
from harness import import_numpy, import_pil_image, main  # noqa: E402

np = import_numpy()
Image = import_pil_image()

SHORT = "the cat sat on the mat"
LONG = ("In the beginning God created the heaven and the earth . And the earth was without form "
        "and void ; and darkness was upon the face of the deep . And the Spirit of God moved upon "
        "the face of the waters . And God said , Let there be light : and there was light .")

RECT = re.compile(r'<rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)" fill="#([0-9a-f]{6})"/>')
TEXT = re.compile(r'<text x="(-?\d+)" y="(-?\d+)"(?: transform="[^"]*")? font-size="(\d+)" '
                  r'fill="#([0-9a-f]{6})" textLength="(\d+)"[^>]*>([^<]*)</text>')


def svg_rects(svg):
    return [tuple(int(v) for v in m.groups()[:4]) + (m.group(5),) for m in RECT.finditer(svg)]


def svg_texts(svg):
    """(x, y_baseline, size, colour, length, text) of each horizontal text."""
    out = []
    for m in TEXT.finditer(svg):
        if "transform" in m.group(0):
            continue
        x, y, size, colour, length, text = m.groups()
        out.append((int(x), int(y), int(size), colour, int(length), unescape(text)))
    return out


def unescape(s):
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").replace("&quot;", '"')


def draw(env, name, *args, text=SHORT):
    """Runs `run` with --json, --png and --svg; returns (weights, PIL image, svg text)."""
    js, png, svg = (env.path(f"{name}.{e}") for e in ("json", "png", "svg"))
    env.run("run", "--text", text, "--json", js, "--png", png, "--svg", svg, "-q", *args)
    weights = np.array(json.load(open(js))["heads"][0]["weights"], dtype=np.float64)
    return weights, Image.open(png).convert("RGB"), open(svg, encoding="utf-8").read()


def cells(svg, n, cell):
    """The n x n cell rectangles (x, y) of a heatmap drawn with --cell `cell`, row-major."""
    found = [(x, y) for x, y, w, h, _ in svg_rects(svg) if w == cell and h == cell]
    assert len(found) >= n * n, (len(found), n)
    return found[:n * n]


def position(v, lo, hi, scale):
    if scale == "log":
        return 0.0 if v <= lo else min(1.0, math.log(v / lo) / math.log(hi / lo))
    t = min(1.0, max(0.0, (v - lo) / (hi - lo)))
    if scale.startswith("power="):
        t = t ** float(scale[6:])
    return t


def check_cells(img, svg, weights, lo, hi, scale, cmap, cell):
    n = weights.shape[0]
    a = np.asarray(img).astype(int)
    worst = 0
    for k, (x, y) in enumerate(cells(svg, n, cell)):
        i, j = divmod(k, n)
        px = a[y + 1, x + 1]  # a corner: annotations sit in the middle
        t = position(weights[i, j], lo, hi, scale)
        idx = min(len(cmap) - 1, int(t * len(cmap)))
        near = min(abs(cmap[idx + d] - px).max() for d in (-1, 0, 1) if 0 <= idx + d < len(cmap))
        worst = max(worst, near)
    assert worst <= 1, (scale, lo, hi, worst)


def bar_labels(svg, grid_right):
    """The colour bar's labels: text right of the grid, top to bottom."""
    return [t[5] for t in sorted(svg_texts(svg), key=lambda t: t[1]) if t[0] > grid_right]


def test_colour_scales_against_numpy(env):
    cmap = colormap(env, "viridis")
    cell = 30
    for scale, extra in (("linear", []), ("log", []), ("power=0.5", []),
                         ("linear", ["--vmin", "0.05", "--vmax", "0.4"]),
                         ("log", ["--vmin", "0.01"])):
        w, img, svg = draw(env, "scale", "--cell", str(cell), "--scale", scale, "--annotate",
                           "off", *extra)
        hi = float(extra[extra.index("--vmax") + 1]) if "--vmax" in extra else nice_at_or_above(w.max())
        if "--vmin" in extra:
            lo = float(extra[extra.index("--vmin") + 1])
        elif scale == "log":
            decade = lambda x: 10.0 ** math.floor(math.log10(x) + 1e-12)  # noqa: E731
            lo = max(decade(w[w > 0].min()), decade(hi) * 1e-4)
        else:
            lo = 0.0
        check_cells(img, svg, w, lo, hi, scale, cmap, cell)
        right = max(x + cell for x, _ in cells(svg, w.shape[0], cell))
        labels = bar_labels(svg, right)
        assert labels[0] == f"{hi:g}" and labels[-1] == f"{lo:g}", (scale, extra, labels)
        if scale == "log":  # decades between the ends
            assert all(re.fullmatch(r"1e-0\d|0\.0*1|1|[25]e-0\d|0\.0*[25]", s) for s in labels), labels


def test_the_default_range_is_unchanged(env):
    """No flag: [0, round number at or above the largest weight], linear."""
    cmap = colormap(env, "viridis")
    w, img, svg = draw(env, "default", "--cell", "30", "--annotate", "off")
    check_cells(img, svg, w, 0.0, nice_at_or_above(w.max()), "linear", cmap, 30)


def test_a_long_map_spreads_over_the_palette(env):
    """A 50-token map: linear leaves most cells in the first tenth of the palette; log and
    power=0.5 spread them."""
    used = {}
    for scale in ("linear", "log", "power=0.5"):
        w, img, svg = draw(env, "long-" + scale, "--cell", "20", "--scale", scale, text=LONG)
        hi = nice_at_or_above(w.max())
        lo = max(10.0 ** math.floor(math.log10(w[w > 0].min())), 10.0 ** math.floor(math.log10(hi)) * 1e-4)
        t = np.vectorize(lambda v: position(v, lo if scale == "log" else 0.0, hi, scale))(w)
        used[scale] = float(np.median(t))
    assert used["linear"] < 0.1, used
    assert used["log"] > 0.4 and used["power=0.5"] > 4 * used["linear"], used


def test_shared_and_panel_ranges_in_a_grid(env):
    """compare: one colour bar for every panel (shared) under the log scale, or one each."""
    shared, panel = env.path("shared.svg"), env.path("panel.svg")
    env.run("compare", "--text", SHORT, "--scores", "dot,cosine", "--scale", "log", "--svg",
            shared)
    env.run("compare", "--text", SHORT, "--scores", "dot,cosine", "--scale", "log,panel",
            "--svg", panel)
    shared_svg, panel_svg = open(shared).read(), open(panel).read()

    def bars(svg):  # a colour bar is a column of 18 px wide rectangles
        return sorted({x for x, y, w, h, _ in svg_rects(svg) if w == 18})
    assert len(bars(shared_svg)) == 1 and len(bars(panel_svg)) == 2, (bars(shared_svg), bars(panel_svg))
    labels = [t[5] for t in svg_texts(shared_svg)]
    assert "0.0001" in labels or "0.001" in labels, labels  # a log bar's bottom decade


def test_model_view_takes_the_scale(env):
    out, err = env.run("draw", "--weights", model_maps(env), "--view", "model", "--scale", "log",
                       "--svg", env.path("mv-log.svg"))
    labels = [t[5] for t in svg_texts(open(env.path("mv-log.svg")).read())]
    assert "0.0001" in labels or "1e-04" in labels, labels


def model_maps(env):
    """A causal stack of 2 x 2 maps over 8 tokens as .npy."""
    path = env.path("maps.npy")
    if not os.path.exists(path):
        rng = np.random.default_rng(7)
        x = rng.normal(size=(2, 2, 8, 8)) * 3
        x = np.where(np.tril(np.ones((8, 8))) > 0, x, -np.inf)
        e = np.exp(x - x.max(-1, keepdims=True))
        np.save(path, (e / e.sum(-1, keepdims=True)).astype(np.float32))
    return path


def test_colour_refusals(env):
    for args, says in ((["--vmin", "0.5", "--vmax", "0.2"], "--vmin 0.5 must be below --vmax 0.2"),
                       (["--scale", "log", "--vmin", "0"], "--scale log needs --vmin above 0"),
                       (["--scale", "logarithmic"], "expected linear, log or power=G"),
                       (["--scale", "power=0"], "expected linear, log or power=G"),
                       (["--vmax", "abc"], "--vmax must be a number, got 'abc'"),
                       (["--scale", "log,log"], "one colour mapping")):
        _, err = env.run("run", "--text", SHORT, "--png", env.path("no.png"), *args, expect=2)
        assert says in err, (args, err)
        assert not os.path.exists(env.path("no.png"))
    _, err = env.run("aoa", "--document", SHORT, "--query", "cat", "--scale", "panel", expect=2)
    assert "expected linear, log or power=G" in err, err


SIXTY = LONG + " And God saw the light , that it was good : and God divided the light from the darkness ."


def grid_texts(svg, n, cell):
    """The texts drawn inside the grid, each with the (i, j) of the cell holding its box."""
    boxes = cells(svg, n, cell)
    x0, y0 = boxes[0]
    out = []
    for x, y, size, colour, length, text in svg_texts(svg):
        top = y - size + 2  # the baseline sits 14/16 of a glyph down; a glyph is `size` tall
        if not (x0 <= x < x0 + n * cell and y0 <= top < y0 + n * cell):
            continue
        i, j = (top - y0) // cell, (x - x0) // cell
        out.append(((x, top, length, size), (i, j), text))
    return out


def value_of(text, note):
    """What a cell's text says, read the way the figure's note says numbers are written."""
    if "percent" in note:
        return float(text) / 100.0
    return float(text)


def check_numbers(svg, weights, cell):
    n = weights.shape[0]
    found = grid_texts(svg, n, cell)
    note = next((t[5] for t in svg_texts(svg) if t[5].startswith("numbers") or "cells blank" in t[5]), "")
    boxes = []
    cx, cy = x0y0(svg, n, cell)
    for (x, top, length, size), (i, j), text in found:
        assert cx + j * cell <= x and x + length <= cx + (j + 1) * cell, ("spills", i, j, text)
        assert cy + i * cell <= top and top + size <= cy + (i + 1) * cell, ("spills", i, j, text)
        step = 0.01 if ("percent" in note or len(text.split(".")[-1]) == 2) else 0.1
        said = value_of(text, note)
        assert abs(said - weights[i, j]) <= step / 2 + 1e-9, (i, j, text, weights[i, j], note)
        assert said != 0 or weights[i, j] == 0 or step == 0.01, ("a zero that is not", i, j, text)
        boxes.append((x, top, x + length, top + size))
    boxes.sort()
    for a in range(len(boxes)):  # no two text boxes overlap
        for b in range(a + 1, len(boxes)):
            if boxes[b][0] >= boxes[a][2]:
                break
            assert boxes[a][3] <= boxes[b][1] or boxes[b][3] <= boxes[a][1], (boxes[a], boxes[b])
    return found, note


def x0y0(svg, n, cell):
    return cells(svg, n, cell)[0]


def test_annotations_at_62_tokens_fit_and_tell_the_truth(env):
    w, img, svg = draw(env, "ann62", "--annotate", "on", text=SIXTY)
    n = w.shape[0]
    assert n >= 60, n
    found, note = check_numbers(svg, w, 20)
    assert "percent" in note, note  # 20 px cells hold two characters
    assert len(found) > n * n // 2, len(found)
    written = {t for *_, t in found}
    assert written != {"0"} and len(written) > 10, sorted(written)[:20]
    blank = n * n - len(found)
    assert f"{blank:,} of {n * n:,} cells blank" in note, (blank, note)


def test_annotations_by_size(env):
    """Every size from 5 to 40 tokens: automatic numbers never read 0.0 for a weight that is
    not; `on` always writes, fits and tells the truth."""
    words = SIXTY.split()
    for count in (5, 12, 20, 24, 27, 33, 40):
        text = " ".join(words[:count])
        w, _, svg = draw(env, f"auto{count}", text=text)
        cell = int(re.search(r'<rect x="\d+" y="\d+" width="(\d+)"', svg.split("\n", 4)[4]).group(1))
        found, note = check_numbers(svg, w, cell)
        w_on, _, svg_on = draw(env, f"on{count}", "--annotate", "on", text=text)
        found_on, note_on = check_numbers(svg_on, w_on, cell)
        assert found_on, count


GENESIS = ("In the beginning God created the heaven and the earth . And the earth was without form "
           "and void ; and darkness was upon the face of the deep .")


def test_title_and_no_title(env):
    _, _, svg = draw(env, "titled", "--title", "Genesis 1:1 <crop> & more", text=GENESIS)
    texts = [t[5] for t in svg_texts(svg)]
    assert texts[0] == "Genesis 1:1 <crop> & more", texts[:2]
    assert texts[1].startswith("weights a_ij"), texts[:2]  # the subtitle stays
    w, _, bare = draw(env, "untitled", "--no-title", text=GENESIS)
    texts = [t[5] for t in svg_texts(bare)]
    assert not any(t.startswith("self-attention") or t.startswith("weights a_ij") for t in texts)
    top = min(y for _, y, *_ in svg_rects(bare)[1:])  # the grid starts right under the margin
    assert top <= 32, top
    _, err = env.run("run", "--text", SHORT, "--title", "x", "--no-title", "--png",
                     env.path("no.png"), expect=2)
    assert "--title and --no-title: give one of them" in err, err
    out = env.path("mv-untitled.svg")  # the model view too
    env.run("draw", "--weights", model_maps(env), "--view", "model", "--no-title", "--svg", out)
    assert not any("tokens" in t[5] for t in svg_texts(open(out).read()))


def test_rows_and_cols_crop_the_figure(env):
    cmap = colormap(env, "viridis")
    js, png, svg_path = env.path("crop.json"), env.path("crop.png"), env.path("crop.svg")
    env.run("run", "--text", GENESIS, "--rows", "3-10", "--cols", "0-12,20", "--cell", "30",
            "--json", js, "--png", png, "--svg", svg_path, "-q")
    data = json.load(open(js))
    full = np.array(data["heads"][0]["weights"], dtype=np.float64)
    assert full.shape == (30, 30), full.shape  # the numbers keep every row and column
    rows, cols = list(range(3, 11)), list(range(0, 13)) + [20]
    part = full[np.ix_(rows, cols)]
    svg = open(svg_path).read()
    found = [(x, y) for x, y, w, h, _ in svg_rects(svg) if w == 30 and h == 30]
    assert len(found) == len(rows) * len(cols), len(found)
    img = np.asarray(Image.open(png).convert("RGB")).astype(int)
    hi = nice_at_or_above(part.max())  # the range is the shown cells'
    for k, (x, y) in enumerate(found):
        i, j = divmod(k, len(cols))
        idx = min(255, int(part[i, j] / hi * 256))
        assert min(abs(cmap[min(255, max(0, idx + d))] - img[y + 1, x + 1]).max() for d in (-1, 0, 1)) <= 1
    texts = [t[5] for t in svg_texts(svg)]
    tokens = data["query_tokens"]
    row_labels = [t for t in texts if t in tokens]
    assert row_labels[:len(rows)] == [tokens[i] for i in rows], row_labels[:len(rows)]
    assert any("rows 3-10 · cols 0-12,20" in t for t in texts), texts[:3]
    _, err = env.run("run", "--text", SHORT, "--rows", "2-9", "--png", env.path("no.png"), expect=2)
    assert "--rows 9: there are 6 rows (0 to 5)" in err, err
    # a model's maps: one head's map cropped; the model view refuses
    out = env.path("maps-crop.svg")
    env.run("draw", "--weights", model_maps(env), "--rows", "4-7", "--cols", "0-3", "--cell", "30",
            "--svg", out)
    assert len([1 for *_, w, h, _ in svg_rects(open(out).read()) if w == 30 and h == 30]) == 16
    _, err = env.run("draw", "--weights", model_maps(env), "--view", "model", "--rows", "0-3",
                     "--svg", out, expect=2)
    assert "--rows and --cols choose the rows and columns of one map" in err, err


class Raster:
    """A tiny painter for the two vector outputs' drawing: filled and stroked axis-aligned
    rectangles and RGB images on integer pixels, as the PNG rasterizer paints them."""

    def __init__(self, w, h, bg=(255, 255, 255)):
        self.a = np.zeros((h, w, 3), dtype=int)
        self.a[:] = bg

    def fill(self, x, y, w, h, c):
        x0, y0, x1, y1 = (max(0, int(round(v))) for v in (x, y, x + w, y + h))
        self.a[y0:y1, x0:x1] = c

    def stroke(self, x, y, w, h, t, c):
        """A rectangle path (x, y, w, h) stroked t wide: the band between the outer and inner
        boxes."""
        ox, oy, ow, oh = x - t / 2, y - t / 2, w + t, h + t
        self.fill(ox, oy, ow, t, c)
        self.fill(ox, oy + oh - t, ow, t, c)
        self.fill(ox, oy, t, oh, c)
        self.fill(ox + ow - t, oy, t, oh, c)


def paint_svg(svg):
    """An SVG of rects, stroked rects and glyph paths (--svg-text paths), painted."""
    m = re.search(r'viewBox="0 0 (\d+) (\d+)"', svg)
    r = Raster(int(m.group(1)), int(m.group(2)))
    for el in re.finditer(r"<(rect|path)([^>]*)/?>", svg):
        kind, attrs = el.groups()
        at = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        colour = lambda v: tuple(int(v[i:i + 2], 16) for i in (1, 3, 5))  # noqa: E731
        if kind == "rect" and at.get("fill") == "none":
            r.stroke(float(at["x"]), float(at["y"]), float(at["width"]), float(at["height"]),
                     float(at["stroke-width"]), colour(at["stroke"]))
        elif kind == "rect":
            r.fill(float(at.get("x", 0)), float(at.get("y", 0)), float(at["width"]),
                   float(at["height"]), colour(at["fill"]))
        else:
            for x, y, w, h, _ in re.findall(r"M(\d+) (\d+)h(\d+)v(\d+)h-(\d+)z", at["d"]):
                r.fill(int(x), int(y), int(w), int(h), colour(at["fill"]))
    return r.a


def pdf_objects(data):
    """{number: bytes} of a PDF, after checking that the xref table points at each object."""
    xref = int(re.search(rb"startxref\n(\d+)\n%%EOF\n$", data).group(1))
    assert data[xref:xref + 4] == b"xref", "startxref does not point at the xref table"
    count = int(re.match(rb"xref\n0 (\d+)\n", data[xref:]).group(1))
    table = data[xref:].split(b"\n")[3:3 + count - 1]
    objects = {}
    for k, row in enumerate(table, start=1):
        at = int(row[:10])
        assert data[at:].startswith(f"{k} 0 obj".encode()), (k, data[at:at + 20])
        end = data.index(b"\nendobj", at)
        objects[k] = data[at:end]
    return objects


def stream_of(obj):
    import zlib
    head, rest = obj.split(b"stream\n", 1)
    length = int(re.search(rb"/Length (\d+)", head).group(1))
    return head, zlib.decompress(rest[:length])


UNIFONT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets", "unifont",
                       "unifont-15.0.01-bmp.hex")


def unifont():
    """{code point: (width, rows as ints, bit width-1 = leftmost pixel)} from the bundled .hex."""
    glyphs = {}
    with open(UNIFONT, encoding="ascii") as f:
        for line in f:
            cp, bits = line.strip().split(":")
            w = len(bits) // 4  # 32 hex digits: 8 px wide, 64: 16
            glyphs[int(cp, 16)] = (w, [int(bits[i * w // 4:(i + 1) * w // 4], 16) for i in range(16)])
    return glyphs


class PdfFont:
    """The Type 0 font of a page: its glyph ids' characters (ToUnicode) and widths (/W)."""

    def __init__(self, objects, page):
        m = re.search(rb"/Font << /F1 (\d+) 0 R >>", page)
        self.present = m is not None
        if not self.present:
            return
        type0 = objects[int(m.group(1))]
        assert b"/Subtype /Type0" in type0 and b"/Encoding /Identity-H" in type0, type0
        _, cmap = stream_of(objects[int(re.search(rb"/ToUnicode (\d+) 0 R", type0).group(1))])
        self.char = {int(a, 16): chr(int(b, 16)) for a, b in re.findall(rb"<([0-9A-F]{4})> <([0-9A-F]{4})>", cmap)}
        cid = objects[int(re.search(rb"/DescendantFonts \[(\d+) 0 R\]", type0).group(1))]
        assert b"/CIDToGIDMap /Identity" in cid and b"/FontFile2" in \
            objects[int(re.search(rb"/FontDescriptor (\d+) 0 R", cid).group(1))]
        self.default_width = int(re.search(rb"/DW (\d+)", cid).group(1))
        widths = re.search(rb"/W \[1 \[([\d ]*)\]\]", cid).group(1).split()
        self.width = {k + 1: int(w) for k, w in enumerate(widths)}


def paint_text(r, glyphs, font, codes, tm, fill):
    """A Tj of glyph ids under the text matrix tm, painted as the PNG draws Unifont: each
    glyph's pixels from its ToUnicode character, advancing by its /W width."""
    a, b, c, d, e, f = tm
    s = int(round(abs(a or b) / 16))
    horizontal = b == 0
    advance = 0
    for k in range(0, len(codes), 4):
        gid = int(codes[k:k + 4], 16)
        w, rows = glyphs[ord(font.char[gid])] if gid in font.char else glyphs[0xFFFD]
        for gy in range(16):
            for gx in range(w):
                if not rows[gy] >> (w - 1 - gx) & 1:
                    continue
                u, v = advance + gx * s, gy * s
                if horizontal:  # [k 0 0 -k x y+14s]
                    r.fill(e + u, f - 14 * s + v, s, s, fill)
                else:  # [0 -k -k 0 x+14s y]: along the text up, across it rightwards
                    r.fill(e - 14 * s + v, f - u - s + 1, s, s, fill)
        advance += font.width.get(gid, font.default_width) * 16 * s // 1000


def paint_pdf(data, px_w, px_h):
    """The PDF's page painted at one pixel per figure pixel (its content maps pixels to points
    with one cm; fills, strokes and images as the PNG paints them)."""
    objects = pdf_objects(data)
    page = next(o for o in objects.values() if b"/Type /Page " in o)
    content = objects[int(re.search(rb"/Contents (\d+) 0 R", page).group(1))]
    images = {name.decode(): int(num) for name, num in re.findall(rb"/(Im\d+) (\d+) 0 R", page)}
    _, ops = stream_of(content)
    r = Raster(px_w, px_h)
    font, glyphs = PdfFont(objects, page), None
    stack, fill, stroke, width, rects = [], (0, 0, 0), (0, 0, 0), 1.0, []
    image_cm, text_matrix, codes = None, None, ""
    for tok in ops.split():
        t = tok.decode()
        if re.fullmatch(r"-?[\d.]+", t):
            stack.append(float(t))
            continue
        if t.startswith("<") and t.endswith(">"):
            codes = t[1:-1]
            continue
        if t == "Tm":
            text_matrix = stack[-6:]
        elif t == "Tj":
            glyphs = glyphs or unifont()
            paint_text(r, glyphs, font, codes, text_matrix, fill)
        if t == "rg":
            fill = tuple(int(round(v * 255)) for v in stack[-3:])
        elif t == "RG":
            stroke = tuple(int(round(v * 255)) for v in stack[-3:])
        elif t == "w":
            width = stack[-1]
        elif t == "re":
            rects.append(stack[-4:])
        elif t == "f":
            for x, y, w, h in rects:
                r.fill(x, y, w, h, fill)
            rects = []
        elif t == "S":
            for x, y, w, h in rects:
                r.stroke(x, y, w, h, width, stroke)
            rects = []
        elif t == "cm":
            image_cm = stack[-6:]
        elif t == "Do":
            pass
        elif t.startswith("/Im"):
            head, pixels = stream_of(objects[images[t[1:]]])
            iw = int(re.search(rb"/Width (\d+)", head).group(1))
            ih = int(re.search(rb"/Height (\d+)", head).group(1))
            a, _, _, d, e, f = image_cm  # [w 0 0 -h x y+h]
            assert (a, -d) == (iw, ih), (image_cm, iw, ih)
            x, y = int(e), int(f + d)
            r.a[y:y + ih, x:x + iw] = np.frombuffer(pixels, dtype=np.uint8).reshape(ih, iw, 3)
        stack = []
    return r.a


def test_svg_text_as_paths_paints_the_png(env):
    """--svg-text paths: every text is its glyphs' pixels; painted, the SVG is the PNG, pixel
    for pixel (CJK labels included); each path keeps its words in <title>."""
    png, svg = env.path("paths.png"), env.path("paths.svg")
    env.run("run", "--tokens", "机器 学习 the cat sat on the mat", "--png", png, "--svg", svg,
            "--svg-text", "paths", "-q")
    text = open(svg, encoding="utf-8").read()
    assert "<text" not in text
    assert "<title>机器</title>" in text
    painted = paint_svg(text)
    want = np.asarray(Image.open(png).convert("RGB")).astype(int)
    assert painted.shape == want.shape
    assert (painted != want).any(-1).sum() == 0, (painted != want).any(-1).sum()


def test_pdf_paints_the_png(env):
    """--pdf: a valid file (xref offsets, deflated streams) whose page, painted, is the PNG;
    the labels as text in the embedded Unifont subset (painted from its ToUnicode characters and
    /W widths), the model view's thumbnails as images. With pdftoppm installed, a real reader's
    rendering agrees as well."""
    for name, argv in (("heatmap", ["run", "--tokens", "机器 学习 the cat sat on the mat"]),
                       ("model-view", ["draw", "--weights", model_maps(env), "--view", "model"])):
        png, pdf = env.path(name + ".png"), env.path(name + ".pdf")
        env.run(*argv, "--png", png, "--pdf", pdf)
        want = np.asarray(Image.open(png).convert("RGB")).astype(int)
        data = open(pdf, "rb").read()
        assert data.startswith(b"%PDF-1.4\n")
        h, w = want.shape[:2]
        box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data)
        assert abs(float(box.group(1)) - w * 0.75) < 1e-3 and abs(float(box.group(2)) - h * 0.75) < 1e-3
        painted = paint_pdf(data, w, h)
        assert (painted != want).any(-1).sum() == 0, (name, (painted != want).any(-1).sum())
        env.run(*argv, "--pdf", env.path(name + "-again.pdf"))
        assert open(env.path(name + "-again.pdf"), "rb").read() == data  # same figure, same bytes
        if name == "heatmap":  # the labels are text a reader can select and search
            assert b"/FontFile2" in data and b"/ToUnicode" in data
            if shutil.which("pdftotext"):
                words = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True,
                                       check=True).stdout
                for want_word in ("机器", "学习", "cat", "mat", "self-attention"):
                    assert want_word in words, (want_word, words)
        if shutil.which("pdftoppm"):
            subprocess.run(["pdftoppm", "-r", "96", "-png", pdf, env.path(name + "-poppler")],
                           check=True)
            seen = np.asarray(Image.open(env.path(name + "-poppler-1.png")).convert("RGB")).astype(int)
            hh, ww = min(h, seen.shape[0]), min(w, seen.shape[1])
            close = (np.abs(seen[:hh, :ww] - want[:hh, :ww]).max(-1) <= 8).mean()
            assert close > 0.95, close


def test_dpi_sets_the_physical_size(env):
    png, svg, pdf = env.path("dpi.png"), env.path("dpi.svg"), env.path("dpi.pdf")
    env.run("run", "--text", SHORT, "--png", png, "--svg", svg, "--pdf", pdf, "--dpi", "300", "-q")
    img = Image.open(png)
    assert abs(img.info["dpi"][0] - 300) < 0.01, img.info
    w, h = img.size
    text = open(svg).read()
    assert f'width="{w / 300:.4g}in" height="{h / 300:.4g}in"' in text, text[:300]
    box = re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", open(pdf, "rb").read())
    assert abs(float(box.group(1)) - w * 72 / 300) < 1e-3, box.group(0)
    _, err = env.run("run", "--text", SHORT, "--pdf", env.path("x.png"), expect=2)
    assert "--pdf" in err and ".pdf" in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
