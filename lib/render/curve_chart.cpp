#include "render/curve_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "render/font.h"
#include "render/heatmap.h"
#include "text/utf8.h"

namespace attnviz {

namespace curve_chart_parts {

constexpr int panel_w = 400, panel_h = 260, panel_gap = 56, line_h = 18, tick_gap = 6;
constexpr rgb grid_grey{225, 225, 225}, baseline_grey{150, 150, 150};

int width_of(const std::string& s) {
  return bitmap_font::unifont().text_width(decode_utf8_lossy(s));
}

// A round step (1, 2, 2.5, 5 × 10^k) giving about `ticks` intervals over [lo, hi].
double tick_step(double lo, double hi, int ticks) {
  const double raw = std::max((hi - lo) / ticks, 1e-12);
  const double base = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * base >= raw) return m * base;
  return 10.0 * base;
}

std::string tick_text(double v, double step) {
  const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
  return fmt::format("{:.{}f}", std::abs(v) < step * 1e-6 ? 0.0 : v, decimals);
}

struct y_range {
  double lo, hi, step;
};

// The range every panel shares: the values' with 0 inside, widened to whole steps.
y_range range_of(const curve_chart_spec& s) {
  double lo = 0.0, hi = 0.0;
  for (const chart_panel& p : s.panels)
    for (const chart_series& c : p.series)
      for (const double v : c.y)
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (hi - lo < 1e-9) hi = lo + 1.0;
  const double step = tick_step(lo, hi, 5);
  return {std::floor(lo / step) * step, std::ceil(hi / step) * step, step};
}

struct frame_box {
  int x, y, w, h;
  double x0, x1;
  y_range yr;
  int px(double v) const { return x + static_cast<int>(std::lround((v - x0) / (x1 - x0) * w)); }
  int py(double v) const {
    return y + h - static_cast<int>(std::lround((v - yr.lo) / (yr.hi - yr.lo) * h));
  }
};

void draw_axes(figure& fig, const frame_box& b, const curve_chart_spec& s) {
  for (double v = b.yr.lo; v <= b.yr.hi + b.yr.step * 1e-6; v += b.yr.step) {
    const int y = b.py(v);
    fig.rect(b.x, y, b.w, 1, std::abs(v) < b.yr.step * 1e-6 ? figure_muted : grid_grey);
    const std::string t = tick_text(v, b.yr.step);
    fig.text(b.x - tick_gap - width_of(t), y - line_h / 2 + 1, decode_utf8_lossy(t), figure_muted);
  }
  for (const double xv : s.x) {
    const int x = b.px(xv);
    fig.rect(x, b.y + b.h, 1, figure_tick_len, figure_muted);
    const std::string t = fmt::format("{}", xv);
    fig.text(x - width_of(t) / 2, b.y + b.h + figure_tick_len + 2, decode_utf8_lossy(t),
             figure_muted);
  }
  fig.frame(b.x, b.y, b.w + 1, b.h + 1, 1, figure_muted);
}

void draw_series(figure& fig, const frame_box& b, const std::vector<double>& x,
                 const chart_series& c, rgb colour) {
  const double width = c.muted ? 1.5 : 2.5;
  for (std::size_t i = 0; i + 1 < c.y.size() && i + 1 < x.size(); ++i)
    fig.line(b.px(x[i]), b.py(c.y[i]), b.px(x[i + 1]), b.py(c.y[i + 1]), width, colour, 1.0);
  for (std::size_t i = 0; i < c.y.size() && i < x.size(); ++i)
    fig.rect(b.px(x[i]) - 2, b.py(c.y[i]) - 2, 5, 5, colour);
}

using legend_entries = std::vector<std::pair<std::string, rgb>>;

// The first panel's series in drawing order (baselines first) with their colours.
legend_entries legend_of(const chart_panel& panel) {
  legend_entries out;
  std::size_t coloured = 0;
  for (const bool muted_pass : {true, false})
    for (const chart_series& c : panel.series)
      if (c.muted == muted_pass)
        out.emplace_back(c.name, c.muted ? baseline_grey : series_colour(coloured++));
  return out;
}

// The legend's swatches and names in rows `width` wide from (x0, y) (fig null: only counted);
// returns its rows.
int draw_legend(figure* fig, const legend_entries& entries, int x0, int y, int width) {
  int x = x0, rows = 1;
  for (const auto& [name, colour] : entries) {
    const int w = 22 + width_of(name) + 18;
    if (x > x0 && x + w > x0 + width) x = x0, y += line_h + 4, ++rows;
    if (fig) {
      fig->rect(x, y + line_h / 2 - 1, 16, 3, colour);
      fig->text(x + 22, y, decode_utf8_lossy(name), figure_ink);
    }
    x += w;
  }
  return rows;
}

}  // namespace curve_chart_parts

rgb series_colour(std::size_t i) {
  static constexpr rgb okabe_ito[] = {{0, 114, 178},   {213, 94, 0},  {0, 158, 115},
                                      {204, 121, 167}, {230, 159, 0}, {86, 180, 233},
                                      {240, 228, 66},  {0, 0, 0}};
  return okabe_ito[i % (sizeof(okabe_ito) / sizeof(okabe_ito[0]))];
}

figure curve_chart(const curve_chart_spec& s) {
  using namespace curve_chart_parts;
  if (s.x.empty() || s.panels.empty()) throw std::logic_error("curve_chart: nothing to draw");
  const y_range yr = range_of(s);
  int label_w = 0;
  for (double v = yr.lo; v <= yr.hi + yr.step * 1e-6; v += yr.step)
    label_w = std::max(label_w, width_of(tick_text(v, yr.step)));
  const int left = figure_margin + line_h + 4 + label_w + tick_gap;
  const auto P = static_cast<int>(s.panels.size());
  const int plots_w = P * panel_w + (P - 1) * panel_gap;
  const int wrap = left + plots_w - figure_margin;
  const int top = figure_margin + title_block_height(s.title, s.subtitle, 1, wrap) + 12 + line_h;
  const legend_entries legend = legend_of(s.panels.front());
  const int legend_y = top + panel_h + 2 * line_h + 12;
  const int legend_rows = draw_legend(nullptr, legend, left, legend_y, plots_w);
  figure fig(left + plots_w + figure_margin, legend_y + legend_rows * (line_h + 4) + figure_margin);
  draw_title_block(fig, s.title, s.subtitle, 1, wrap);
  const double x0 = s.x.front(), x1 = s.x.size() > 1 ? s.x.back() : s.x.front() + 1.0;
  for (int p = 0; p < P; ++p) {
    const frame_box b{left + p * (panel_w + panel_gap), top, panel_w, panel_h, x0, x1, yr};
    const chart_panel& panel = s.panels[static_cast<std::size_t>(p)];
    fig.text(b.x, top - line_h - 4, decode_utf8_lossy(panel.title), figure_ink);
    draw_axes(fig, b, s);
    std::size_t coloured = 0;
    for (const bool muted_pass : {true, false})  // baselines under the others
      for (const chart_series& c : panel.series)
        if (c.muted == muted_pass)
          draw_series(fig, b, s.x, c, c.muted ? baseline_grey : series_colour(coloured++));
    const int xl = b.x + (b.w - width_of(s.x_label)) / 2;
    fig.text(xl, top + panel_h + figure_tick_len + line_h + 4, decode_utf8_lossy(s.x_label),
             figure_muted);
  }
  fig.text(figure_margin, top + panel_h / 2 + width_of(s.y_label) / 2, decode_utf8_lossy(s.y_label),
           figure_muted, 1, text_direction::upward);
  draw_legend(&fig, legend, left, legend_y, plots_w);
  return fig;
}

}  // namespace attnviz
