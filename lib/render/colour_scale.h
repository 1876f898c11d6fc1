// How values become colours: the range [lo, hi] and the mapping from a value to a position
// t in [0, 1] of the colormap (--scale, --vmin, --vmax).
//
//   linear:   t = (v − lo) / (hi − lo)
//   power=G:  t = ((v − lo) / (hi − lo))^G        G < 1 spreads small weights over more colours
//   log:      t = log(v / lo) / log(hi / lo)      lo > 0; v ≤ lo takes the first colour
//
// t is clamped to [0, 1], so values outside a fixed range take the end colours. The automatic
// range is value_range()'s (0 to a round number at or above the largest value); for log its
// low end is the power of ten at or below the smallest positive value, at most four decades
// under the high end's decade (a softmax row's 1e-30 tail would otherwise take the whole bar).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor.h"

namespace attnviz {

enum class colour_mapping { linear, log, power };

struct colour_scale {
  colour_mapping mapping = colour_mapping::linear;
  double gamma = 1.0;         // power only
  std::optional<double> lo;   // --vmin: fixed low end
  std::optional<double> hi;   // --vmax: fixed high end

  // The defaults: linear, automatic range (figures keep their earlier bytes).
  bool is_default() const noexcept {
    return mapping == colour_mapping::linear && !lo && !hi;
  }
};

// "linear", "log", "power=G" (0 < G ≤ 10); usage_error naming `flag` otherwise.
colour_mapping parse_colour_mapping(std::string_view s, double& gamma, std::string_view flag);
// "linear", "log", "power=0.5"
std::string colour_mapping_name(const colour_scale& s);

// Checks a scale before any work: lo < hi when both are given, lo > 0 for log (usage_error
// naming --vmin / --vmax / --scale).
void check_colour_scale(const colour_scale& s);

// The range the figure draws: the fixed ends where given, the automatic ones elsewhere
// (`auto_range` = value_range of the values; `min_positive` the smallest value > 0, or 0).
std::pair<double, double> resolve_range(const colour_scale& s, std::pair<double, double> auto_range,
                                        double min_positive);
// resolve_range over a matrix (non-finite values skipped).
std::pair<double, double> scale_range(const colour_scale& s, const matrix& values,
                                      bool centered);
// The smallest finite value > 0 of m, or 0 when there is none.
double min_positive(const matrix& m);

// t in [0, 1] for v (see above); 0 when hi <= lo.
double scale_position(const colour_scale& s, double v, double lo, double hi);

// Tick values for a colour bar over [lo, hi]: nice_ticks for linear and power, powers of ten
// (and 2 and 5 × 10^k when there are fewer than three decades) for log.
std::vector<double> scale_ticks(const colour_scale& s, double lo, double hi);

}  // namespace attnviz
