// The model view: every chosen layer × head of a model as a thumbnail of its attention map, in
// one grid (rows = layers, columns = heads) under one colour scale.
//
//   ┌──────────────────────────────────────────────────────┐
//   │ title / subtitle                                      │
//   │         H0     H1     H2   …                   ┌bar┐  │
//   │   L0  ┌────┐ ┌────┐ ┌────┐                     │   │  │
//   │       └────┘ └────┘ └────┘                     │   │  │
//   │       caption                                   └───┘  │
//   │   L1  ┌────┐ …                                         │
//   └──────────────────────────────────────────────────────┘
//
// A thumbnail is t × t pixels for an n × n map: pixel (x, y) shows the mean of the cells it
// covers when t < n, the nearest cell when t >= n (so a cell never smears into its neighbour);
// hidden entries (the causal triangle) are drawn light grey. The colour range is [0, the largest
// weight shown] rounded up as the heatmaps round it (shared), or each thumbnail's own (panel),
// leaving out row 0 of a causal map, which is always [1, 0, …]; larger weights take the top
// colour. t = clamp(1600 / max(rows, cols),
// 24, 160), so 12 × 12 heads give 133 px thumbnails and 32 × 32 heads 50 px ones in a figure
// about 1,700 px wide. Captions (the head finder's names) are optional, one per thumbnail.
#pragma once

#include <string>
#include <vector>

#include "render/colormap.h"
#include "render/colour_scale.h"
#include "render/figure.h"
#include "render/grid.h"

namespace attnviz {

struct model_view_spec {
  // each map of the whole model, n × n, at index layer · heads + head (null: not kept; only
  // the layers and heads shown are read)
  std::vector<const float*> maps;
  std::size_t layers = 0, heads = 0, n = 0;
  std::vector<std::size_t> rows;  // the layers shown, in order (empty: all)
  std::vector<std::size_t> cols;  // the heads shown, in order (empty: all)
  bool causal = false;            // hide j > i
  std::string title, subtitle;
  const colormap* cmap = nullptr;  // default: viridis
  scale_mode scale = scale_mode::shared;  // shared: one range for the maps shown; panel: each own
  colour_scale colours;                   // mapping and fixed ends (--scale log, --vmax, ...)
  std::vector<std::string> captions;  // layers × heads (whole model, row-major) or empty
  int thumb = 0;                      // pixels per thumbnail (0: by the grid's size)
};

// A thumbnail of t × t pixels of an n × nk map: pixel (y, x) the mean of the cells
// [⌊y n / t⌋, max(that + 1, ⌊(y + 1) n / t⌋)) × (the same over nk), leaving out the cells a
// causal mask hides; NaN where it hides every cell (drawn grey). The model view's thumbnails,
// and the explorer page's (render/model_page.h).
std::vector<double> thumbnail_means(const float* a, std::size_t n, std::size_t nk, bool causal,
                                    std::size_t t);

// The largest weight of one n × cols map (cols 0: n × n), row 0 left out under a causal mask (it
// is always [1, 0, …]: counted, it would pin every range to 1); before rounding
// (nice_at_or_above). A causal map is square.
double map_colour_max(const float* a, std::size_t n, bool causal, std::size_t cols = 0);
// The smallest weight above 0 of one map (visible entries, row 0 of a causal map left out), or
// 0: where an automatic log range starts.
double map_min_positive(const float* a, std::size_t n, bool causal, std::size_t cols = 0);

int default_thumb(std::size_t rows, std::size_t cols);
figure model_view_figure(const model_view_spec& spec);

}  // namespace attnviz
