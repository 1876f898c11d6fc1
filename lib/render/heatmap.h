// A labelled heatmap: rows = queries, columns = keys, every label on both axes (column labels
// rotated), a colour bar with value ticks, a title, axis names.
//
//   ┌──────────────────────────────────────────────┐
//   │ title                                         │
//   │ subtitle                                      │
//   │ q ┌label┐┌───────── cells ─────────┐  ┌bar┐ tick
//   │ u │ row ││                         │  │   │ tick
//   │ e │     ││                         │  │   │
//   │   └─────┘└─────────────────────────┘  └───┘
//   │          rotated column labels
//   │                  keys
//   └──────────────────────────────────────────────┘
#pragma once

#include <string>
#include <vector>

#include "render/canvas.h"
#include "render/colormap.h"
#include "tensor.h"

namespace attnviz {

struct heatmap_spec {
  const matrix* values = nullptr;       // n_rows × n_cols
  std::vector<std::string> row_labels;  // UTF-8, one per row
  std::vector<std::string> col_labels;  // UTF-8, one per column
  std::string title;
  std::string subtitle;
  std::string row_axis = "queries";
  std::string col_axis = "keys";
  double vmin = 0.0;
  double vmax = 0.0;                    // vmax <= vmin: auto (see value_range)
  int cell = 0;                         // pixels per cell; 0: auto
  const colormap* cmap = nullptr;       // nullptr: viridis
  std::vector<int> marked_col_per_row;  // optional: outline cell (i, marked[i]) (hard context)
};

struct heatmap_layout {
  int width = 0, height = 0;
  int cell = 0;
  int grid_x = 0, grid_y = 0;  // top-left of cell (0, 0)
  int bar_x = 0, bar_y = 0, bar_w = 0, bar_h = 0;
  int max_label_px = 0;  // labels longer than this are cut with '…'
  double vmin = 0.0, vmax = 1.0;
  std::vector<double> ticks;
};

// [vmin, vmax] for the colour scale: lower bound min(0, min value); upper bound the
// smallest of 1, 2, 2.5, 5 × 10^k at or above the largest value (weights: at most 1).
std::pair<double, double> value_range(const matrix& values);
// Tick values: multiples of a 1/2/2.5/5 × 10^k step, at most 6.
std::vector<double> nice_ticks(double vmin, double vmax);

heatmap_layout layout_heatmap(const heatmap_spec& spec);
canvas render_heatmap(const heatmap_spec& spec);

}  // namespace attnviz
