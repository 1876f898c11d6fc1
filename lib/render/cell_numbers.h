// The numbers written in a heatmap's cells (--annotate): which format, and which cells get one.
//
// A cell of c pixels holds a text of k characters when k · 8 · s + 4 <= c (Unifont is 8 px per
// narrow character at text scale s). The formats, in order of preference (steps of 0.01, then
// of 0.1, then one significant digit):
//
//   fixed2  0.12     bare2  .12     percent 12 (weights in [0, 1]; the figure says so)
//   fixed1  0.1      bare1  .1      sci     3e-4 (only when no other format writes a cell)
//
// A cell's text is left out (blank) when it does not fit, or when it would read as zero for a
// value that is not (0.003 as "0.0" or "0"): a blank never lies, a "0" might ("0.00" stays: two
// decimals are the usual precision). plan_cell_numbers picks the format that writes the most
// cells that tell something (not 0.00 for a non-zero value; the first of the list on a tie). `automatic`
// writes numbers only when fixed2 or fixed1 writes every visible cell; `on` takes the best
// format whatever it leaves blank, and the plan's note says in one line what the figure shows
// ("numbers in percent; 12 of 3,600 cells blank: below 0.5 % or no room").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "render/heatmap.h"

namespace attnviz {

enum class number_style { fixed2, fixed1, bare2, bare1, percent, sci };

struct cell_numbers {
  bool any = false;                 // false: no numbers at all
  number_style style = number_style::fixed2;
  std::vector<std::string> texts;   // rows × cols, row-major; "" where blank (and hidden cells)
  std::size_t blank = 0;            // visible cells left blank
  std::string note;                 // one line for the figure; empty when nothing needs saying
};

// v written in `style` ("-" for negatives, no "-0").
std::string format_cell_number(double v, number_style style);

// The plan for spec's values at `cell` pixels and text scale `scale`.
cell_numbers plan_cell_numbers(const heatmap_spec& spec, int cell, int scale);

}  // namespace attnviz
