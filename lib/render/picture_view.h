// Attention over a picture: a vision model's per-patch values (the CLS query's weights, a
// rollout's CLS row, the attention each patch receives) laid over the picture the model read,
// one panel or a grid of them (rows = layers, columns = heads: the model view's layout).
//
//   ┌──────────────────────────────────────────────┐
//   │ title / subtitle                              │
//   │          H0        H1      …          ┌bar┐   │
//   │   L0  ┌───────┐ ┌───────┐             │   │   │
//   │       │picture│ │  …    │             │   │   │
//   │       └───────┘ └───────┘             └───┘   │
//   └──────────────────────────────────────────────┘
//
// A panel is s × s' pixels (the picture's aspect; s its longer side): the picture resized to it
// (bilinear on its 8-bit values), and the g_h × g_w values upsampled bilinearly between the
// patches' centres (clamped at the border), mapped to colours over the panel's range and blended
// over the picture: out = (1 − α) picture + α colour, α = alpha (0 shows the picture alone, 1
// the values alone). The range is [0, the largest value shown] rounded up as the heatmaps round
// it, one for every panel (shared) or each panel's own (panel).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "render/colormap.h"
#include "render/colour_scale.h"
#include "render/figure.h"
#include "render/grid.h"
#include "vision/image_file.h"

namespace attnviz {

struct picture_view_spec {
  const rgb_image* picture = nullptr;
  std::size_t grid_rows = 0, grid_cols = 0;  // the patch grid
  // panel_rows × panel_cols panels, row by row, each grid_rows × grid_cols values
  std::vector<std::vector<double>> panels;
  std::size_t panel_rows = 1, panel_cols = 1;
  std::vector<std::string> row_labels, col_labels;  // empty: none drawn
  std::string title, subtitle;
  const colormap* cmap = nullptr;  // default: inferno
  colour_scale colours;
  scale_mode scale = scale_mode::shared;
  double alpha = 0.6;
  int size = 0;  // a panel's longer side in pixels (0: 448 for one panel, else by the grid)
};

figure picture_view_figure(const picture_view_spec& spec);

}  // namespace attnviz
