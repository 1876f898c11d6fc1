#include "render/html_page.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <deque>
#include <nlohmann/json.hpp>

#include "analysis/query_story.h"
#include "attention/pipeline.h"
#include "attention/registry.h"
#include "error.h"
#include "render/colormap.h"
#include "render/heatmap.h"
#include "render/html_parts.h"
#include "render/json_numbers.h"

namespace attnviz {
namespace {

using ojson = nlohmann::ordered_json;

// The colour range of one matrix: with `cs` (the --scale, --vmin, --vmax of the matrix --show
// names) or the default linear automatic one.
ojson range_json(const matrix& m, bool centered, const colour_scale& cs) {
  const auto [lo, hi] = scale_range(cs, m, centered);
  return {lo, hi};
}

ojson stages_json(const attention_result& r) {
  ojson out = ojson::array();
  const std::pair<const char*, const variant_info*> stages[] = {
      {"score", &find_score(r.spec.score).info},
      {"align", &find_align(r.spec.align).info},
      {"context", &find_context(r.spec.context).info}};
  for (const auto& [stage, v] : stages)
    out.push_back({{"stage", stage},
                   {"name", v->name},
                   {"summary", v->summary},
                   {"formula", v->formula},
                   {"paper", v->paper}});
  return out;
}

ojson view_json(const attention_result& r, const std::string& label, const matrix& weights,
                const matrix* scores, const query_row& row, const view_options& look) {
  const bool on_scores = look.show == shown_matrix::scores;
  ojson v;
  v["label"] = label;
  v["weights"] = json_rows(weights);
  v["weights_range"] = range_json(weights, false, on_scores ? colour_scale{} : look.colours);
  if (scores && !scores->empty()) {
    v["scores"] = json_rows(*scores);
    v["scores_range"] = range_json(*scores, true, on_scores ? look.colours : colour_scale{});
  } else {
    v["scores"] = nullptr;
  }
  ojson masked = ojson::array();
  if (row.masked && !row.masked->empty())
    for (std::size_t i = 0; i < weights.rows(); ++i)
      for (std::size_t j = 0; j < weights.cols(); ++j)
        if ((*row.masked)[i * weights.cols() + j]) masked.push_back({i, j});
  v["masked"] = std::move(masked);
  ojson explain = ojson::array();
  for (std::size_t i = 0; i < weights.rows(); ++i) explain.push_back(query_story(r, row, i));
  v["explain"] = std::move(explain);
  return v;
}

ojson panel_json(const html_panel& p, const view_options& look) {
  const attention_result& r = *p.result;
  ojson panel;
  panel["label"] = p.label.empty() ? variant_short_title(r) : p.label;
  panel["stages"] = stages_json(r);
  panel["query_tokens"] = r.query_tokens;
  panel["key_tokens"] = r.key_tokens;
  ojson views = ojson::array();
  const std::size_t heads = r.heads.size();
  for (std::size_t h = 0; h < heads; ++h) {
    const head_result& hr = r.heads[h];
    query_row row{&hr.weights,     hr.scores.empty() ? nullptr : &hr.scores,
                  &hr.context,     &hr.masked,
                  &hr.chosen_keys,
                  heads > 1 ? fmt::format("head {} of heads 0 to {}", h, heads - 1) : ""};
    views.push_back(view_json(r, heads > 1 ? fmt::format("head {}", h) : "weights", hr.weights,
                              row.scores, row, look));
  }
  if (heads > 1) {
    const matrix mean = aggregate_heads(r, head_aggregate::mean);
    matrix mean_scores;
    if (!r.heads[0].scores.empty()) mean_scores = aggregate_heads(r, head_aggregate::mean, true);
    const query_row row{&mean,   mean_scores.empty() ? nullptr : &mean_scores, nullptr, nullptr,
                        nullptr, fmt::format("mean of {} heads", heads)};
    views.push_back(view_json(r, fmt::format("mean of {} heads", heads), mean, row.scores, row, look));
  }
  panel["views"] = std::move(views);
  return panel;
}

constexpr const char* map_page_style = R"(
.main{display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap}
canvas{display:block;cursor:crosshair}
aside{min-width:320px;max-width:560px;flex:1}
#hover{font-weight:600;min-height:1.5em;margin-bottom:8px;white-space:pre-wrap}
#explain{background:#f6f6f4;border:1px solid #ddd;border-radius:4px;padding:10px;
  white-space:pre-wrap;font:12.5px/1.5 AttnVizUnifont,ui-monospace,"DejaVu Sans Mono",monospace;min-height:7em}
#stages{margin-top:14px}
#stages dt{font-weight:600;margin-top:8px}
#stages dd{margin:2px 0 0 0}
#stages code{font:12.5px AttnVizUnifont,ui-monospace,"DejaVu Sans Mono",monospace}
#stages .paper{color:#666;font-size:12.5px}
#notes{margin-top:18px;font:12.5px/1.5 AttnVizUnifont,ui-monospace,"DejaVu Sans Mono",monospace;white-space:pre-wrap}
)";

constexpr const char* map_page_script = R"JS(
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("attnviz-data").textContent);
  var canvas = document.getElementById("map"), ctx = canvas.getContext("2d");
  var pick = {variant: document.getElementById("variant"), head: document.getElementById("head"),
              matrix: document.getElementById("matrix")};
  var hoverBox = document.getElementById("hover"), explainBox = document.getElementById("explain");
  var state = {panel: 0, view: 0, matrix: "weights", hover: null};
  var layout = null;

  function option(select, value, text) {
    var o = document.createElement("option");
    o.value = value; o.textContent = text; select.appendChild(o);
  }
  function panel() { return data.panels[state.panel]; }
  function view() { return panel().views[state.view]; }
  function values() { return view()[state.matrix] || view().weights; }
  function range() { var v = view(); return state.matrix === "scores" && v.scores ? v.scores_range : v.weights_range; }
  function colours() { return state.matrix === "scores" && view().scores ? data.colormaps.scores : data.colormaps.weights; }
  function position(x, r) {
    var s = data.scale, t = r[1] > r[0] ? (x - r[0]) / (r[1] - r[0]) : 0;
    if (s && s.matrix === (state.matrix === "scores" && view().scores ? "scores" : "weights")) {
      if (s.mapping === "log") t = x > r[0] ? Math.log(x / r[0]) / Math.log(r[1] / r[0]) : 0;
      else t = Math.pow(Math.max(0, Math.min(1, t)), s.gamma);
    }
    return isFinite(t) ? Math.max(0, Math.min(1, t)) : 0;
  }
  function colour(x) {
    var r = range(), c = colours(), t = position(x, r);
    return c[Math.max(0, Math.min(c.length - 1, Math.floor(t * c.length)))];
  }
  function fmt(x) { return " " + x.toFixed(4); }
  function label(t) { return t.length > 16 ? t.substr(0, 15) + "\u2026" : t; }

  function fillSelectors() {
    pick.variant.innerHTML = "";
    data.panels.forEach(function (p, i) { option(pick.variant, i, p.label); });
    pick.variant.parentNode.hidden = data.panels.length < 2;
    pick.head.innerHTML = "";
    panel().views.forEach(function (v, i) { option(pick.head, i, v.label); });
    pick.head.parentNode.hidden = panel().views.length < 2;
    if (state.view >= panel().views.length) state.view = 0;
    pick.head.value = state.view;
    var hasScores = !!view().scores;
    pick.matrix.parentNode.hidden = !hasScores;
    if (!hasScores) state.matrix = "weights";
    pick.matrix.value = state.matrix;
  }

  function stagesText() {
    var dl = document.getElementById("stages");
    dl.innerHTML = "";
    panel().stages.forEach(function (s) {
      var dt = document.createElement("dt");
      dt.textContent = s.stage + ": " + s.name + " — " + s.summary;
      var dd = document.createElement("dd"), code = document.createElement("code");
      code.textContent = s.formula;
      var paper = document.createElement("div");
      paper.className = "paper"; paper.textContent = s.paper;
      dd.appendChild(code); dd.appendChild(paper);
      dl.appendChild(dt); dl.appendChild(dd);
    });
  }

  function draw() {
    var p = panel(), v = values(), nq = p.query_tokens.length, nk = p.key_tokens.length;
    var cell = Math.max(4, Math.min(40, Math.floor(720 / Math.max(nq, nk))));
    var font = Math.max(10, Math.min(14, cell - 3)) + "px AttnVizUnifont, system-ui, sans-serif";
    ctx.font = font;
    // every step-th label, so labels never overlap (rows at least 13 px apart)
    var step = Math.max(1, Math.ceil(13 / cell)), left = 8, top = 8;
    p.query_tokens.forEach(function (t, i) { if (i % step === 0) left = Math.max(left, ctx.measureText(label(t)).width + 12); });
    p.key_tokens.forEach(function (t, j) { if (j % step === 0) top = Math.max(top, ctx.measureText(label(t)).width * 0.75 + 16); });
    var w = Math.ceil(left + nk * cell + 90), h = Math.ceil(top + nq * cell + 12);
    var dpr = window.devicePixelRatio || 1;
    canvas.width = w * dpr; canvas.height = h * dpr;
    canvas.style.width = w + "px"; canvas.style.height = h + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    layout = {left: left, top: top, cell: cell, nq: nq, nk: nk, step: step};
    for (var i = 0; i < nq; i++)
      for (var j = 0; j < nk; j++) {
        ctx.fillStyle = colour(v[i][j]);
        ctx.fillRect(left + j * cell, top + i * cell, cell, cell);
      }
    view().masked.forEach(function (m) {  // masked cells: light grey
      ctx.fillStyle = "#e4e4e4"; ctx.fillRect(left + m[1] * cell, top + m[0] * cell, cell, cell);
    });
    ctx.fillStyle = "#222"; ctx.font = font;
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    p.query_tokens.forEach(function (t, i) {
      if (i % step === 0) ctx.fillText(label(t), left - 6, top + (i + 0.5) * cell);
    });
    ctx.textAlign = "left";
    p.key_tokens.forEach(function (t, j) {
      if (j % step !== 0) return;
      ctx.save(); ctx.translate(left + (j + 0.5) * cell, top - 6); ctx.rotate(-Math.PI / 4);
      ctx.fillText(label(t), 0, 0); ctx.restore();
    });
    // colour bar
    var bx = left + nk * cell + 16, bh = Math.min(nq * cell, 240), c = colours(), r = range();
    for (var k = 0; k < bh; k++) {
      ctx.fillStyle = c[Math.min(c.length - 1, Math.floor((1 - (k + 0.5) / bh) * c.length))];
      ctx.fillRect(bx, top + k, 14, 1);
    }
    ctx.textAlign = "left"; ctx.textBaseline = "middle"; ctx.font = "11px AttnVizUnifont, system-ui, sans-serif";
    ctx.fillText(String(+r[1].toPrecision(3)), bx + 18, top + 5);
    ctx.fillText(String(+r[0].toPrecision(3)), bx + 18, top + bh - 5);
    if (state.hover) {
      var hi = state.hover[0], hj = state.hover[1];
      ctx.strokeStyle = "rgba(255,255,255,0.9)"; ctx.lineWidth = 1;
      ctx.strokeRect(left + 0.5, top + hi * cell + 0.5, nk * cell - 1, cell - 1);
      ctx.strokeStyle = "#000"; ctx.lineWidth = 2;
      ctx.strokeRect(left + hj * cell + 1, top + hi * cell + 1, cell - 2, cell - 2);
    }
  }

  function show(i, j) {
    var p = panel(), vw = view();
    state.hover = [i, j];
    var text = "query \u201c" + p.query_tokens[i] + "\u201d (" + i + ") \u2192 key \u201c" +
               p.key_tokens[j] + "\u201d (" + j + ")\n";
    text += vw.scores ? "score e =" + fmt(vw.scores[i][j]) + "   " : "";
    text += "weight a =" + fmt(vw.weights[i][j]);
    var masked = vw.masked.some(function (m) { return m[0] === i && m[1] === j; });
    if (masked) text += "   (masked)";
    hoverBox.textContent = text;
    explainBox.textContent = vw.explain[i];
    draw();
  }

  canvas.addEventListener("mousemove", function (ev) {
    if (!layout) return;
    var b = canvas.getBoundingClientRect();
    var j = Math.floor((ev.clientX - b.left - layout.left) / layout.cell);
    var i = Math.floor((ev.clientY - b.top - layout.top) / layout.cell);
    if (i >= 0 && j >= 0 && i < layout.nq && j < layout.nk &&
        (!state.hover || state.hover[0] !== i || state.hover[1] !== j)) show(i, j);
  });
  pick.variant.addEventListener("change", function () {
    state.panel = +pick.variant.value; state.hover = null; fillSelectors(); stagesText(); draw();
  });
  pick.head.addEventListener("change", function () {
    state.view = +pick.head.value;
    if (state.hover) show(state.hover[0], state.hover[1]); else draw();
  });
  pick.matrix.addEventListener("change", function () {
    state.matrix = pick.matrix.value; draw();
  });

  window.attnviz = {
    data: data,
    cellCenter: function (i, j) {
      var b = canvas.getBoundingClientRect();
      return {x: b.left + layout.left + (j + 0.5) * layout.cell,
              y: b.top + layout.top + (i + 0.5) * layout.cell};
    },
    labelStep: function () { return layout.step; },
    reveal: function (i, j) {  // scroll the map so that cell (i, j) is in view
      var box = canvas.parentNode;
      box.scrollTop = Math.max(0, layout.top + i * layout.cell - box.clientHeight / 2);
      box.scrollLeft = Math.max(0, layout.left + j * layout.cell - box.clientWidth / 2);
      box.scrollIntoView({block: "nearest", inline: "nearest"});
    }
  };
  fillSelectors(); stagesText(); draw();
  explainBox.textContent = "Hover a cell: its query's row is explained here.";
})();
)JS";

}  // namespace

void check_html_size(const std::vector<html_panel>& panels) {
  std::size_t cells = 0;
  for (const auto& p : panels) {
    const std::size_t views = p.result->heads.size() + (p.result->heads.size() > 1);
    cells += views * p.result->query_tokens.size() * p.result->key_tokens.size();
  }
  if (cells > html_max_cells)
    throw usage_error(fmt::format(
        "{}: the page would hold {} weights (at most {} stay quick in a browser); use {} "
        "or {} for maps this big, or fewer heads or variants",
        param("html"), cells, html_max_cells, param("png"), param("npy")));
}

std::string html_page(const std::vector<html_panel>& panels, const view_options& view,
                      std::string title, std::string subtitle, const std::string& notes) {
  check_html_size(panels);
  apply_titles(view, title, subtitle);
  ojson data;
  data["title"] = title;
  data["subtitle"] = subtitle;
  data["colormaps"] = {
      {"weights", colormap_json(colormap::named_or_default(view.cmap))},
      {"scores", colormap_json(colormap::by_name(view.cmap.empty() ? "rdbu" : view.cmap))}};
  ojson list = ojson::array();
  for (const auto& p : panels) list.push_back(panel_json(p, view));
  if (view.colours.mapping != colour_mapping::linear)  // the page maps values as the PNG does
    data["scale"] = {{"matrix", shown_matrix_name(view.show)},
                     {"mapping", view.colours.mapping == colour_mapping::log ? "log" : "power"},
                     {"gamma", view.colours.gamma}};
  data["panels"] = std::move(list);

  std::string page = html_head(title, map_page_style);
  page += html_title_block(title, subtitle);
  page +=
      "<div class=\"controls\">\n"
      "<label>Variant <select id=\"variant\"></select></label>\n"
      "<label>Head <select id=\"head\"></select></label>\n"
      "<label>Show <select id=\"matrix\"><option value=\"weights\">weights a_ij</option>"
      "<option value=\"scores\">scores e_ij</option></select></label>\n"
      "</div>\n"
      "<div class=\"main\">\n<div class=\"scroll\"><canvas id=\"map\" width=\"10\" "
      "height=\"10\"></canvas></div>\n"
      "<aside>\n<div id=\"hover\">Hover a cell of the map.</div>\n<div id=\"explain\"></div>\n"
      "<dl id=\"stages\"></dl>\n</aside>\n</div>\n";
  if (!notes.empty())
    page += fmt::format("<pre id=\"notes\">{}</pre>\n", escape_html(notes));
  page += html_tail(data, map_page_script);
  return with_label_font(std::move(page));
}

}  // namespace attnviz
