#include "render/picture_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "render/font.h"
#include "render/heatmap.h"
#include "text/utf8.h"

namespace attnviz {
namespace picture_view_parts {
namespace {

constexpr int overlay_gap = 8;
constexpr int title_wrap = 720;  // a subtitle wider than this breaks into lines

// Bilinear sample of a rows × cols grid at (y, x) in grid units (cell centres at k + ½),
// clamped at the border.
double sample(const std::vector<double>& v, std::size_t rows, std::size_t cols, double y,
              double x) {
  const double fy = std::clamp(y - 0.5, 0.0, static_cast<double>(rows - 1));
  const double fx = std::clamp(x - 0.5, 0.0, static_cast<double>(cols - 1));
  const auto y0 = static_cast<std::size_t>(fy), x0 = static_cast<std::size_t>(fx);
  const std::size_t y1 = std::min(y0 + 1, rows - 1), x1 = std::min(x0 + 1, cols - 1);
  const double ty = fy - static_cast<double>(y0), tx = fx - static_cast<double>(x0);
  const double top = v[y0 * cols + x0] * (1 - tx) + v[y0 * cols + x1] * tx;
  const double bottom = v[y1 * cols + x0] * (1 - tx) + v[y1 * cols + x1] * tx;
  return top * (1 - ty) + bottom * ty;
}

// The picture's channel c at (y, x) in its own pixels (bilinear, centres at k + ½).
double picture_at(const rgb_image& p, double y, double x, std::size_t c) {
  const double fy = std::clamp(y - 0.5, 0.0, static_cast<double>(p.height - 1));
  const double fx = std::clamp(x - 0.5, 0.0, static_cast<double>(p.width - 1));
  const auto y0 = static_cast<std::size_t>(fy), x0 = static_cast<std::size_t>(fx);
  const std::size_t y1 = std::min(y0 + 1, p.height - 1), x1 = std::min(x0 + 1, p.width - 1);
  const double ty = fy - static_cast<double>(y0), tx = fx - static_cast<double>(x0);
  const double top = p.at(y0, x0, c) * (1 - tx) + p.at(y0, x1, c) * tx;
  const double bottom = p.at(y1, x0, c) * (1 - tx) + p.at(y1, x1, c) * tx;
  return top * (1 - ty) + bottom * ty;
}

double largest(const std::vector<double>& v) {
  double m = 0.0;
  for (const double x : v) m = std::max(m, x);
  return m;
}

double smallest_positive(const std::vector<double>& v) {
  double m = 0.0;
  for (const double x : v)
    if (x > 0.0 && (m == 0.0 || x < m)) m = x;
  return m;
}

// A panel's size: its longer side `side`, the picture's aspect.
void panel_size(const picture_view_spec& s, int side, int& w, int& h) {
  const double aspect =
      static_cast<double>(s.picture->width) / static_cast<double>(s.picture->height);
  w = aspect >= 1.0 ? side : std::max(1, static_cast<int>(std::lround(side * aspect)));
  h = aspect >= 1.0 ? std::max(1, static_cast<int>(std::lround(side / aspect))) : side;
}

int default_side(const picture_view_spec& s) {
  if (s.size > 0) return s.size;
  const std::size_t most = std::max(s.panel_rows, s.panel_cols);
  if (most <= 1) return 448;
  return std::clamp(static_cast<int>(1600 / most), 64, 224);
}

// Where everything of the figure goes, and the shared colour range.
struct picture_layout {
  int w = 0, h = 0;  // a panel
  bool per_panel = false;
  double vmin = 0.0, vmax = 1.0;
  int grid_x = 0, grid_y = 0, cell_w = 0, cell_h = 0, grid_h = 0, bar_x = 0;
  int width = 0, height = 0;
};

picture_layout layout_of(const picture_view_spec& spec) {
  const bitmap_font& font = bitmap_font::unifont();
  const int glyph_h = bitmap_font::height;
  picture_layout g;
  panel_size(spec, default_side(spec), g.w, g.h);
  g.per_panel = spec.scale == scale_mode::panel;
  double most = 0.0, least = 0.0;
  for (const auto& v : spec.panels) {
    most = std::max(most, largest(v));
    const double s = smallest_positive(v);
    if (s > 0.0 && (least == 0.0 || s < least)) least = s;
  }
  std::tie(g.vmin, g.vmax) = resolve_range(spec.colours, {0.0, nice_at_or_above(most)}, least);
  int label_w = 0;
  for (const auto& l : spec.row_labels)
    label_w = std::max(label_w, font.text_width(decode_utf8_lossy(l)));
  const int top_labels = spec.col_labels.empty() ? 0 : glyph_h + 6;
  g.grid_x = figure_margin + (label_w ? label_w + 8 : 0);
  g.grid_y =
      figure_margin + title_block_height(spec.title, spec.subtitle, 1, title_wrap) + top_labels;
  g.cell_w = g.w + overlay_gap;
  g.cell_h = g.h + (g.per_panel ? glyph_h + 2 : 0) + overlay_gap;
  const int grid_w = static_cast<int>(spec.panel_cols) * g.cell_w - overlay_gap;
  g.grid_h = static_cast<int>(spec.panel_rows) * g.cell_h - overlay_gap;
  g.bar_x = g.grid_x + grid_w + figure_bar_gap;
  const int bar_w =
      g.per_panel ? 0 : colorbar_width(g.vmin, g.vmax, 1, spec.colours) + figure_bar_gap;
  g.width =
      std::max(g.bar_x + bar_w + figure_margin - (g.per_panel ? figure_bar_gap : 0),
               2 * figure_margin + title_block_width(spec.title, spec.subtitle, 1, title_wrap));
  g.height = g.grid_y + g.grid_h + figure_margin;
  return g;
}

// The columns' labels above the grid and the rows' left of it.
void draw_labels(figure& fig, const picture_view_spec& spec, const picture_layout& g) {
  const bitmap_font& font = bitmap_font::unifont();
  const int glyph_h = bitmap_font::height;
  for (std::size_t c = 0; c < spec.col_labels.size() && c < spec.panel_cols; ++c) {
    const std::u32string label = fit_text(decode_utf8_lossy(spec.col_labels[c]), g.w, font);
    fig.text(g.grid_x + static_cast<int>(c) * g.cell_w + (g.w - font.text_width(label)) / 2,
             g.grid_y - glyph_h - 4, label, figure_muted);
  }
  for (std::size_t r = 0; r < spec.row_labels.size() && r < spec.panel_rows; ++r) {
    const std::u32string label = decode_utf8_lossy(spec.row_labels[r]);
    fig.text(g.grid_x - 8 - font.text_width(label),
             g.grid_y + static_cast<int>(r) * g.cell_h + (g.h - glyph_h) / 2, label, figure_muted);
  }
}

// The picture resized to w × h (bilinear, centres at k + ½), once for every panel: h × w × 3.
std::vector<double> resized_picture(const rgb_image& p, int w, int h) {
  std::vector<double> base(static_cast<std::size_t>(w) * h * 3);
  const double sy = static_cast<double>(p.height) / h, sx = static_cast<double>(p.width) / w;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (std::size_t k = 0; k < 3; ++k)
        base[(static_cast<std::size_t>(y) * w + x) * 3 + k] =
            picture_at(p, (y + 0.5) * sy, (x + 0.5) * sx, k);
  return base;
}

// One panel's pixels (w × h RGB) over [lo, hi]: the values upsampled, coloured and blended
// over `base` (the resized picture) at the spec's alpha.
std::shared_ptr<std::vector<std::uint8_t>> picture_panel(const picture_view_spec& spec,
                                                         const std::vector<double>& base,
                                                         const std::vector<double>& values, int w,
                                                         int h, double lo, double hi) {
  const colormap& cmap = spec.cmap ? *spec.cmap : colormap::named_or_default("inferno");
  auto px = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(w) * h * 3);
  const double gy = static_cast<double>(spec.grid_rows) / h,
               gx = static_cast<double>(spec.grid_cols) / w;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double v =
          sample(values, spec.grid_rows, spec.grid_cols, (y + 0.5) * gy, (x + 0.5) * gx);
      const rgb c = cmap.at(scale_position(spec.colours, v, lo, hi));
      const std::uint8_t heat[3] = {c.r, c.g, c.b};
      const std::size_t at = (static_cast<std::size_t>(y) * w + x) * 3;
      for (std::size_t k = 0; k < 3; ++k)
        (*px)[at + k] = static_cast<std::uint8_t>(std::lround(
            std::clamp((1 - spec.alpha) * base[at + k] + spec.alpha * heat[k], 0.0, 255.0)));
    }
  return px;
}

}  // namespace
}  // namespace picture_view_parts

figure picture_view_figure(const picture_view_spec& spec) {
  using namespace picture_view_parts;
  if (!spec.picture || spec.panels.size() != spec.panel_rows * spec.panel_cols)
    throw std::logic_error("picture_view: panels do not fill the grid");
  picture_layout g = layout_of(spec);
  figure fig(g.width, g.height);
  draw_title_block(fig, spec.title, spec.subtitle, 1, title_wrap);
  draw_labels(fig, spec, g);
  const bitmap_font& font = bitmap_font::unifont();
  const std::vector<double> base = resized_picture(*spec.picture, g.w, g.h);
  for (std::size_t r = 0; r < spec.panel_rows; ++r)
    for (std::size_t c = 0; c < spec.panel_cols; ++c) {
      const int x = g.grid_x + static_cast<int>(c) * g.cell_w;
      const int y = g.grid_y + static_cast<int>(r) * g.cell_h;
      const std::vector<double>& v = spec.panels[r * spec.panel_cols + c];
      double lo = g.vmin, hi = g.vmax;
      if (g.per_panel)
        std::tie(lo, hi) =
            resolve_range(spec.colours, {0.0, nice_at_or_above(largest(v))}, smallest_positive(v));
      fig.image(x, y, g.w, g.h, picture_panel(spec, base, v, g.w, g.h, lo, hi));
      if (g.per_panel)
        fig.text(x, y + g.h + 2,
                 fit_text(decode_utf8_lossy(fmt::format("{:g}-{:g}", lo, hi)), g.w, font),
                 figure_muted);
    }
  if (!g.per_panel)
    draw_colorbar(fig, g.bar_x, g.grid_y, std::min(g.grid_h, std::max(160, g.h)),
                  spec.cmap ? *spec.cmap : colormap::named_or_default("inferno"), g.vmin, g.vmax, 1,
                  spec.colours);
  return fig;
}

}  // namespace attnviz
