#include "render/picture_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/base64.h"
#include "render/html_parts.h"

namespace attnviz {
namespace picture_page_parts {
namespace {

constexpr const char* style = R"(
.vision{display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap}
#view{border:1px solid #ccc;image-rendering:auto}
#thumbs{display:grid;gap:4px;align-items:center}
#thumbs canvas{border:2px solid transparent;cursor:pointer}
#thumbs canvas.pinned{border-color:#d33}
#thumbs span{color:#666;font-size:12px;text-align:center}
#status{color:#444;margin-top:6px;min-height:1.4em}
)";

constexpr const char* script = R"js(
var D = JSON.parse(document.getElementById("attnviz-data").textContent);
var raw = atob(D.pixels), W = D.width, H = D.height, R = D.grid[0], C = D.grid[1];
var pic = document.createElement("canvas"); pic.width = W; pic.height = H;
var img = pic.getContext("2d").createImageData(W, H);
for (var p = 0; p < W * H; ++p) {
  for (var k = 0; k < 3; ++k) img.data[4 * p + k] = raw.charCodeAt(3 * p + k);
  img.data[4 * p + 3] = 255;
}
pic.getContext("2d").putImageData(img, 0, 0);
var all = D.maps.slice(), names = [];
for (var l = 0; l < D.layers; ++l) for (var h = 0; h < D.heads; ++h) names.push("layer " + l + " · head " + h + " · CLS");
D.aggregates.forEach(function (a) { all.push(a.values); names.push(a.label); });
var alpha = D.alpha, pinned = 0, shown = 0;
function heat(values, top) {
  var c = document.createElement("canvas"); c.width = C; c.height = R;
  var g = c.getContext("2d"), d = g.createImageData(C, R);
  for (var i = 0; i < R * C; ++i) {
    var t = Math.max(0, Math.min(255, Math.floor(values[i] / (top || 1) * 255)));
    var hex = D.colormap[t];
    d.data[4 * i] = parseInt(hex.substr(1, 2), 16); d.data[4 * i + 1] = parseInt(hex.substr(3, 2), 16);
    d.data[4 * i + 2] = parseInt(hex.substr(5, 2), 16); d.data[4 * i + 3] = 255;
  }
  g.putImageData(d, 0, 0);
  return c;
}
function paint(canvas, values, top) {
  var g = canvas.getContext("2d");
  g.imageSmoothingEnabled = true;
  g.globalAlpha = 1; g.drawImage(pic, 0, 0, canvas.width, canvas.height);
  g.globalAlpha = alpha; g.drawImage(heat(values, top), 0, 0, canvas.width, canvas.height);
  g.globalAlpha = 1;
}
var view = document.getElementById("view");
var scale = 448 / Math.max(W, H);
view.width = Math.round(W * scale); view.height = Math.round(H * scale);
function topOf(i) { return i < D.maps.length ? D.max : Math.max.apply(null, all[i]); }
function show(i) { shown = i; paint(view, all[i], topOf(i)); document.getElementById("name").textContent = names[i]; }
var thumbs = document.getElementById("thumbs"), cells = [];
thumbs.style.gridTemplateColumns = "auto repeat(" + Math.max(D.heads, D.aggregates.length) + ", auto)";
function addThumb(i) {
  var c = document.createElement("canvas"), t = 72 / Math.max(W, H);
  c.width = Math.round(W * t); c.height = Math.round(H * t); c.title = names[i];
  paint(c, all[i], topOf(i));
  c.onmouseenter = function () { show(i); };
  c.onmouseleave = function () { show(pinned); };
  c.onclick = function () { cells[pinned].classList.remove("pinned"); pinned = i; c.classList.add("pinned"); show(i); };
  cells[i] = c; thumbs.appendChild(c);
}
function label(text) { var s = document.createElement("span"); s.textContent = text; thumbs.appendChild(s); }
label("");
for (var h = 0; h < D.heads; ++h) label("H" + h);
for (var l = 0; l < D.layers; ++l) { label("L" + l); for (var h = 0; h < D.heads; ++h) addThumb(l * D.heads + h); }
label("all");
D.aggregates.forEach(function (a, k) { addThumb(D.maps.length + k); });
cells[0].classList.add("pinned");
document.getElementById("alpha").value = alpha;
document.getElementById("alpha").oninput = function (e) {
  alpha = parseFloat(e.target.value);
  cells.forEach(function (c, i) { paint(c, all[i], topOf(i)); });
  show(shown);
};
view.onmousemove = function (e) {
  var r = view.getBoundingClientRect();
  var col = Math.floor((e.clientX - r.left) / r.width * C), row = Math.floor((e.clientY - r.top) / r.height * R);
  if (row < 0 || col < 0 || row >= R || col >= C) return;
  document.getElementById("status").textContent = "patch " + row + "," + col + ": " + all[shown][row * C + col].toFixed(4);
};
show(0);
window.attnviz = {show: show};
)js";

}  // namespace
}  // namespace picture_page_parts

std::string picture_page(const picture_page_spec& s) {
  using namespace picture_page_parts;
  const std::size_t cells = s.grid_rows * s.grid_cols;
  if (!s.picture || s.maps.size() != s.layers * s.heads * cells)
    throw std::logic_error("picture_page: the maps are not [layers, heads, rows, cols]");
  nlohmann::ordered_json data;
  data["title"] = s.title;
  data["subtitle"] = s.subtitle;
  data["width"] = s.picture->width;
  data["height"] = s.picture->height;
  data["pixels"] = base64(std::string(s.picture->rgb.begin(), s.picture->rgb.end()));
  data["grid"] = {s.grid_rows, s.grid_cols};
  data["colormap"] = colormap_json(s.cmap ? *s.cmap : colormap::named_or_default(""));
  data["alpha"] = s.alpha;
  data["layers"] = s.layers;
  data["heads"] = s.heads;
  nlohmann::ordered_json maps = nlohmann::ordered_json::array();
  double most = 0.0;
  for (std::size_t m = 0; m < s.layers * s.heads; ++m) {
    nlohmann::ordered_json one = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < cells; ++k) {
      one.push_back(page_number(s.maps[m * cells + k]));
      most = std::max<double>(most, s.maps[m * cells + k]);
    }
    maps.push_back(std::move(one));
  }
  data["maps"] = std::move(maps);
  nlohmann::ordered_json aggregates = nlohmann::ordered_json::array();
  for (const auto& [label, values] : s.aggregates) {
    nlohmann::ordered_json v = nlohmann::ordered_json::array();
    for (const double x : values) v.push_back(page_number(static_cast<float>(x)));
    aggregates.push_back({{"label", label}, {"values", std::move(v)}});
  }
  data["aggregates"] = std::move(aggregates);
  data["max"] = most;
  std::string page = html_head(s.title, style);
  page += html_title_block(s.title, s.subtitle);
  page +=
      "<div class=\"controls\"><label>Opacity <input id=\"alpha\" type=\"range\" min=\"0\" "
      "max=\"1\" step=\"0.05\"></label></div>\n<div class=\"vision\"><div><canvas "
      "id=\"view\"></canvas><div id=\"name\"></div><div id=\"status\"></div></div>"
      "<div id=\"thumbs\"></div></div>\n";
  page += html_tail(data, script);
  return with_label_font(std::move(page));
}

}  // namespace attnviz
