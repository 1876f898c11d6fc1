// The heatmap in a terminal: each cell two columns of background colour, token labels on both
// axes (column labels written downwards, one character per cell), a colour scale, the title.
//
// Colours: 24-bit ("\e[48;2;r;g;bm") when the terminal says it has them (COLORTERM=truecolor or
// 24bit), else the nearest of the 256-colour palette; plain numbers when the output is not a
// terminal or NO_COLOR is set (https://no-color.org).
#pragma once

#include <string>

#include "render/heatmap.h"

namespace attnviz {

enum class term_colors { truecolor, palette256, none };

// The mode for an output: is_tty, $NO_COLOR (nullptr when unset), $COLORTERM.
term_colors detect_term_colors(bool is_tty, const char* no_color, const char* colorterm);

// Index in the xterm 256-colour palette nearest to c (the 6×6×6 cube or the grey ramp).
int nearest_palette256(rgb c);

// The figure as text. `none` prints the values as a table (3 decimals), with the chosen key
// of each row when spec.marked_col_per_row is set.
std::string render_terminal(const heatmap_spec& spec, term_colors mode);

}  // namespace attnviz
