#include "render/model_page.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "error.h"
#include "render/heatmap.h"
#include "render/html_parts.h"
#include "render/page_blobs.h"
#include "render/model_view.h"

namespace attnviz {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* model_page_style = R"(
h2{font-size:15px;margin:0 0 6px}
.main{display:flex;gap:28px;align-items:flex-start;flex-wrap:wrap}
canvas{display:block}
canvas[hidden]{display:none}
#grid{cursor:pointer}
#map{cursor:crosshair}
.scroll{border:1px solid #eee}
.note{color:#666;font-size:12.5px;min-height:1.5em;margin-top:6px}
#hover{font-weight:600;min-height:1.5em;margin:8px 0 4px;white-space:pre-wrap}
#row{background:#f6f6f4;border:1px solid #ddd;border-radius:4px;padding:8px 10px;min-height:3em;
  white-space:pre-wrap;font:12.5px/1.5 AttnVizUnifont,ui-monospace,"DejaVu Sans Mono",monospace;max-width:560px}
)";

constexpr const char* model_page_script = R"JS(
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("attnviz-data").textContent);
  // the stack on show (an encoder-decoder's page has three): n query rows x nk key columns
  var stacks = data.stacks || [data], S = null, cmap = data.colormap;
  var n, nk, L, H, tok, ktok;
  var grid = document.getElementById("grid"), gctx = grid.getContext("2d");
  var map = document.getElementById("map"), mctx = map.getContext("2d");
  var pick = {layer: document.getElementById("layer"), head: document.getElementById("head"),
              scale: document.getElementById("scale"), draw: document.getElementById("draw"),
              stack: document.getElementById("stack")};
  var linesCanvas = document.getElementById("lines"), lctx = linesCanvas.getContext("2d");
  var tableau = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf"];
  var hoverBox = document.getElementById("hover"), rowBox = document.getElementById("row");
  var gridNote = document.getElementById("gridnote"), mapTitle = document.getElementById("maptitle");
  var gridTitle = document.getElementById("gridtitle");
  var state = {stack: data.start.stack || 0, layer: data.start.layer, head: data.start.head,
               scale: data.start.scale, hover: null, draw: "map", focus: null};
  var means = {}, gl = null, ml = null, ll = null, drawn = [];
  function useStack(k) {
    S = stacks[k]; state.stack = k; means = {};
    n = S.n; nk = S.n_keys || S.n; L = S.layers; H = S.heads; tok = S.tokens; ktok = S.key_tokens || S.tokens;
  }
  useStack(state.stack);
  function aggregate() { return state.layer >= L ? S.aggregates[state.layer - L] : null; }

  // ---- the maps' data: base64 of a zlib stream of byte planes (render/page_blobs.h) ----------
  var LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83,
                  99, 115, 131, 163, 195, 227, 258];
  var LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
  var DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                   1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
  var DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11,
                    12, 12, 13, 13];
  var CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
  // Canonical Huffman codes from their lengths (RFC 1951, 3.2.2): how many codes each length
  // has, and the symbols in the order of their codes.
  function huffman(lengths) {
    var count = new Uint16Array(16), at = new Uint16Array(16), symbol = new Uint16Array(lengths.length);
    for (var s = 0; s < lengths.length; s++) count[lengths[s]]++;
    count[0] = 0;
    for (var l = 1; l < 16; l++) at[l] = at[l - 1] + count[l - 1];
    for (s = 0; s < lengths.length; s++) if (lengths[s]) symbol[at[lengths[s]]++] = s;
    return {count: count, symbol: symbol};
  }
  var FIXED = (function () {
    var lit = [], dist = [];
    for (var s = 0; s < 288; s++) lit.push(s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8);
    for (s = 0; s < 30; s++) dist.push(5);
    return {lit: huffman(lit), dist: huffman(dist)};
  })();
  // A zlib stream's DEFLATE data (RFC 1950, 1951) into `size` bytes.
  function inflate(src, size) {
    var out = new Uint8Array(size), o = 0, pos = 2, buf = 0, cnt = 0;
    function bits(k) {
      while (cnt < k) { if (pos >= src.length) throw new Error("attn-viz: truncated map data"); buf |= src[pos++] << cnt; cnt += 8; }
      var v = buf & ((1 << k) - 1); buf >>>= k; cnt -= k; return v;
    }
    function decode(h) {  // codes are read first bit first, the canonical order by length
      var code = 0, first = 0, index = 0;
      for (var l = 1; l < 16; l++) {
        code |= bits(1);
        var c = h.count[l];
        if (code < first + c) return h.symbol[index + code - first];
        index += c; first = (first + c) << 1; code <<= 1;
      }
      throw new Error("attn-viz: bad map data");
    }
    function dynamic() {
      var nlit = bits(5) + 257, ndist = bits(5) + 1, ncl = bits(4) + 4, cl = new Array(19).fill(0);
      for (var k = 0; k < ncl; k++) cl[CL_ORDER[k]] = bits(3);
      var h = huffman(cl), lens = [];
      while (lens.length < nlit + ndist) {
        var s = decode(h);
        if (s < 16) lens.push(s);
        else if (s === 16) { var prev = lens[lens.length - 1]; for (var r = bits(2) + 3; r > 0; r--) lens.push(prev); }
        else for (r = s === 17 ? bits(3) + 3 : bits(7) + 11; r > 0; r--) lens.push(0);
      }
      return {lit: huffman(lens.slice(0, nlit)), dist: huffman(lens.slice(nlit))};
    }
    for (var last = 0; !last;) {
      last = bits(1);
      var type = bits(2);
      if (type === 0) {  // stored: from the next byte on
        buf = 0; cnt = 0;
        var n = src[pos] | (src[pos + 1] << 8);
        pos += 4;
        out.set(src.subarray(pos, pos + n), o); o += n; pos += n;
        continue;
      }
      var t = type === 1 ? FIXED : dynamic();
      for (;;) {
        var s = decode(t.lit);
        if (s < 256) { out[o++] = s; continue; }
        if (s === 256) break;
        var len = LEN_BASE[s - 257] + bits(LEN_EXTRA[s - 257]);
        var d = decode(t.dist), back = DIST_BASE[d] + bits(DIST_EXTRA[d]);
        for (var e = o + len; o < e; o++) out[o] = out[o - back];
      }
    }
    if (o !== size) throw new Error("attn-viz: map data of the wrong size");
    return out;
  }
  // A blob's values: every byte plane put back in its place, as float32 or 16-bit / 65535.
  var cache = new Map(), cached = 0;
  function values(id, count) {
    if (cache.has(id)) { var hit = cache.get(id); cache.delete(id); cache.set(id, hit); return hit; }
    var text = atob(document.getElementById(id).textContent), raw = new Uint8Array(text.length);
    for (var k = 0; k < text.length; k++) raw[k] = text.charCodeAt(k);
    var f32 = data.encoding === "f32", w = f32 ? 4 : 2, planes = inflate(raw, count * w);
    var v = new Float32Array(count);
    if (f32) {
      var bytes = new Uint8Array(v.buffer);
      for (var b = 0; b < 4; b++) for (k = 0; k < count; k++) bytes[4 * k + b] = planes[b * count + k];
    } else {
      for (k = 0; k < count; k++) v[k] = (planes[k] | (planes[count + k] << 8)) / 65535;
    }
    cache.set(id, v); cached += count;
    for (var old of cache.keys()) {  // keep about 64 M weights decoded: the least recently used go
      if (cached <= 64e6 || old === id) break;
      cached -= cache.get(old).length; cache.delete(old);
    }
    return v;
  }
  function rawMap(k) { return values(S.maps[k], n * nk); }

  function nice(x) {  // the least of 1, 2, 2.5, 5 x 10^k at or above x, as the PNGs round
    if (!(x > 0)) return 1;
    var e = Math.pow(10, Math.floor(Math.log10(x)));
    var steps = [1, 2, 2.5, 5, 10];
    for (var s = 0; s < steps.length; s++) if (steps[s] * e >= x * (1 - 1e-12)) return steps[s] * e;
    return 10 * e;
  }
  function hidden(i, j) { return S.causal && j > i; }
  function mapOf(l, h) {
    if (l >= L) return values(S.aggregates[l - L].map, n * nk);
    if (h < H) return rawMap(l * H + h);
    if (!means[l]) {
      var m = new Float64Array(n * nk);
      for (var k = 0; k < H; k++) {
        var a = rawMap(l * H + k);
        for (var x = 0; x < n * nk; x++) m[x] += a[x] / H;
      }
      means = {}; means[l] = m;  // one layer's mean kept
    }
    return means[l];
  }
  function rawMax(a) {
    var hi = 0;
    for (var x = S.causal && n > 1 ? nk : 0; x < n * nk; x++) hi = Math.max(hi, a[x]);
    return hi;
  }
  function vmaxOf(l, h) {
    if (S.scale && S.scale.vmax !== null) return S.scale.vmax;  // --vmax
    if (l >= L) return nice(rawMax(mapOf(l, h)));  // an aggregate is a map of its own kind
    if (state.scale === "shared") return S.vmax;
    return h < H ? nice(S.map_vmax[l * H + h]) : nice(rawMax(mapOf(l, h)));
  }
  // the colour scale's low end: --vmin, the log scale's decade, or 0
  function lowOf() { var s = S.scale; return s ? (s.vmin !== null ? s.vmin : s.low) : 0; }
  function colourIndex(x, vmax) {
    var s = S.scale, lo = lowOf(), t = vmax > lo ? (x - lo) / (vmax - lo) : 0;
    if (s && s.mapping === "log") t = x > lo ? Math.log(x / lo) / Math.log(vmax / lo) : 0;
    else if (s && s.mapping === "power") t = Math.pow(Math.max(0, Math.min(1, t)), s.gamma);
    return t > 0 ? Math.min(cmap.length - 1, Math.floor(t * cmap.length)) : 0;
  }
  function rgbOf(hex) { return [parseInt(hex.substr(1, 2), 16), parseInt(hex.substr(3, 2), 16), parseInt(hex.substr(5, 2), 16)]; }
  var cmapRgb = cmap.map(rgbOf);
  function label(t) { return t.length > 16 ? t.substr(0, 15) + "\u2026" : t; }

  // ---- the model view ----------------------------------------------------------------------
  function drawGrid() {
    var t = S.thumb_size, gap = 6, thumbs = values(S.thumbs, L * H * t * t);
    // a caption has a line per pattern the head finder saw ("induction 0.83\nfirst 0.44")
    var capLines = 0;
    S.captions.forEach(function (c) { if (c) capLines = Math.max(capLines, c.split("\n").length); });
    var capH = 12 * capLines + (capLines ? 2 : 0), left = 40, top = 20;
    var w = left + H * (t + gap), h = top + L * (t + gap + capH);
    var dpr = window.devicePixelRatio || 1;
    grid.width = w * dpr; grid.height = h * dpr;
    grid.style.width = w + "px"; grid.style.height = h + "px";
    gctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    gctx.clearRect(0, 0, w, h);
    gl = {t: t, gap: gap, left: left, top: top, rowH: t + gap + capH};
    gctx.font = "11px AttnVizUnifont, system-ui, sans-serif"; gctx.fillStyle = "#444"; gctx.textBaseline = "middle";
    gctx.textAlign = "center";
    for (var hh = 0; hh < H; hh++) gctx.fillText("H" + hh, left + hh * (t + gap) + t / 2, top / 2);
    gctx.textAlign = "right";
    for (var l = 0; l < L; l++) gctx.fillText("L" + l, left - 6, top + l * gl.rowH + t / 2);
    for (l = 0; l < L; l++)
      for (hh = 0; hh < H; hh++) {
        // each pixel the mean of the cells it covers (computed when the page was written)
        var at0 = (l * H + hh) * t * t, vmax = vmaxOf(l, hh);
        var img = gctx.createImageData(t, t);
        for (var y = 0; y < t; y++) {
          var i0 = Math.floor(y * n / t), i1 = Math.max(i0 + 1, Math.floor((y + 1) * n / t));
          for (var x = 0; x < t; x++) {
            var j0 = Math.floor(x * nk / t);
            var seen = !hidden(i1 - 1, j0);  // some cell of the block is visible
            var c = seen ? cmapRgb[colourIndex(thumbs[at0 + y * t + x], vmax)] : [232, 232, 232];
            var p = (y * t + x) * 4;
            img.data[p] = c[0]; img.data[p + 1] = c[1]; img.data[p + 2] = c[2]; img.data[p + 3] = 255;
          }
        }
        var gx = left + hh * (t + gap), gy = top + l * gl.rowH;
        // putImageData ignores the transform: place it in device pixels, then scale up
        var tmp = document.createElement("canvas");
        tmp.width = t; tmp.height = t; tmp.getContext("2d").putImageData(img, 0, 0);
        gctx.imageSmoothingEnabled = false;
        gctx.drawImage(tmp, gx, gy, t, t);
        if (l === state.layer && hh === state.head) {
          gctx.strokeStyle = "#d62728"; gctx.lineWidth = 2; gctx.strokeRect(gx - 1.5, gy - 1.5, t + 3, t + 3);
        }
        if (capH) {
          gctx.fillStyle = "#555"; gctx.textAlign = "left"; gctx.font = "10px AttnVizUnifont, system-ui, sans-serif";
          S.captions[l * H + hh].split("\n").forEach(function (line, k) {
            while (line.length > 1 && gctx.measureText(line).width > t + gap - 2) line = line.substr(0, line.length - 1);
            if (line) gctx.fillText(line, gx, gy + t + 8 + 12 * k);
          });
          gctx.font = "11px AttnVizUnifont, system-ui, sans-serif"; gctx.fillStyle = "#444";
        }
      }
  }
  function thumbAt(px, py) {
    var hh = Math.floor((px - gl.left) / (gl.t + gl.gap)), l = Math.floor((py - gl.top) / gl.rowH);
    if (hh < 0 || l < 0 || hh >= H || l >= L) return null;
    if (px - gl.left - hh * (gl.t + gl.gap) >= gl.t || py - gl.top - l * gl.rowH >= gl.t) return null;
    return [l, hh];
  }

  // ---- the chosen head's map ---------------------------------------------------------------
  function labelStep(cell) { return Math.max(1, Math.ceil(13 / cell)); }
  function drawMap() {
    var a = mapOf(state.layer, state.head), vmax = vmaxOf(state.layer, state.head);
    var cell = Math.max(4, Math.min(28, Math.floor(720 / Math.max(n, nk)))), step = labelStep(cell);
    var fontPx = Math.max(10, Math.min(13, cell - 3)), font = fontPx + "px AttnVizUnifont, system-ui, sans-serif";
    mctx.font = font;
    var wide = 0;
    for (var k = 0; k < Math.max(n, nk); k += step) {
      if (k < n) wide = Math.max(wide, mctx.measureText(label(tok[k])).width);
      if (k < nk) wide = Math.max(wide, mctx.measureText(label(ktok[k])).width);
    }
    var left = wide + 12, top = wide * 0.72 + 16;
    var w = Math.ceil(left + nk * cell + 80), h = Math.ceil(top + n * cell + 10);
    var dpr = window.devicePixelRatio || 1;
    map.width = w * dpr; map.height = h * dpr;
    map.style.width = w + "px"; map.style.height = h + "px";
    mctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    mctx.clearRect(0, 0, w, h);
    ml = {left: left, top: top, cell: cell, step: step};
    // one pixel a cell, then drawn `cell` times larger without smoothing
    var img = mctx.createImageData(nk, n), px = img.data;
    for (var i = 0; i < n; i++)
      for (var j = 0; j < nk; j++) {
        var c = hidden(i, j) ? [232, 232, 232] : cmapRgb[colourIndex(a[i * nk + j], vmax)], p = 4 * (i * nk + j);
        px[p] = c[0]; px[p + 1] = c[1]; px[p + 2] = c[2]; px[p + 3] = 255;
      }
    var cells = document.createElement("canvas");
    cells.width = nk; cells.height = n; cells.getContext("2d").putImageData(img, 0, 0);
    mctx.imageSmoothingEnabled = false;
    mctx.drawImage(cells, left, top, nk * cell, n * cell);
    mctx.fillStyle = "#222"; mctx.font = font; mctx.textBaseline = "middle";
    mctx.textAlign = "right";
    for (i = 0; i < n; i += step) mctx.fillText(label(tok[i]), left - 6, top + (i + 0.5) * cell);
    mctx.textAlign = "left";
    for (j = 0; j < nk; j += step) {
      mctx.save(); mctx.translate(left + (j + 0.5) * cell, top - 6); mctx.rotate(-Math.PI / 4);
      mctx.fillText(label(ktok[j]), 0, 0); mctx.restore();
    }
    if (S.prompt) {  // a generation: the prompt's rows and columns ruled off
      mctx.fillStyle = "#d62728";
      mctx.fillRect(left + S.prompt * cell - 1, top - 4, 2, n * cell + 8);
      mctx.fillRect(left - 4, top + S.prompt * cell - 1, nk * cell + 8, 2);
    }
    var bx = left + nk * cell + 14, bh = Math.min(n * cell, 240);
    for (k = 0; k < bh; k++) {
      mctx.fillStyle = cmap[Math.min(cmap.length - 1, Math.floor((1 - (k + 0.5) / bh) * cmap.length))];
      mctx.fillRect(bx, top + k, 14, 1);
    }
    mctx.fillStyle = "#222"; mctx.font = "11px AttnVizUnifont, system-ui, sans-serif";
    mctx.fillText(String(+vmax.toPrecision(3)), bx + 18, top + 5);
    mctx.fillText(String(+lowOf().toPrecision(3)), bx + 18, top + bh - 5);
    if (state.hover) {
      var hi = state.hover[0], hj = state.hover[1];
      mctx.strokeStyle = "rgba(255,255,255,0.9)"; mctx.lineWidth = 1;
      mctx.strokeRect(left + 0.5, top + hi * cell + 0.5, nk * cell - 1, cell - 1);
      mctx.strokeStyle = "#000"; mctx.lineWidth = 2;
      mctx.strokeRect(left + hj * cell + 1, top + hi * cell + 1, Math.max(1, cell - 2), Math.max(1, cell - 2));
    }
    mapTitle.textContent = title();
  }
  function stackName() { return stacks.length > 1 ? S.name + " \u00b7 " : ""; }
  function title() {
    if (aggregate()) return stackName() + aggregate().label;
    var every = state.draw === "lines" ? "every head" : "mean of " + H + " heads";
    return stackName() + "layer " + state.layer + " \u00b7 " + (state.head < H ? "head " + state.head : every) +
        (state.head < H && S.captions.length ? " \u00b7 " + S.captions[state.layer * H + state.head] : "");
  }
  function headName() {
    if (aggregate()) return aggregate().label;
    return "L" + state.layer + " " + (state.head < H ? "H" + state.head : state.draw === "lines" ? "every head" : "mean");
  }

  // ---- the head view: lines between two columns of tokens ------------------------------------
  var rowH = 18, gapW = 160;
  function drawLines() {
    lctx.font = "13px AttnVizUnifont, system-ui, sans-serif";
    var wide = 0;
    for (var k = 0; k < Math.max(n, nk); k++) {
      if (k < n) wide = Math.max(wide, lctx.measureText(label(tok[k])).width);
      if (k < nk) wide = Math.max(wide, lctx.measureText(label(ktok[k])).width);
    }
    var every = !aggregate() && state.head >= H;
    var left = wide + 12, top = every ? 34 : 12, w = Math.ceil(2 * left + gapW + 12), h = top + Math.max(n, nk) * rowH + 8;
    if (every) w = Math.max(w, 12 + H * 48);
    var dpr = window.devicePixelRatio || 1;
    linesCanvas.width = w * dpr; linesCanvas.height = h * dpr;
    linesCanvas.style.width = w + "px"; linesCanvas.style.height = h + "px";
    lctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    lctx.clearRect(0, 0, w, h);
    ll = {left: left, top: top};
    var sets = [];
    if (aggregate()) sets.push({map: mapOf(state.layer, 0), colour: "#333333", head: -1});
    else if (state.head < H) sets.push({map: mapOf(state.layer, state.head), colour: tableau[state.head % 10], head: state.head});
    else for (var hh = 0; hh < H; hh++) sets.push({map: mapOf(state.layer, hh), colour: tableau[hh % 10], head: hh});
    drawn = [];
    lctx.lineWidth = 2;
    sets.forEach(function (set) {
      lctx.strokeStyle = set.colour;
      for (var i = 0; i < n; i++) {
        if (state.focus !== null && state.focus !== i) continue;
        for (var j = 0; j < nk; j++) {
          var a = set.map[i * nk + j];
          if (!(a >= 0.01)) continue;
          lctx.globalAlpha = Math.min(1, a);
          lctx.beginPath();
          lctx.moveTo(left, top + (i + 0.5) * rowH);
          lctx.lineTo(left + gapW, top + (j + 0.5) * rowH);
          lctx.stroke();
          drawn.push([set.head, i, j]);
        }
      }
    });
    lctx.globalAlpha = 1;
    lctx.textBaseline = "middle";
    if (every)  // the legend: each head's colour
      for (hh = 0; hh < H; hh++) {
        lctx.fillStyle = tableau[hh % 10]; lctx.fillRect(6 + hh * 48, 10, 10, 10);
        lctx.fillStyle = "#222"; lctx.textAlign = "left"; lctx.font = "12px AttnVizUnifont, system-ui, sans-serif";
        lctx.fillText("H" + hh, 20 + hh * 48, 15);
      }
    lctx.fillStyle = "#222";
    for (k = 0; k < n; k++) {
      lctx.font = (state.focus === k ? "bold " : "") + "13px AttnVizUnifont, system-ui, sans-serif";
      lctx.textAlign = "right"; lctx.fillText(label(tok[k]), left - 6, top + (k + 0.5) * rowH);
    }
    lctx.font = "13px AttnVizUnifont, system-ui, sans-serif"; lctx.textAlign = "left";
    for (k = 0; k < nk; k++) lctx.fillText(label(ktok[k]), left + gapW + 6, top + (k + 0.5) * rowH);
    mapTitle.textContent = title();
  }
  function focusQuery(i) {
    state.focus = i;
    var a = mapOf(state.layer, state.head);
    hoverBox.textContent = headName() + " \u00b7 query \u201c" + tok[i] + "\u201d (" + i + "): its lines";
    rowBox.textContent = rowText(i, a);
    drawLines();
  }
  function redraw() {
    var lines = state.draw === "lines";
    map.hidden = lines; linesCanvas.hidden = !lines;
    if (lines) drawLines(); else drawMap();
  }
  function show(i, j) {
    var a = mapOf(state.layer, state.head);
    state.hover = [i, j];
    var text = headName() + " \u00b7 query \u201c" + tok[i] + "\u201d (" + i + ") \u2192 key \u201c" +
               ktok[j] + "\u201d (" + j + ")\n";
    text += hidden(i, j) ? "hidden by the causal mask (a = 0)" : "weight a = " + a[i * nk + j].toFixed(4);
    hoverBox.textContent = text;
    rowBox.textContent = rowText(i, a);
    drawMap();
  }
  function rowText(i, a) {
    var order = [];
    for (var k = 0; k < nk; k++) if (!hidden(i, k)) order.push(k);
    order.sort(function (x, y) { return a[i * nk + y] - a[i * nk + x] || x - y; });
    var lines = ["row " + i + " \u201c" + tok[i] + "\u201d, largest weights:"];
    order.slice(0, 5).forEach(function (k) {
      lines.push("  " + (a[i * nk + k] * 100).toFixed(2) + "%  \u201c" + ktok[k] + "\u201d (" + k + ")");
    });
    return lines.join("\n");
  }
  function select(l, h) {
    state.layer = l; state.head = h;
    pick.layer.value = l; pick.head.value = h;
    pick.head.disabled = l >= L;
    drawGrid();
    if (state.draw === "lines") { if (state.focus !== null) focusQuery(state.focus); else drawLines(); }
    else if (state.hover) show(state.hover[0], state.hover[1]); else drawMap();
  }

  function option(sel, value, text) {
    var o = document.createElement("option"); o.value = value; o.textContent = text; sel.appendChild(o);
  }
  function fillChoices() {  // the layer and head selectors of the stack on show
    pick.layer.textContent = ""; pick.head.textContent = "";
    for (var l = 0; l < L; l++) option(pick.layer, l, "layer " + l);
    S.aggregates.forEach(function (x, k) { option(pick.layer, L + k, x.label); });
    for (var h = 0; h < H; h++) option(pick.head, h, "head " + h);
    option(pick.head, H, "mean of heads (lines: every head)");
    if (gridTitle) gridTitle.textContent = stackName() + "every layer \u00d7 head";
  }
  fillChoices();
  if (pick.stack) stacks.forEach(function (x, k) { option(pick.stack, k, x.name); });
  function openStack(k) {  // keeps the layer and head where the stack has them
    var wasAggregate = state.layer >= L, agg = state.layer - L;
    useStack(k);
    var layer = wasAggregate ? (agg < S.aggregates.length ? L + agg : 0) : Math.min(state.layer, L - 1);
    state.hover = null; state.focus = null;
    fillChoices();
    if (pick.stack) pick.stack.value = k;
    select(layer, Math.min(state.head, H));
  }

  map.addEventListener("mousemove", function (ev) {
    if (!ml) return;
    var b = map.getBoundingClientRect();
    var j = Math.floor((ev.clientX - b.left - ml.left) / ml.cell);
    var i = Math.floor((ev.clientY - b.top - ml.top) / ml.cell);
    if (i >= 0 && j >= 0 && i < n && j < nk && (!state.hover || state.hover[0] !== i || state.hover[1] !== j)) show(i, j);
  });
  grid.addEventListener("mousemove", function (ev) {
    var b = grid.getBoundingClientRect(), at = thumbAt(ev.clientX - b.left, ev.clientY - b.top);
    gridNote.textContent = at ? "L" + at[0] + " H" + at[1] +
        (S.captions.length ? ": " + S.captions[at[0] * H + at[1]] : "") + " \u2014 click to open" : "";
  });
  grid.addEventListener("click", function (ev) {
    var b = grid.getBoundingClientRect(), at = thumbAt(ev.clientX - b.left, ev.clientY - b.top);
    if (at) select(at[0], at[1]);
  });
  pick.layer.addEventListener("change", function () { select(+pick.layer.value, state.head); });
  if (pick.stack) pick.stack.addEventListener("change", function () { openStack(+pick.stack.value); });
  pick.head.addEventListener("change", function () { select(state.layer, +pick.head.value); });
  pick.scale.addEventListener("change", function () { state.scale = pick.scale.value; select(state.layer, state.head); });
  pick.draw.addEventListener("change", function () {
    state.draw = pick.draw.value; state.focus = null; redraw();
  });
  linesCanvas.addEventListener("mousemove", function (ev) {
    if (!ll) return;
    var b = linesCanvas.getBoundingClientRect(), x = ev.clientX - b.left;
    var i = Math.floor((ev.clientY - b.top - ll.top) / rowH);
    if (x < ll.left + 4 && i >= 0 && i < n && state.focus !== i) focusQuery(i);
  });
  linesCanvas.addEventListener("mouseleave", function () { state.focus = null; drawLines(); });

  window.attnviz = {
    data: data,
    state: function () {
      return {stack: state.stack, layer: state.layer, head: state.head, scale: state.scale, hover: state.hover};
    },
    select: select,
    stack: openStack,
    thumbCenter: function (l, h) {
      var b = grid.getBoundingClientRect();
      return {x: b.left + gl.left + h * (gl.t + gl.gap) + gl.t / 2, y: b.top + gl.top + l * gl.rowH + gl.t / 2};
    },
    cellCenter: function (i, j) {
      var b = map.getBoundingClientRect();
      return {x: b.left + ml.left + (j + 0.5) * ml.cell, y: b.top + ml.top + (i + 0.5) * ml.cell};
    },
    labelStep: function () { return ml.step; },
    lines: function () { return drawn; },
    queryCenter: function (i) {
      var b = linesCanvas.getBoundingClientRect();
      return {x: b.left + ll.left - 10, y: b.top + ll.top + (i + 0.5) * rowH};
    },
    reveal: function (i, j) {  // scroll the map so that cell (i, j) is in view
      var box = map.parentNode;
      box.scrollTop = Math.max(0, ml.top + i * ml.cell - box.clientHeight / 2);
      box.scrollLeft = Math.max(0, ml.left + j * ml.cell - box.clientWidth / 2);
      box.scrollIntoView({block: "nearest", inline: "nearest"});
    }
  };
  pick.layer.value = state.layer; pick.head.value = state.head; pick.scale.value = state.scale;
  if (pick.stack) pick.stack.value = state.stack;
  drawGrid(); redraw();
})();
)JS";

}  // namespace

std::size_t page_weights(const std::vector<page_stack>& stacks) {
  std::size_t weights = 0;
  for (const page_stack& st : stacks) weights += st.layers * st.heads * st.n * st.keys();
  return weights;
}

void check_model_page_size(std::size_t layers, std::size_t heads, std::size_t n) {
  const std::size_t weights = layers * heads * n * n;
  if (weights > model_page_max_weights)
    throw usage_error(fmt::format(
        "{}: the page would hold {} weights ({} layers × {} heads × {}²; at most {} stay quick "
        "in a browser); use {} or {}, or fewer tokens",
        param("html"), weights, layers, heads, n, model_page_max_weights, param("png"),
        param("npy")));
}

void check_model_page_size(const std::vector<page_stack>& stacks) {
  if (stacks.size() == 1) return check_model_page_size(stacks[0].layers, stacks[0].heads, stacks[0].n);
  const std::size_t weights = page_weights(stacks);
  std::vector<std::string> parts;
  for (const page_stack& st : stacks) {
    parts.push_back(fmt::format("{} {} × {} × {} × {}", st.name, st.layers, st.heads, st.n,
                                st.keys()));
  }
  if (weights > model_page_max_weights)
    throw usage_error(fmt::format(
        "{}: the page would hold {} weights ({}; at most {} stay quick in a browser); use {} or "
        "{}, or fewer tokens",
        param("html"), weights, fmt::join(parts, ", "), model_page_max_weights, param("png"),
        param("npy")));
}

namespace {

// The thumbnails' side in pixels, as the page's grid draws them.
std::size_t thumb_side(std::size_t layers, std::size_t heads) {
  return std::max<std::size_t>(24, std::min<std::size_t>(96, 640 / std::max(layers, heads)));
}

// Where a stack's binary data goes: blob elements named "attnviz-s<stack>-<what>".
struct blob_sink {
  std::size_t stack = 0;
  page_encoding encoding = page_encoding::f32;
  std::string elements;
  std::string add(const std::string& what, const float* values, std::size_t count) {
    return add_text(what, page_blob(values, count, encoding));
  }
  std::string add_text(const std::string& what, const std::string& text) {
    const std::string id = fmt::format("attnviz-s{}-{}", stack, what);
    elements += blob_element(id, text);
    return id;
  }
};

// Every map's blob and thumbnail (t × t), the maps in parallel (deflating them is most of the
// time a large page takes to write).
void encode_maps(const page_stack& s, std::size_t t, page_encoding e,
                 std::vector<std::string>& texts, std::vector<float>& thumbs) {
  const std::size_t count = s.layers * s.heads, nn = s.n * s.keys();
  texts.assign(count, {});
  thumbs.assign(count * t * t, 0.0f);
#pragma omp parallel for schedule(dynamic, 1) if (count * nn > (1u << 20))
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(count); ++k) {
    const auto m = static_cast<std::size_t>(k);
    texts[m] = page_blob(s.maps + m * nn, nn, e);
    const std::vector<double> th = thumbnail_means(s.maps + m * nn, s.n, s.keys(), s.causal, t);
    for (std::size_t p = 0; p < t * t; ++p)  // a pixel of hidden cells: 0 (the page sees why)
      thumbs[m * t * t + p] = std::isnan(th[p]) ? 0.0f : static_cast<float>(th[p]);
  }
}

// The colour ranges of one stack: the shared top, each map's top and, with a non-default
// scale, the scale as the PNG maps it.
void add_ranges(ojson& data, const page_stack& s, const colour_scale& cs) {
  const std::size_t nn = s.n * s.keys();
  double shared = 0.0;
  ojson map_vmax = ojson::array();
  for (std::size_t m = 0; m < s.layers * s.heads; ++m) {
    const double hi = map_colour_max(s.maps + m * nn, s.n, s.causal, s.keys());
    shared = std::max(shared, hi);
    map_vmax.push_back(hi);
  }
  data["vmax"] = nice_at_or_above(shared);
  data["map_vmax"] = std::move(map_vmax);
  if (cs.is_default()) return;
  double smallest = 0.0;
  if (cs.mapping == colour_mapping::log)
    for (std::size_t m = 0; m < s.layers * s.heads; ++m) {
      const double v = map_min_positive(s.maps + m * nn, s.n, s.causal, s.keys());
      if (v > 0.0 && (smallest == 0.0 || v < smallest)) smallest = v;
    }
  const double lo = resolve_range(cs, {0.0, nice_at_or_above(shared)}, smallest).first;
  data["scale"] = {{"mapping", cs.mapping == colour_mapping::log     ? "log"
                               : cs.mapping == colour_mapping::power ? "power"
                                                                     : "linear"},
                   {"gamma", cs.gamma},
                   {"vmin", cs.lo ? ojson(*cs.lo) : ojson(nullptr)},
                   {"vmax", cs.hi ? ojson(*cs.hi) : ojson(nullptr)},
                   {"low", lo}};
}

void add_stack(ojson& data, const page_stack& s, const colour_scale& cs, blob_sink& blobs) {
  const std::size_t nn = s.n * s.keys();
  if (!s.maps || s.tokens.size() != s.n || (s.n_keys && s.key_tokens.size() != s.n_keys) ||
      (!s.captions.empty() && s.captions.size() != s.layers * s.heads) ||
      (s.causal && s.keys() != s.n))
    throw std::logic_error("model_page: maps, tokens and captions do not match");
  data["tokens"] = s.tokens;
  if (s.n_keys) {
    data["key_tokens"] = s.key_tokens;
    data["n_keys"] = s.n_keys;
  }
  data["layers"] = s.layers;
  data["heads"] = s.heads;
  data["n"] = s.n;
  data["causal"] = s.causal;
  if (s.prompt > 0) data["prompt"] = s.prompt;
  add_ranges(data, s, cs);
  data["captions"] = s.captions;
  const std::size_t t = thumb_side(s.layers, s.heads), count = s.layers * s.heads;
  std::vector<std::string> texts;
  std::vector<float> thumbs;
  encode_maps(s, t, blobs.encoding, texts, thumbs);
  ojson maps = ojson::array();
  for (std::size_t m = 0; m < count; ++m) maps.push_back(blobs.add_text(fmt::format("m{}", m), texts[m]));
  data["maps"] = std::move(maps);
  data["thumb_size"] = t;
  data["thumbs"] = blobs.add("thumbs", thumbs.data(), thumbs.size());
  ojson aggregates = ojson::array();
  for (std::size_t k = 0; k < s.aggregates.size(); ++k) {
    const auto& [label, map] = s.aggregates[k];
    if (map.size() != nn) throw std::logic_error("model_page: an aggregate is not n × n_keys");
    aggregates.push_back({{"label", label}, {"map", blobs.add(fmt::format("a{}", k), map.data(), nn)}});
  }
  data["aggregates"] = std::move(aggregates);
}

}  // namespace

std::string model_page(const model_page_spec& s) {
  if (s.stacks.empty() || s.stack >= s.stacks.size())
    throw std::logic_error("model_page: no such stack");
  check_model_page_size(s.stacks);
  ojson data;
  data["title"] = s.title;
  data["subtitle"] = s.subtitle;
  data["colormap"] = colormap_json(s.cmap ? *s.cmap : colormap::viridis());
  data["start"] = {{"layer", s.layer}, {"head", s.head}, {"scale", s.panel_scale ? "panel" : "shared"}};
  blob_sink blobs;
  blobs.encoding = page_weights(s.stacks) <= page_exact_weights ? page_encoding::f32
                                                                 : page_encoding::u16;
  data["encoding"] = page_encoding_name(blobs.encoding);
  if (s.stacks.size() == 1) {
    add_stack(data, s.stacks[0], s.colours, blobs);
  } else {
    data["start"]["stack"] = s.stack;
    ojson stacks = ojson::array();
    for (std::size_t k = 0; k < s.stacks.size(); ++k) {
      ojson one;
      one["name"] = s.stacks[k].name;
      blobs.stack = k;
      add_stack(one, s.stacks[k], s.colours, blobs);
      stacks.push_back(std::move(one));
    }
    data["stacks"] = std::move(stacks);
  }

  std::string page = html_head(s.title, model_page_style);
  page += html_title_block(s.title, s.subtitle);
  page += "<div class=\"controls\">\n";
  if (s.stacks.size() > 1)
    page += fmt::format("<label>{} <select id=\"stack\"></select></label>\n",
                        escape_html(s.stack_label));
  page +=
      "<label>Layer <select id=\"layer\"></select></label>\n"
      "<label>Head <select id=\"head\"></select></label>\n"
      "<label>Draw <select id=\"draw\"><option value=\"map\">the map</option>"
      "<option value=\"lines\">lines (head view)</option></select></label>\n"
      "<label>Colours <select id=\"scale\"><option value=\"shared\">one range for every map"
      "</option><option value=\"panel\">each map its own range</option></select></label>\n"
      "</div>\n"
      "<div class=\"main\">\n"
      "<section><h2 id=\"gridtitle\">Every layer × head</h2><canvas id=\"grid\" width=\"10\" "
      "height=\"10\"></canvas><div class=\"note\" id=\"gridnote\"></div></section>\n"
      "<section><h2 id=\"maptitle\"></h2><div class=\"scroll\"><canvas id=\"map\" width=\"10\" "
      "height=\"10\"></canvas><canvas id=\"lines\" width=\"10\" height=\"10\" hidden>"
      "</canvas></div>\n"
      "<div id=\"hover\">Hover a cell of the map.</div>\n<div id=\"row\"></div></section>\n"
      "</div>\n";
  // the blobs (ASCII) go in after the font's scan for the characters the page uses
  const std::string marker = "<!--attnviz-blobs-->\n";
  page += html_tail(data, model_page_script, marker);
  page = with_label_font(std::move(page));
  page.replace(page.find(marker), marker.size(), blobs.elements);
  return page;
}

}  // namespace attnviz
