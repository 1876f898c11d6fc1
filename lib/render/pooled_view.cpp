#include "render/pooled_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "number_format.h"
#include "render/font.h"
#include "render/heatmap.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

constexpr int map_gap = 8;

// Token indices to tick: nice multiples in [0, n − 1].
std::vector<std::size_t> token_ticks(std::size_t n) {
  std::vector<std::size_t> out;
  for (double t : nice_ticks(0.0, static_cast<double>(n - 1)))
    if (t >= 0.0 && std::fabs(t - std::round(t)) < 1e-9)
      out.push_back(static_cast<std::size_t>(std::llround(t)));
  if (out.empty()) out.push_back(0);
  return out;
}

std::string axis_name(const std::string& axis, const pool_bins& b) {
  const double per = static_cast<double>(b.n) / static_cast<double>(b.bins);
  if (b.bins == b.n) return fmt::format("{} ({} tokens)", axis, grouped_number(b.n));
  return fmt::format("{} ({} tokens, {:.3g} per pixel)", axis, grouped_number(b.n), per);
}

}  // namespace

int pooled_zoom(const pool_bins& rows, const pool_bins& cols) {
  const std::size_t side = std::max(rows.bins, cols.bins);
  return std::max(1, static_cast<int>(400 / side));
}

figure pooled_heatmap_figure(const pooled_view_spec& spec) {
  const bitmap_font& font = bitmap_font::unifont();
  const matrix& m = *spec.values;
  const colormap& cmap = spec.cmap ? *spec.cmap : colormap::viridis();
  // the data's own range: pooled weights sit far below 1, and their spread is the picture
  float lo = m.size() ? m.data()[0] : 0.0f, hi = lo;
  for (std::size_t i = 0; i < m.size(); ++i) {
    lo = std::min(lo, m.data()[i]);
    hi = std::max(hi, m.data()[i]);
  }
  const double vmin = lo, vmax = hi > lo ? static_cast<double>(hi) : lo + 1e-12;
  const int z = pooled_zoom(spec.rows, spec.cols);
  const int map_w = static_cast<int>(spec.cols.bins) * z,
            map_h = static_cast<int>(spec.rows.bins) * z;
  const int glyph = bitmap_font::height;

  const auto row_ticks = token_ticks(spec.rows.n), col_ticks = token_ticks(spec.cols.n);
  int row_label_w = 0;
  for (auto t : row_ticks)
    row_label_w = std::max(row_label_w, font.text_width(decode_utf8_lossy(std::to_string(t))));
  const std::string row_axis = axis_name(spec.row_axis, spec.rows);
  const std::string col_axis = axis_name(spec.col_axis, spec.cols);

  const int title_h = title_block_height(spec.title, spec.subtitle, 1);
  const int map_x = figure_margin + glyph + map_gap + row_label_w + figure_tick_len + 2;
  const int map_y = figure_margin + title_h + (title_h ? 12 : 0);
  const int bar_x = map_x + map_w + 24;
  const int bar_w = colorbar_width(vmin, vmax, 1);
  const int width =
      std::max({bar_x + bar_w + figure_margin,
                figure_margin + title_block_width(spec.title, spec.subtitle, 1) + figure_margin,
                map_x + font.text_width(decode_utf8_lossy(col_axis)) + figure_margin});
  const int height =
      std::max(map_y + map_h + figure_tick_len + 2 + glyph + map_gap + glyph + figure_margin,
               map_y + font.text_width(decode_utf8_lossy(row_axis)) + figure_margin);
  figure fig(width, height);
  draw_title_block(fig, spec.title, spec.subtitle, 1);

  // the map
  auto pixels =
      std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(map_w) * map_h * 3);
  const double span = vmax > vmin ? vmax - vmin : 1.0;
  for (std::size_t r = 0; r < spec.rows.bins; ++r)
    for (std::size_t c = 0; c < spec.cols.bins; ++c) {
      const rgb colour = cmap.at(std::clamp((m(r, c) - vmin) / span, 0.0, 1.0));
      for (int dy = 0; dy < z; ++dy)
        for (int dx = 0; dx < z; ++dx) {
          const std::size_t p = ((r * z + dy) * static_cast<std::size_t>(map_w) + c * z + dx) * 3;
          (*pixels)[p] = colour.r;
          (*pixels)[p + 1] = colour.g;
          (*pixels)[p + 2] = colour.b;
        }
    }
  fig.image(map_x, map_y, map_w, map_h, std::move(pixels));
  fig.frame(map_x - 1, map_y - 1, map_w + 2, map_h + 2, 1, figure_muted);

  // ticks: at the first pixel of the bin holding the token
  for (auto t : row_ticks) {
    const int y = map_y + static_cast<int>(spec.rows.of(t)) * z;
    const std::u32string label = decode_utf8_lossy(std::to_string(t));
    fig.rect(map_x - 1 - figure_tick_len, y, figure_tick_len, 1, figure_ink);
    fig.text(map_x - 2 - figure_tick_len - font.text_width(label), std::max(map_y, y - glyph / 2),
             label, figure_ink);
  }
  const int tick_y = map_y + map_h + 1;
  for (auto t : col_ticks) {
    const int x = map_x + static_cast<int>(spec.cols.of(t)) * z;
    const std::u32string label = decode_utf8_lossy(std::to_string(t));
    fig.rect(x, tick_y, 1, figure_tick_len, figure_ink);
    fig.text(std::max(map_x, x - font.text_width(label) / 2), tick_y + figure_tick_len + 1, label,
             figure_ink);
  }
  fig.text(map_x, tick_y + figure_tick_len + 1 + glyph + map_gap, decode_utf8_lossy(col_axis),
           figure_ink);
  fig.text(figure_margin, map_y + font.text_width(decode_utf8_lossy(row_axis)),
           decode_utf8_lossy(row_axis), figure_ink, 1, text_direction::upward);
  draw_colorbar(fig, bar_x, map_y, map_h, cmap, vmin, vmax, 1);
  return fig;
}

}  // namespace attnviz
