// render/heatmap.h (with canvas, figure and the PNG and SVG writers it draws through): sizes,
// labels, annotations, colours and layout of one map.
#include <doctest/doctest.h>

#include "helpers.h"
#include "render/canvas.h"
#include "render/colormap.h"
#include "render/font.h"
#include "render/heatmap.h"
#include "text/utf8.h"

using namespace attnviz;
using attnviz::testing::mat;

namespace {

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

bool has_ink(const canvas& img, int x0, int y0, int w, int h) {
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x)
      if (!(img.get(x, y) == rgb{255, 255, 255})) return true;
  return false;
}

}  // namespace

TEST_CASE("value range and ticks are round numbers") {
  CHECK(value_range(mat(1, 3, {0.1f, 0.17f, 0.05f})) == std::pair<double, double>{0.0, 0.2});
  CHECK(value_range(mat(1, 2, {0.3f, 0.9f})) == std::pair<double, double>{0.0, 1.0});
  CHECK(value_range(mat(1, 2, {-3.0f, 7.0f})) == std::pair<double, double>{-5.0, 10.0});
  CHECK(nice_ticks(0.0, 1.0) == std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0});
  CHECK(nice_ticks(0.0, 0.25).size() == 6);
}

TEST_CASE("heatmap: size follows from token count and cell; cells carry their colormap colour") {
  const matrix w = mat(3, 4, {0.1f, 0.2f, 0.3f, 0.4f, 1, 0, 0, 0, 0.25f, 0.25f, 0.25f, 0.25f});
  heatmap_spec spec;
  spec.values = &w;
  spec.row_labels = {"the", "cat", "sat"};
  spec.col_labels = {"a", "b", "c", "dd"};
  spec.title = "title";
  spec.cell = 30;
  const heatmap_layout L = layout_heatmap(spec);
  const canvas img = render_heatmap(spec);
  CHECK(img.width() == L.width);
  CHECK(img.height() == L.height);
  CHECK(L.cell == 30);
  CHECK(L.vmin == 0.0);
  CHECK(L.vmax == 1.0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      const rgb want =
          colormap::viridis().at(w(static_cast<std::size_t>(i), static_cast<std::size_t>(j)));
      CHECK(img.get(L.grid_x + j * 30 + 15, L.grid_y + i * 30 + 15) == want);
      CHECK(img.get(L.grid_x + j * 30 + 1, L.grid_y + i * 30 + 28) == want);
    }
  // one more token column widens the image by exactly one cell
  matrix w5(3, 5, 0.2f);
  w5(0, 0) = 1.0f;  // same colour range, same tick labels
  heatmap_spec wider = spec;
  wider.values = &w5;
  wider.col_labels.push_back("e");
  CHECK(layout_heatmap(wider).width == L.width + 30);
  // colour bar: vmax at the top, vmin at the bottom
  CHECK(img.get(L.bar_x + L.bar_w / 2, L.bar_y) == colormap::viridis().entry(255));
  CHECK(img.get(L.bar_x + L.bar_w / 2, L.bar_y + L.bar_h - 1) == colormap::viridis().entry(0));
  // tick labels right of the bar, row labels left of the grid, column labels below it
  CHECK(has_ink(img, L.bar_x + L.bar_w + 4, L.bar_y - 8, 40, L.bar_h + 16));
  for (int i = 0; i < 3; ++i) CHECK(has_ink(img, L.grid_x - 40, L.grid_y + i * 30, 36, 30));
  for (int j = 0; j < 4; ++j) CHECK(has_ink(img, L.grid_x + j * 30, L.grid_y + 90 + 2, 30, 20));
  CHECK(has_ink(img, 0, 0, L.width, 30));  // title
}

TEST_CASE("auto cell size keeps 5 to 40 tokens legible") {
  for (std::size_t n : {5u, 12u, 40u}) {
    const matrix w(n, n, 1.0f / static_cast<float>(n));
    heatmap_spec spec;
    spec.values = &w;
    const auto L = layout_heatmap(spec);
    CHECK(L.cell >= 18);  // a 16 px glyph fits in every row and column
    CHECK(L.cell <= 48);
  }
}

TEST_CASE("non-ASCII labels render: CJK, accents, controls, invalid UTF-8, over-long tokens") {
  const matrix w(4, 4, 0.25f);
  heatmap_spec spec;
  spec.values = &w;
  spec.row_labels = {"机器", "café", "bad\xff",
                     "a\x01"
                     "b"};
  spec.col_labels = {"学习", "ΣΩ", std::string(200, 'x'), ""};
  const canvas img = render_heatmap(spec);
  const auto L = layout_heatmap(spec);
  CHECK(img.width() == L.width);
  CHECK(L.grid_x < 16 + 16 + 8 + L.max_label_px + 6 + 1);  // the long label was cut
  const std::string png = encode_png(img);
  CHECK(png.substr(1, 3) == "PNG");
  CHECK(be32(png, 16) == static_cast<std::uint32_t>(img.width()));
  CHECK(be32(png, 20) == static_cast<std::uint32_t>(img.height()));
  CHECK(png == encode_png(render_heatmap(spec)));  // deterministic bytes
}

TEST_CASE("text drawing: horizontal and upward text cover the same pixel count") {
  canvas a(64, 64, {255, 255, 255}), b(64, 64, {255, 255, 255});
  a.draw_text(0, 0, U"Hi", {0, 0, 0}, bitmap_font::unifont());
  b.draw_text(0, 63, U"Hi", {0, 0, 0}, bitmap_font::unifont(), text_direction::upward);
  int na = 0, nb = 0;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      na += a.get(x, y) == rgb{0, 0, 0};
      nb += b.get(x, y) == rgb{0, 0, 0};
      // pixel (u, v) of the text lands at (v, 63 - u) when rotated
      if (x < 16 && y < 16)
        CHECK((a.get(x, y) == rgb{0, 0, 0}) == (b.get(y, 63 - x) == rgb{0, 0, 0}));
    }
  CHECK(na > 10);
  CHECK(na == nb);
}

TEST_CASE("annotations: on when every value fits its cell, in a colour that contrasts") {
  const matrix w = mat(2, 2, {0.0f, 1.0f, 0.5f, 0.25f});
  heatmap_spec spec;
  spec.values = &w;
  spec.row_labels = {"a", "b"};
  spec.col_labels = {"x", "y"};
  spec.cell = 48;
  CHECK(layout_heatmap(spec).numbers[3] == "0.25");  // "0.25" is 32 px + 4 <= 48
  spec.cell = 30;
  CHECK(layout_heatmap(spec).numbers[3] == "0.2");  // "0.2" fits, "0.25" does not
  spec.cell = 20;
  CHECK(layout_heatmap(spec).numbers.empty());
  spec.annotate = annotate_mode::on;  // percent fits 20 px but "100" does not: the note says so
  CHECK(layout_heatmap(spec).numbers == std::vector<std::string>{"0", "", "50", "25"});
  CHECK(layout_heatmap(spec).notes ==
        std::vector<std::string>{"numbers in percent (12 = 0.12); 1 of 4 cells blank: no room"});
  spec.annotate = annotate_mode::off;
  spec.cell = 48;
  CHECK(layout_heatmap(spec).numbers.empty());
  spec.annotate = annotate_mode::automatic;
  const figure fig = heatmap_figure(spec);
  int dark_text = 0, light_text = 0;
  for (const auto& it : fig.items()) {
    if (it.what != fig_item::kind::text) continue;
    if (it.text == U"0.00") CHECK(it.color == rgb{255, 255, 255});  // on dark viridis(0)
    if (it.text == U"1.00") CHECK(it.color == rgb{0, 0, 0});        // on yellow viridis(1)
    dark_text += it.text == U"1.00";
    light_text += it.text == U"0.00";
  }
  CHECK(dark_text == 1);
  CHECK(light_text == 1);
}

TEST_CASE("labels and text grow with the cell; tiny cells label every k-th row") {
  const matrix w(4, 4, 0.25f);
  heatmap_spec spec;
  spec.values = &w;
  spec.row_labels = spec.col_labels = {"a", "b", "c", "d"};
  spec.cell = 40;
  CHECK(layout_heatmap(spec).scale == 1);
  spec.cell = 80;
  CHECK(layout_heatmap(spec).scale == 2);
  spec.cell = 8;
  CHECK(layout_heatmap(spec).label_every == 2);
}

TEST_CASE("scores: a centred range for diverging colormaps") {
  CHECK(value_range(mat(1, 3, {-0.3f, 2.2f, 1.0f}), true) == std::pair<double, double>{-2.5, 2.5});
}

TEST_CASE("SVG: text as text, escaped, rotated column labels, same figure same bytes") {
  const matrix w(2, 2, 0.5f);
  heatmap_spec spec;
  spec.values = &w;
  spec.row_labels = {"<a&b>", "机器"};
  spec.col_labels = {"x", "\"q\""};
  spec.title = "t";
  const std::string svg = to_svg(heatmap_figure(spec));
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find(">&lt;a&amp;b&gt;</text>") != std::string::npos);
  CHECK(svg.find(">机器</text>") != std::string::npos);
  CHECK(svg.find(">&quot;q&quot;</text>") != std::string::npos);
  CHECK(svg.find("transform=\"rotate(-90") != std::string::npos);
  CHECK(svg.find("textLength=") != std::string::npos);
  CHECK(svg == to_svg(heatmap_figure(spec)));
}

namespace {
struct box {
  int x0, y0, x1, y1;  // half-open
  bool overlaps(const box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};
box text_box(const fig_item& t) {
  const int w = bitmap_font::unifont().text_width(t.text) * t.scale;
  const int h = bitmap_font::height * t.scale;
  if (t.dir == text_direction::horizontal) return {t.x, t.y, t.x + w, t.y + h};
  return {t.x, t.y - w + 1, t.x + h, t.y + 1};
}
}  // namespace

TEST_CASE("layout never overlaps: labels, ticks, titles and axis names stay apart, inside") {
  for (int cell : {8, 20, 33, 48, 90}) {
    const matrix w(12, 9, 0.1f);
    heatmap_spec spec;
    spec.values = &w;
    spec.row_labels = {"the",    "机器学习很有趣",
                       "a",      "internationalisation-and-more",
                       "ΣΩ",     "x",
                       "y",      "z",
                       "Straße", "café",
                       "l",      "m"};
    spec.col_labels = {"q", "学", "a-very-long-column-label-indeed", "é", "w", "e", "r", "t", "y"};
    spec.title = "a title that is long enough to matter for the layout of the figure";
    spec.subtitle = "subtitle";
    spec.cell = cell;
    spec.annotate = annotate_mode::off;
    const heatmap_layout L = layout_heatmap(spec);
    const figure fig = heatmap_figure(spec);
    const box grid{L.grid_x, L.grid_y, L.grid_x + 9 * L.cell, L.grid_y + 12 * L.cell};
    const box bar{L.bar_x, L.bar_y, L.bar_x + L.bar_w, L.bar_y + L.bar_h};
    std::vector<box> texts;
    for (const auto& it : fig.items())
      if (it.what == fig_item::kind::text) texts.push_back(text_box(it));
    INFO("cell " << cell);
    for (std::size_t a = 0; a < texts.size(); ++a) {
      CHECK_FALSE(texts[a].overlaps(grid));
      CHECK_FALSE(texts[a].overlaps(bar));
      CHECK(texts[a].x0 >= 0);
      CHECK(texts[a].y0 >= 0);
      CHECK(texts[a].x1 <= fig.width());
      CHECK(texts[a].y1 <= fig.height());
      for (std::size_t b = a + 1; b < texts.size(); ++b) CHECK_FALSE(texts[a].overlaps(texts[b]));
    }
    CHECK_FALSE(grid.overlaps(bar));
  }
}

TEST_CASE("a map too long for every label says which it shows; the default size stays printable") {
  CHECK(default_cell(10) == 48);
  CHECK(default_cell(80) == 20);
  CHECK(default_cell(200) == 8);  // 1,600 px of cells, not 4,000
  CHECK(default_cell(5000) == 1);
  const std::size_t n = 200;
  matrix w(n, n);
  for (std::size_t i = 0; i < n; ++i) w(i, i) = 1.0f;
  heatmap_spec spec;
  spec.values = &w;
  for (std::size_t i = 0; i < n; ++i) spec.row_labels.push_back("t" + std::to_string(i));
  spec.col_labels = spec.row_labels;
  const heatmap_layout L = layout_heatmap(spec);
  CHECK(L.cell == 8);
  CHECK(L.label_every == 2);
  CHECK(L.width < 1900);
  REQUIRE(L.notes.size() == 1);
  CHECK(L.notes[0] == "labels: every second of the 200 tokens (no room for the rest: --cell 16 "
                      "labels each)");
  // the note is drawn, once, under the map; the labels drawn are t0, t2, …
  const figure fig = heatmap_figure(spec);
  int notes = 0, t1 = 0, t2 = 0;
  for (const auto& it : fig.items()) {
    if (it.what != fig_item::kind::text) continue;
    const std::string text = attnviz::encode_utf8(it.text);
    notes += text.rfind("labels: every second", 0) == 0;
    t1 += text == "t1";
    t2 += text == "t2";
  }
  CHECK(notes == 1);
  CHECK(t1 == 0);
  CHECK(t2 == 2);  // a row label and a column label
  spec.cell = 16;  // every label has room: no note
  CHECK(layout_heatmap(spec).label_every == 1);
  CHECK(layout_heatmap(spec).notes.empty());
}

TEST_CASE("a long subtitle wraps to the map's width instead of widening the figure") {
  const matrix w(8, 8, 0.125f);
  heatmap_spec spec;
  spec.values = &w;
  spec.row_labels = spec.col_labels = {"a", "b", "c", "d", "e", "f", "g", "h"};
  spec.cell = 40;
  spec.title = "self-attention · scaled_dot";
  const int plain = layout_heatmap(spec).width;
  std::string subtitle;
  for (int k = 0; k < 12; ++k)
    subtitle += std::string(k ? " " : "") + "glove.6B.50d.sample.txt · parameters --seed 42";
  spec.subtitle = subtitle;
  const heatmap_layout L = layout_heatmap(spec);
  CHECK(L.width == plain);
  const int lines = static_cast<int>(subtitle_lines(subtitle, L.subtitle_wrap, L.scale).size());
  CHECK(lines > 2);
  // every line fits, each but the last could not take its next word, and no word is lost
  const bitmap_font& font = bitmap_font::unifont();
  std::u32string joined;
  for (const auto& line : subtitle_lines(subtitle, L.subtitle_wrap, L.scale)) {
    CHECK(font.text_width(line) * L.scale <= L.subtitle_wrap);
    joined += (joined.empty() ? U"" : U" ") + line;
    // broken between " · " parts where they fit, never inside "--seed 42"
    CHECK(line.substr(line.size() - 6) != U"--seed");
  }
  CHECK(joined == decode_utf8_lossy(subtitle));
  // the grid moves down by the extra lines (16 px each and a 2 px gap)
  heatmap_spec short_one = spec;
  short_one.subtitle = "glove";
  CHECK(L.grid_y == layout_heatmap(short_one).grid_y + (lines - 1) * (bitmap_font::height * L.scale + 2));
  // a subtitle that fits stays one line
  CHECK(subtitle_lines("glove", L.subtitle_wrap, L.scale).size() == 1);
}
