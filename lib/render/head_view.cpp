#include "render/head_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "render/font.h"
#include "render/heatmap.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

constexpr int line_row_h = 18, line_gap = 150, panel_gap = 40, label_pad = 6, max_label = 16;
// Tableau 10
constexpr rgb palette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},  {214, 39, 40},
                           {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {127, 127, 127},
                           {188, 189, 34},  {23, 190, 207}};

rgb head_colour(std::size_t h) { return palette[h % std::size(palette)]; }

std::u32string label(const std::string& token, const bitmap_font& font) {
  std::u32string t = decode_utf8_lossy(token);
  if (t.size() > max_label) t = t.substr(0, max_label - 1) + U"…";
  return fit_text(t, max_label * 8 * 2, font);
}

}  // namespace

figure head_view_figure(const head_view_spec& spec) {
  if (spec.maps.size() != spec.heads || spec.n == 0 || spec.tokens.size() != spec.n)
    throw std::logic_error("head_view_figure: maps and tokens do not match");
  std::vector<std::size_t> shown = spec.shown;
  if (shown.empty())
    for (std::size_t h = 0; h < spec.heads; ++h) shown.push_back(h);
  for (const std::size_t h : shown)
    if (h >= spec.heads || !spec.maps[h])
      throw std::logic_error("head_view_figure: a head shown was not kept");
  const bitmap_font& font = bitmap_font::unifont();
  const std::size_t n = spec.n;
  std::vector<std::u32string> labels;
  int label_w = 0;
  for (const auto& t : spec.tokens) {
    labels.push_back(label(t, font));
    label_w = std::max(label_w, font.text_width(labels.back()));
  }
  label_w = std::max(label_w, font.text_width(U"queries"));  // the columns' headers fit too
  const int panel_w = 2 * (label_w + label_pad) + line_gap;
  const std::size_t panels = spec.overlay ? 1 : shown.size();
  const int title_h = title_block_height(spec.title, spec.subtitle, 1);
  // rows above the tokens: the legend ("■ H3" per head), each panel's "head N" (apart), and
  // each column's header ("queries" left, "keys" right)
  const int glyph_h = bitmap_font::height;
  const int legend_y = figure_margin + title_h + 4;
  const int head_y = legend_y + glyph_h + 12;
  const int columns_y = head_y + (spec.overlay ? 0 : glyph_h + 6);
  const int top = columns_y + glyph_h + 8;
  const int width = std::max(2 * figure_margin + static_cast<int>(panels) * (panel_w + panel_gap) -
                                 panel_gap,
                             2 * figure_margin + title_block_width(spec.title, spec.subtitle, 1));
  const int height = top + static_cast<int>(n) * line_row_h + figure_margin;
  figure fig(width, height);
  draw_title_block(fig, spec.title, spec.subtitle, 1);
  int lx = figure_margin;
  for (const std::size_t h : shown) {
    fig.rect(lx, legend_y + 3, 10, 10, head_colour(h));
    const std::u32string name = decode_utf8_lossy(fmt::format("H{}", h));
    fig.text(lx + 14, legend_y, name, figure_ink);
    lx += 14 + font.text_width(name) + 16;
  }
  for (std::size_t p = 0; p < panels; ++p) {
    const int x0 = figure_margin + static_cast<int>(p) * (panel_w + panel_gap);
    const int left_end = x0 + label_w + label_pad;  // where the lines start
    const int right_start = left_end + line_gap;
    for (std::size_t i = 0; i < n; ++i) {
      const int y = top + static_cast<int>(i) * line_row_h;
      fig.text(left_end - label_pad - font.text_width(labels[i]), y, labels[i], figure_ink);
      fig.text(right_start + label_pad, y, labels[i], figure_ink);
    }
    if (!spec.overlay) {
      const std::u32string name = decode_utf8_lossy(fmt::format("head {}", shown[p]));
      fig.text(x0 + (panel_w - font.text_width(name)) / 2, head_y, name, figure_ink);
    }
    fig.text(left_end - label_pad - font.text_width(U"queries"), columns_y, U"queries",
             figure_muted);
    fig.text(right_start + label_pad, columns_y, U"keys", figure_muted);
    const std::vector<std::size_t> heads =
        spec.overlay ? shown : std::vector<std::size_t>{shown[p]};
    for (const std::size_t h : heads) {
      const float* a = spec.maps[h];
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          const double w = a[i * n + j];
          if (!(w >= spec.min_weight)) continue;
          const int yi = top + static_cast<int>(i) * line_row_h + line_row_h / 2 - 1;
          const int yj = top + static_cast<int>(j) * line_row_h + line_row_h / 2 - 1;
          fig.line(left_end, yi, right_start, yj, 2.0, head_colour(h), std::min(1.0, w));
        }
    }
  }
  return fig;
}

}  // namespace attnviz
