#include "render/heatmap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "text/utf8.h"

namespace attnviz {
namespace {

constexpr int margin = 16;
constexpr int label_gap = 6;
constexpr int bar_gap = 24;
constexpr int bar_width = 18;
constexpr int tick_len = 4;
constexpr int label_max_px = 20 * 8;  // 20 narrow characters
constexpr rgb background{255, 255, 255};
constexpr rgb ink{34, 34, 34};
constexpr rgb muted{102, 102, 102};

double nice_at_or_above(double x) {
  if (x <= 0.0) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= x * (1 - 1e-12)) return m * p;
  return 10.0 * p;
}

std::string tick_label(double v) {
  if (std::fabs(v) < 1e-12) v = 0.0;
  return fmt::format("{:g}", v);
}

std::u32string label_text(const std::string& s, const bitmap_font& font) {
  std::u32string cps = decode_utf8_lossy(s);
  for (auto& cp : cps)
    if (is_control(cp)) cp = 0xfffd;
  return fit_text(cps, label_max_px, font);
}

int auto_cell(std::size_t n) {
  const int c =
      static_cast<int>(std::lround(720.0 / static_cast<double>(std::max<std::size_t>(n, 1))));
  return std::clamp(c, 20, 48);
}

}  // namespace

std::pair<double, double> value_range(const matrix& values) {
  double lo = 0.0, hi = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values.data()[i];
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo < 0.0) lo = -nice_at_or_above(-lo);
  hi = hi > 0.0 ? nice_at_or_above(hi) : (lo < 0.0 ? 0.0 : 1.0);
  return {lo, hi};
}

std::vector<double> nice_ticks(double vmin, double vmax) {
  std::vector<double> ticks;
  const double span = vmax - vmin;
  if (!(span > 0.0)) return {vmin};
  double step = 0.0;
  const double p = std::pow(10.0, std::floor(std::log10(span)) - 1);
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 50.0, 100.0}) {
    step = m * p;
    if (span / step <= 5.0 + 1e-9) break;
  }
  const double first = std::ceil(vmin / step - 1e-9) * step;
  for (double t = first; t <= vmax + step * 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

heatmap_layout layout_heatmap(const heatmap_spec& spec) {
  const bitmap_font& font = bitmap_font::unifont();
  const matrix& m = *spec.values;
  heatmap_layout L;
  L.cell = spec.cell > 0 ? spec.cell : auto_cell(std::max(m.rows(), m.cols()));
  L.max_label_px = label_max_px;
  if (spec.vmax > spec.vmin) {
    L.vmin = spec.vmin;
    L.vmax = spec.vmax;
  } else {
    std::tie(L.vmin, L.vmax) = value_range(m);
  }
  L.ticks = nice_ticks(L.vmin, L.vmax);

  int row_label_w = 0, col_label_w = 0;
  for (const auto& s : spec.row_labels)
    row_label_w = std::max(row_label_w, font.text_width(label_text(s, font)));
  for (const auto& s : spec.col_labels)
    col_label_w = std::max(col_label_w, font.text_width(label_text(s, font)));
  int tick_w = 0;
  for (double t : L.ticks)
    tick_w = std::max(tick_w, font.text_width(decode_utf8_lossy(tick_label(t))));

  const int grid_w = L.cell * static_cast<int>(m.cols());
  const int grid_h = L.cell * static_cast<int>(m.rows());
  const int title_h = bitmap_font::height * 2 + 4 + 12;
  L.grid_x = margin + bitmap_font::height + 8 + row_label_w + label_gap;
  L.grid_y = margin + title_h;
  L.bar_x = L.grid_x + grid_w + bar_gap;
  L.bar_y = L.grid_y;
  L.bar_w = bar_width;
  L.bar_h = std::max(grid_h, 120);
  const int right = L.bar_x + L.bar_w + tick_len + 4 + tick_w + margin;
  const int title_w = std::max(font.text_width(decode_utf8_lossy(spec.title)),
                               font.text_width(decode_utf8_lossy(spec.subtitle)));
  L.width = std::max(right, margin + title_w + margin);
  const int below_grid = L.grid_y + grid_h + label_gap + col_label_w + 8 + bitmap_font::height;
  L.height = std::max(below_grid, L.bar_y + L.bar_h + bitmap_font::height / 2) + margin;
  return L;
}

canvas render_heatmap(const heatmap_spec& spec) {
  const bitmap_font& font = bitmap_font::unifont();
  const colormap& cmap = spec.cmap ? *spec.cmap : colormap::viridis();
  const matrix& m = *spec.values;
  const heatmap_layout L = layout_heatmap(spec);
  canvas img(L.width, L.height, background);
  const int n_rows = static_cast<int>(m.rows()), n_cols = static_cast<int>(m.cols());
  const double span = L.vmax - L.vmin;
  auto colour_of = [&](double v) { return cmap.at(span > 0 ? (v - L.vmin) / span : 0.0); };

  // title and subtitle
  img.draw_text(margin, margin, decode_utf8_lossy(spec.title), ink, font);
  img.draw_text(margin, margin + bitmap_font::height + 4, decode_utf8_lossy(spec.subtitle), muted,
                font);

  // cells
  for (int i = 0; i < n_rows; ++i)
    for (int j = 0; j < n_cols; ++j)
      img.fill_rect(L.grid_x + j * L.cell, L.grid_y + i * L.cell, L.cell, L.cell,
                    colour_of(m(static_cast<std::size_t>(i), static_cast<std::size_t>(j))));
  for (std::size_t i = 0; i < spec.marked_col_per_row.size() && i < m.rows(); ++i) {
    const int j = spec.marked_col_per_row[i];
    if (j < 0 || j >= n_cols) continue;
    const rgb c = colour_of(m(i, static_cast<std::size_t>(j)));
    const rgb outline = luminance(c) > 0.4 ? rgb{0, 0, 0} : rgb{255, 255, 255};
    img.stroke_rect(L.grid_x + j * L.cell + 1, L.grid_y + static_cast<int>(i) * L.cell + 1,
                    L.cell - 2, L.cell - 2, 2, outline);
  }
  img.stroke_rect(L.grid_x - 1, L.grid_y - 1, n_cols * L.cell + 2, n_rows * L.cell + 2, 1, muted);

  // row labels: right-aligned, vertically centred
  const int text_off = (L.cell - bitmap_font::height) / 2;
  for (int i = 0; i < n_rows && i < static_cast<int>(spec.row_labels.size()); ++i) {
    const auto t = label_text(spec.row_labels[static_cast<std::size_t>(i)], font);
    img.draw_text(L.grid_x - label_gap - font.text_width(t), L.grid_y + i * L.cell + text_off, t,
                  ink, font);
  }
  // column labels: rotated, read bottom to top, ending just below the grid
  const int grid_bottom = L.grid_y + n_rows * L.cell;
  for (int j = 0; j < n_cols && j < static_cast<int>(spec.col_labels.size()); ++j) {
    const auto t = label_text(spec.col_labels[static_cast<std::size_t>(j)], font);
    img.draw_text(L.grid_x + j * L.cell + text_off,
                  grid_bottom + label_gap + font.text_width(t) - 1, t, ink, font,
                  text_direction::upward);
  }
  // axis names
  int col_label_w = 0;
  for (const auto& s : spec.col_labels)
    col_label_w = std::max(col_label_w, font.text_width(label_text(s, font)));
  const auto col_axis = decode_utf8_lossy(spec.col_axis);
  img.draw_text(L.grid_x + (n_cols * L.cell - font.text_width(col_axis)) / 2,
                grid_bottom + label_gap + col_label_w + 8, col_axis, muted, font);
  const auto row_axis = decode_utf8_lossy(spec.row_axis);
  img.draw_text(margin, L.grid_y + (n_rows * L.cell + font.text_width(row_axis)) / 2, row_axis,
                muted, font, text_direction::upward);

  // colour bar: top row = vmax, bottom row = vmin; one colour per pixel row
  for (int y = 0; y < L.bar_h; ++y) {
    const double t = 1.0 - static_cast<double>(y) / (L.bar_h - 1);
    img.fill_rect(L.bar_x, L.bar_y + y, L.bar_w, 1, cmap.at(t));
  }
  img.stroke_rect(L.bar_x - 1, L.bar_y - 1, L.bar_w + 2, L.bar_h + 2, 1, muted);
  for (double tv : L.ticks) {
    const double t = span > 0 ? (tv - L.vmin) / span : 0.0;
    const int y = L.bar_y + static_cast<int>(std::lround((1.0 - t) * (L.bar_h - 1)));
    img.fill_rect(L.bar_x + L.bar_w, y, tick_len, 1, ink);
    img.draw_text(L.bar_x + L.bar_w + tick_len + 4, y - bitmap_font::height / 2,
                  decode_utf8_lossy(tick_label(tv)), ink, font);
  }
  return img;
}

}  // namespace attnviz
