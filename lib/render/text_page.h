// Tokens set like a page of text, each on a background of its value's colour: the long-text
// view (`model --view received`), where a map of n × n cells no longer fits a picture but the
// text does. Left to right in lines `width` pixels wide: a token shown with a leading middle
// dot (a space before it, token_display.h) starts after a gap, ⏎ ends the line; a token wider
// than the line is cut with "…". The title and subtitle above, the colour bar at the top right.
#pragma once

#include <string>
#include <vector>

#include "render/colormap.h"
#include "render/colour_scale.h"
#include "render/figure.h"

namespace attnviz {

struct text_page_spec {
  std::vector<std::string> tokens;  // as display_tokens shows them
  std::vector<double> values;       // one per token
  const colormap* cmap = nullptr;   // default: viridis
  colour_scale colours;             // mapping and fixed ends
  std::string title, subtitle;
  int width = 1200;                 // pixels of a line of text
};

figure text_page_figure(const text_page_spec& spec);

}  // namespace attnviz
