#include "render/neuron_page.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "render/colormap.h"
#include "render/html_parts.h"

namespace attnviz {
namespace {

using ojson = nlohmann::ordered_json;

// Columns [first, first + d) of every row of m, 6 significant digits.
ojson rows_of(const matrix& m, std::size_t first, std::size_t d) {
  ojson rows = ojson::array();
  for (std::size_t r = 0; r < m.rows(); ++r) {
    ojson row = ojson::array();
    for (std::size_t c = 0; c < d; ++c) row.push_back(page_number(m(r, first + c)));
    rows.push_back(std::move(row));
  }
  return rows;
}

constexpr const char* neuron_page_style = R"(
.main{display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap}
canvas{display:block;cursor:crosshair}
#hover{font-weight:600;min-height:3em;margin:10px 0 4px;white-space:pre-wrap}
#check{color:#666;font-size:12.5px}
.scroll{max-width:100%}
)";

constexpr const char* neuron_page_script = R"JS(
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("attnviz-data").textContent);
  var n = data.tokens.length, dh = data.d_head, cmap = data.colormap;
  var canvas = document.getElementById("neuron"), ctx = canvas.getContext("2d");
  var pick = document.getElementById("query"), hoverBox = document.getElementById("hover");
  var checkBox = document.getElementById("check");
  var state = {query: data.query}, layout = null, current = null;

  function nice(x) {
    if (!(x > 0)) return 1;
    var e = Math.pow(10, Math.floor(Math.log10(x))), steps = [1, 2, 2.5, 5, 10];
    for (var s = 0; s < steps.length; s++) if (steps[s] * e >= x * (1 - 1e-12)) return steps[s] * e;
    return 10 * e;
  }
  function colour(v, range) {
    var t = range > 0 ? Math.min(1, Math.max(0, 0.5 + 0.5 * v / range)) : 0.5;
    return cmap[t > 0 ? Math.min(cmap.length - 1, Math.floor(t * cmap.length)) : 0];
  }
  function visible(i, j) {
    return (!data.causal || j <= i) && (!data.window || j + data.window > i);
  }
  function label(t) { return t.length > 16 ? t.substr(0, 15) + "\u2026" : t; }

  // the walk for query i, as analysis/neuron_trace computes it
  function trace(i) {
    var q = data.q[i], keys = [], most = -Infinity, scale = 1 / Math.sqrt(dh);
    for (var j = 0; j < n; j++) {
      if (!visible(i, j)) continue;
      var k = data.k[j], prod = [], dot = 0;
      for (var t = 0; t < dh; t++) { prod.push(q[t] * k[t]); dot += q[t] * k[t]; }
      keys.push({j: j, k: k, product: prod, dot: dot, score: dot * scale});
      most = Math.max(most, dot * scale);
    }
    var sum = 0;
    keys.forEach(function (key) { key.weight = Math.exp(key.score - most); sum += key.weight; });
    var error = 0;
    keys.forEach(function (key) {
      key.weight /= sum;
      error = Math.max(error, Math.abs(key.weight - data.map[i][key.j]));
      var v = data.v[key.j], m = 0;
      for (var t = 0; t < dh; t++) m += key.weight * v[t] * key.weight * v[t];
      key.mixed = Math.sqrt(m);
    });
    return {query: i, q: q, keys: keys, error: error};
  }

  function draw() {
    current = trace(state.query);
    var cell = Math.max(2, Math.min(14, Math.floor(480 / dh))), rowH = 18, stripH = 14;
    ctx.font = "13px AttnVizUnifont, system-ui, sans-serif";
    var wide = ctx.measureText("query " + state.query + " " + label(data.tokens[state.query])).width;
    current.keys.forEach(function (key) {
      wide = Math.max(wide, ctx.measureText(key.j + " " + label(data.tokens[key.j])).width);
    });
    var left = wide + 20, xProd = left + dh * cell + 16, xScore = xProd + dh * cell + 16;
    var xBar = xScore + 72 + 16, top = 24, keysTop = top + rowH + 12;
    var w = Math.ceil(xBar + 120 + 70), h = keysTop + current.keys.length * rowH + 10;
    var dpr = window.devicePixelRatio || 1;
    canvas.width = w * dpr; canvas.height = h * dpr;
    canvas.style.width = w + "px"; canvas.style.height = h + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    var vec = 0, prod = 0;
    current.q.forEach(function (x) { vec = Math.max(vec, Math.abs(x)); });
    current.keys.forEach(function (key) {
      key.k.forEach(function (x) { vec = Math.max(vec, Math.abs(x)); });
      key.product.forEach(function (x) { prod = Math.max(prod, Math.abs(x)); });
    });
    vec = nice(vec); prod = nice(prod);
    layout = {cell: cell, rowH: rowH, left: left, xProd: xProd, top: top, keysTop: keysTop,
              vec: vec, prod: prod};
    ctx.fillStyle = "#666"; ctx.textBaseline = "middle"; ctx.font = "12px AttnVizUnifont, system-ui, sans-serif";
    ctx.fillText(data.rope ? "q, k (after RoPE)" : "q, k", left, 8);
    ctx.fillText("q \u2299 k", xProd, 8);
    ctx.fillText("q\u00b7k/\u221ad", xScore, 8);
    ctx.fillText("softmax", xBar, 8);
    ctx.font = "13px AttnVizUnifont, system-ui, sans-serif"; ctx.textAlign = "right"; ctx.fillStyle = "#222";
    ctx.fillText("query " + state.query + " " + label(data.tokens[state.query]), left - 10, top + rowH / 2);
    for (var t = 0; t < dh; t++) {
      ctx.fillStyle = colour(current.q[t], vec);
      ctx.fillRect(left + t * cell, top + 2, cell, stripH);
    }
    ctx.fillStyle = "#999"; ctx.fillRect(8, keysTop - 6, w - 16, 1);
    current.keys.forEach(function (key, r) {
      var y = keysTop + r * rowH;
      ctx.textAlign = "right";
      ctx.fillStyle = key.j === state.query ? "#1f77b4" : "#222";
      ctx.fillText(key.j + " " + label(data.tokens[key.j]), left - 10, y + rowH / 2);
      for (var t = 0; t < dh; t++) {
        ctx.fillStyle = colour(key.k[t], vec); ctx.fillRect(left + t * cell, y + 2, cell, stripH);
        ctx.fillStyle = colour(key.product[t], prod); ctx.fillRect(xProd + t * cell, y + 2, cell, stripH);
      }
      ctx.fillStyle = "#222"; ctx.fillText((key.score >= 0 ? "+" : "") + key.score.toFixed(3), xScore + 72, y + rowH / 2);
      ctx.fillStyle = "#1f77b4"; ctx.fillRect(xBar, y + 3, Math.round(key.weight * 120), stripH - 2);
      ctx.strokeStyle = "#ccc"; ctx.strokeRect(xBar + 0.5, y + 2.5, 120, stripH);
      ctx.fillStyle = "#222"; ctx.textAlign = "left";
      ctx.fillText((key.weight * 100).toFixed(1) + "%", xBar + 128, y + rowH / 2);
    });
    checkBox.textContent = "checked: these weights against the model's map, max |difference| " +
        current.error.toExponential(1) + " \u00b7 " + current.keys.length + " visible keys";
  }

  function at(px, py) {  // {row: -1 for q | key index, t, part: "vec" | "prod"} under (px, py)
    var L = layout, row = -2;
    if (py >= L.top && py < L.top + L.rowH) row = -1;
    else if (py >= L.keysTop) row = Math.floor((py - L.keysTop) / L.rowH);
    if (row < -1 || row >= current.keys.length) return null;
    var t = Math.floor((px - L.left) / L.cell), part = "vec";
    if (px >= L.xProd) { t = Math.floor((px - L.xProd) / L.cell); part = "prod"; }
    if (t < 0 || t >= dh || (row === -1 && part === "prod")) return {row: row, t: -1, part: part};
    return {row: row, t: t, part: part};
  }

  canvas.addEventListener("mousemove", function (ev) {
    var b = canvas.getBoundingClientRect(), hit = at(ev.clientX - b.left, ev.clientY - b.top);
    if (!hit) return;
    var i = state.query, q = current.q, text;
    if (hit.row === -1) {
      text = "query " + i + " \u201c" + data.tokens[i] + "\u201d" +
             (hit.t >= 0 ? " \u00b7 dimension " + hit.t + ": q = " + q[hit.t].toFixed(4) : "");
    } else {
      var key = current.keys[hit.row];
      text = "key " + key.j + " \u201c" + data.tokens[key.j] + "\u201d \u00b7 q\u00b7k = " +
             key.dot.toFixed(4) + ", score = " + key.score.toFixed(4) + ", weight = " +
             (key.weight * 100).toFixed(2) + "%, |a\u00b7v| = " + key.mixed.toFixed(4);
      if (hit.t >= 0)
        text += "\ndimension " + hit.t + ": q = " + q[hit.t].toFixed(4) + ", k = " +
                key.k[hit.t].toFixed(4) + ", q\u00b7k = " + key.product[hit.t].toFixed(4);
    }
    hoverBox.textContent = text;
  });

  function select(i) { state.query = i; pick.value = i; hoverBox.textContent = ""; draw(); }
  data.tokens.forEach(function (t, i) {
    var o = document.createElement("option"); o.value = i; o.textContent = i + " " + t; pick.appendChild(o);
  });
  pick.addEventListener("change", function () { select(+pick.value); });
  window.attnviz = {
    data: data,
    state: function () { return {query: state.query}; },
    select: select,
    trace: function () { return current; },
    cellCenter: function (row, t, part) {
      var b = canvas.getBoundingClientRect(), L = layout;
      var x = (part === "prod" ? L.xProd : L.left) + (t + 0.5) * L.cell;
      var y = row < 0 ? L.top + L.rowH / 2 : L.keysTop + (row + 0.5) * L.rowH;
      return {x: b.left + x, y: b.top + y};
    }
  };
  select(data.query);
})();
)JS";

}  // namespace

std::string neuron_page(const neuron_page_spec& s) {
  const std::size_t n = s.tokens.size();
  if (!s.probe || !s.maps || s.probe->q.rows() != n || s.query >= n || s.d_head == 0)
    throw std::logic_error("neuron_page: the probe does not match the tokens");
  ojson data;
  data["title"] = s.title;
  data["subtitle"] = s.subtitle;
  data["tokens"] = s.tokens;
  data["layer"] = s.layer;
  data["head"] = s.head;
  data["kv_head"] = s.kv_head;
  data["d_head"] = s.d_head;
  data["rope"] = s.rope;
  data["causal"] = s.causal;
  data["window"] = s.window;
  data["query"] = s.query;
  data["colormap"] = colormap_json(colormap::by_name("rdbu"));
  data["q"] = rows_of(s.probe->q, s.head * s.d_head, s.d_head);
  data["k"] = rows_of(s.probe->k, s.kv_head * s.d_head, s.d_head);
  data["v"] = rows_of(s.probe->v, s.kv_head * s.d_head, s.d_head);
  ojson map = ojson::array();
  for (std::size_t i = 0; i < n; ++i) {
    ojson row = ojson::array();
    for (std::size_t j = 0; j < n; ++j) row.push_back(page_number(s.maps[i * n + j]));
    map.push_back(std::move(row));
  }
  data["map"] = std::move(map);
  std::string page = html_head(s.title, neuron_page_style);
  page += html_title_block(s.title, s.subtitle);
  page +=
      "<div class=\"controls\">\n<label>Query <select id=\"query\"></select></label>\n</div>\n"
      "<div class=\"scroll\"><canvas id=\"neuron\" width=\"10\" height=\"10\"></canvas></div>\n"
      "<div id=\"hover\">Hover a cell: its dimension and numbers.</div>\n"
      "<div id=\"check\"></div>\n";
  page += html_tail(data, neuron_page_script);
  return with_label_font(std::move(page));
}

}  // namespace attnviz
