// Line charts: panels side by side, each a set of named curves over the same x values (1, 2, …,
// e.g. tokens erased), on a shared y range with a zero line, ticks on both axes and one legend
// under the panels. Colours come from a fixed categorical palette in series order (the
// Okabe–Ito colours, distinguishable with the common colour-vision deficiencies); a series
// marked `muted` is drawn grey (a baseline). Same spec => same figure.
#pragma once

#include <string>
#include <vector>

#include "render/figure.h"

namespace attnviz {

struct chart_series {
  std::string name;
  std::vector<double> y;  // one value per x
  bool muted = false;     // a baseline: grey, drawn below the others
};

struct chart_panel {
  std::string title;  // above the panel
  std::vector<chart_series> series;
};

struct curve_chart_spec {
  std::string title, subtitle;
  std::string x_label, y_label;
  std::vector<double> x;  // increasing
  std::vector<chart_panel> panels;
};

// The colour of the i-th series that is not muted.
rgb series_colour(std::size_t i);

figure curve_chart(const curve_chart_spec& spec);

}  // namespace attnviz
