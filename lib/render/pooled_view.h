// The picture of a pooled attention map (streaming mode): one pixel (or a z × z square for small
// maps) per bin of query rows × key columns, with token-index ticks on both axes, a colour bar,
// a title and the pooling in the subtitle. Too many tokens for labels, so the axes count them.
//
//   ┌──────────────────────────────────────────────┐
//   │ title / subtitle                              │
//   │ q  0 ┬┌──────── pooled map ────────┐  ┌bar┐  │
//   │ u    ┤│                            │  │   │  │
//   │      ┤└────────────────────────────┘  └───┘  │
//   │       0     16384     32768     49152         │
//   │           keys j (65,536 tokens, 32 per pixel)│
//   └──────────────────────────────────────────────┘
#pragma once

#include <string>

#include "analysis/pooled_map.h"
#include "render/colormap.h"
#include "render/figure.h"
#include "tensor.h"

namespace attnviz {

struct pooled_view_spec {
  const matrix* values = nullptr;  // rows.bins × cols.bins
  pool_bins rows, cols;
  std::string title;
  std::string subtitle;
  std::string row_axis = "queries i";
  std::string col_axis = "keys j";
  const colormap* cmap = nullptr;  // nullptr: viridis
};

// Integer zoom so that small maps are at least about 400 pixels wide: max(1, 400 / bins).
int pooled_zoom(const pool_bins& rows, const pool_bins& cols);

figure pooled_heatmap_figure(const pooled_view_spec& spec);

}  // namespace attnviz
