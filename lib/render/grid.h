// A grid of heatmap panels (compare's variants now, multi-head heads later) under one title,
// with one shared colour bar (same scale in every panel) or one per panel.
#pragma once

#include <string>
#include <vector>

#include "enum_names.h"
#include "render/figure.h"
#include "render/heatmap.h"

namespace attnviz {

enum class scale_mode { shared, panel };
inline constexpr named<scale_mode> scale_mode_names[] = {{"shared", scale_mode::shared},
                                                         {"panel", scale_mode::panel}};

struct grid_spec {
  std::vector<heatmap_spec> panels;  // each with its own title (the variant or head)
  std::string title;
  std::string subtitle;
  int cols = 0;  // 0: automatic
  scale_mode scale = scale_mode::shared;
};

// Columns for n panels when not given: c or c + 1 with c = ceil(sqrt(n)), whichever leaves
// fewer empty places (c on a tie): 2 -> 2, 4 -> 2, 6 -> 3, 7 -> 4, 8 -> 4, 12 -> 4.
int auto_grid_cols(std::size_t n);

figure grid_figure(const grid_spec& spec);

}  // namespace attnviz
