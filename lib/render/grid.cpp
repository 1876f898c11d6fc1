#include "render/grid.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "render/font.h"

namespace attnviz {

int auto_grid_cols(std::size_t n) {
  if (n <= 1) return 1;
  const auto c = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  auto empty = [n](std::size_t cols) { return (n + cols - 1) / cols * cols - n; };
  return static_cast<int>(empty(c + 1) < empty(c) ? c + 1 : c);
}

figure grid_figure(const grid_spec& spec) {
  if (spec.panels.empty()) throw std::logic_error("grid_figure: no panels");
  std::vector<heatmap_spec> panels = spec.panels;
  const colormap& cmap = panels[0].cmap ? *panels[0].cmap : colormap::viridis();

  // shared scale: one range for all, no colour bar in the panels
  double vmin = 0.0, vmax = 0.0;
  if (spec.scale == scale_mode::shared) {
    for (std::size_t k = 0; k < panels.size(); ++k) {
      const auto [lo, hi] = panels[k].vmax > panels[k].vmin
                                ? std::pair{panels[k].vmin, panels[k].vmax}
                                : scale_range(panels[k].scale, *panels[k].values,
                                              panels[k].centered);
      vmin = k == 0 ? lo : std::min(vmin, lo);
      vmax = k == 0 ? hi : std::max(vmax, hi);
    }
    for (auto& p : panels) {
      p.vmin = vmin;
      p.vmax = vmax;
      p.colorbar = false;
    }
  }

  std::vector<figure> figs;
  std::vector<heatmap_layout> layouts;
  for (const auto& p : panels) {
    layouts.push_back(layout_heatmap(p));
    figs.push_back(heatmap_figure(p));
  }
  const int n = static_cast<int>(panels.size());
  const int cols = std::clamp(spec.cols > 0 ? spec.cols : auto_grid_cols(panels.size()), 1, n);
  const int rows = (n + cols - 1) / cols;
  // each column as wide as its widest panel, each row as tall as its tallest (panels of
  // different sizes, e.g. the transformer's three attentions, sit without gaps)
  std::vector<int> col_x(static_cast<std::size_t>(cols) + 1, 0),
      row_y(static_cast<std::size_t>(rows) + 1, 0);
  for (int k = 0; k < n; ++k) {
    auto& w = col_x[static_cast<std::size_t>(k % cols) + 1];
    auto& h = row_y[static_cast<std::size_t>(k / cols) + 1];
    w = std::max(w, figs[static_cast<std::size_t>(k)].width());
    h = std::max(h, figs[static_cast<std::size_t>(k)].height());
  }
  for (std::size_t c = 1; c < col_x.size(); ++c) col_x[c] += col_x[c - 1];
  for (std::size_t r = 1; r < row_y.size(); ++r) row_y[r] += row_y[r - 1];

  const int s = layouts[0].scale, glyph_h = bitmap_font::height * s;
  const int top = figure_margin + title_block_height(spec.title, spec.subtitle, s) + 4;
  int width = col_x.back();
  int bar_x = 0, bar_y = 0, bar_h = 0;
  if (spec.scale == scale_mode::shared) {
    bar_x = width + figure_bar_gap - figure_margin;
    bar_y = top + layouts[0].grid_y;
    bar_h = row_y[static_cast<std::size_t>(rows) - 1] +
            layouts[0].cell * static_cast<int>(panels[0].values->rows());
    bar_h = std::max(bar_h, 120);
    width = bar_x + colorbar_width(vmin, vmax, s, panels[0].scale) + figure_margin;
  }
  width = std::max(width, 2 * figure_margin + title_block_width(spec.title, spec.subtitle, s));
  const int height = std::max(top + row_y.back(), bar_y + bar_h + glyph_h / 2 + figure_margin);

  figure fig(width, height);
  draw_title_block(fig, spec.title, spec.subtitle, s);
  for (int k = 0; k < n; ++k)
    fig.append(figs[static_cast<std::size_t>(k)], col_x[static_cast<std::size_t>(k % cols)],
               top + row_y[static_cast<std::size_t>(k / cols)]);
  if (spec.scale == scale_mode::shared)
    draw_colorbar(fig, bar_x, bar_y, bar_h, cmap, vmin, vmax, s, panels[0].scale);
  return fig;
}

}  // namespace attnviz
