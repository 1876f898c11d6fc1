// --html for a vision model: one self-contained page (render/html_parts.h: inline everything, no
// request) showing the picture the model read with one map over it at a time:
//   - the large view: the picture (drawn from its pixels on a canvas) with the chosen map's
//     patch values over it, smoothed between patches, coloured by the colormap over [0, the
//     largest value of every map], at the opacity the slider sets (--alpha to start);
//   - a grid of thumbnails, one per layer × head (the CLS query's weights on the patches), and
//     the aggregates (the mean over every head, the rollout's CLS row, the attention each patch
//     receives): hovering one shows it large, clicking pins it (hover elsewhere returns to it);
//   - under the view, the map's name and the patch under the pointer with its value.
// The data sit in <script type="application/json" id="attnviz-data"> as
//   {"title", "subtitle", "width", "height", "pixels": base64 RGB (height × width × 3),
//    "grid": [rows, cols], "colormap": ["#rrggbb" × 256], "alpha", "layers", "heads",
//    "maps": [[rows·cols values] × layers·heads], "aggregates": [{"label", "values"}], "max"}
// and window.attnviz.show(index) selects map `index` (layers·heads first, then the aggregates).
#pragma once

#include <string>
#include <vector>

#include "render/colormap.h"
#include "vision/image_file.h"

namespace attnviz {

struct picture_page_spec {
  std::string title, subtitle;
  const rgb_image* picture = nullptr;
  std::size_t grid_rows = 0, grid_cols = 0, layers = 0, heads = 0;
  std::vector<float> maps;  // [layers, heads, grid_rows, grid_cols]
  std::vector<std::pair<std::string, std::vector<double>>> aggregates;
  const colormap* cmap = nullptr;
  double alpha = 0.6;
};

std::string picture_page(const picture_page_spec& spec);

}  // namespace attnviz
