#include "render/colour_scale.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "error.h"
#include "render/heatmap.h"

namespace attnviz {
namespace {

constexpr double log_decades = 4.0;  // the automatic log range spans at most this many decades

double decade_at_or_below(double x) {
  return std::pow(10.0, std::floor(std::log10(x) + 1e-12));
}

}  // namespace

colour_mapping parse_colour_mapping(std::string_view s, double& gamma, std::string_view flag) {
  gamma = 1.0;
  if (s == "linear") return colour_mapping::linear;
  if (s == "log") return colour_mapping::log;
  if (s.substr(0, 6) == "power=") {
    const std::string_view g = s.substr(6);
    double v = 0.0;
    const auto [end, ec] = std::from_chars(g.data(), g.data() + g.size(), v);
    if (ec == std::errc() && end == g.data() + g.size() && v > 0.0 && v <= 10.0) {
      gamma = v;
      return colour_mapping::power;
    }
  }
  throw usage_error(fmt::format(
      "{} '{}': expected linear, log or power=G with 0 < G <= 10 (e.g. power=0.5 spreads small "
      "weights over more colours)",
      param(flag), s));
}

std::string colour_mapping_name(const colour_scale& s) {
  switch (s.mapping) {
    case colour_mapping::log:
      return "log";
    case colour_mapping::power:
      return fmt::format("power={:g}", s.gamma);
    default:
      return "linear";
  }
}

void check_colour_scale(const colour_scale& s) {
  for (const auto& [end, name] : {std::pair{s.lo, "vmin"}, std::pair{s.hi, "vmax"}})
    if (end && !std::isfinite(*end))
      throw usage_error(fmt::format("{} must be a finite number", param(name)));
  if (s.lo && s.hi && !(*s.lo < *s.hi))
    throw usage_error(fmt::format("{} {:g} must be below {} {:g}", param("vmin"), *s.lo,
                                  param("vmax"), *s.hi));
  if (s.mapping == colour_mapping::log && s.lo && !(*s.lo > 0.0))
    throw usage_error(fmt::format("{} log needs {} above 0, got {:g}", param("scale"),
                                  param("vmin"), *s.lo));
  if (s.mapping == colour_mapping::log && s.hi && !(*s.hi > 0.0))
    throw usage_error(fmt::format("{} log needs {} above 0, got {:g}", param("scale"),
                                  param("vmax"), *s.hi));
}

double min_positive(const matrix& m) {
  double best = 0.0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    const double v = m.data()[i];
    if (std::isfinite(v) && v > 0.0 && (best == 0.0 || v < best)) best = v;
  }
  return best;
}

std::pair<double, double> resolve_range(const colour_scale& s, std::pair<double, double> automatic,
                                        double smallest_positive) {
  double lo = s.lo ? *s.lo : automatic.first;
  double hi = s.hi ? *s.hi : automatic.second;
  if (s.mapping == colour_mapping::log) {
    if (!(hi > 0.0)) hi = 1.0;
    if (!s.lo) {
      const double floor_lo = decade_at_or_below(hi) * std::pow(10.0, -log_decades);
      lo = smallest_positive > 0.0 ? std::max(decade_at_or_below(smallest_positive), floor_lo)
                                   : floor_lo;
      if (lo >= hi) lo = decade_at_or_below(hi) < hi ? decade_at_or_below(hi) : hi / 10.0;
    }
  }
  if (!(hi > lo)) {
    // a fixed end on the wrong side of the automatic other end: a range of one round step
    if (s.lo && !s.hi) hi = lo + nice_at_or_above(std::fabs(lo) > 0 ? std::fabs(lo) : 1.0);
    if (s.hi && !s.lo) lo = hi - nice_at_or_above(std::fabs(hi) > 0 ? std::fabs(hi) : 1.0);
  }
  return {lo, hi};
}

std::pair<double, double> scale_range(const colour_scale& s, const matrix& values,
                                      bool centered) {
  return resolve_range(s, value_range(values, centered),
                       s.mapping == colour_mapping::log ? min_positive(values) : 0.0);
}

double scale_position(const colour_scale& s, double v, double lo, double hi) {
  if (!(hi > lo)) return 0.0;
  double t = 0.0;
  switch (s.mapping) {
    case colour_mapping::log:
      t = v > lo ? std::log(v / lo) / std::log(hi / lo) : 0.0;
      break;
    case colour_mapping::power:
      t = std::pow(std::clamp((v - lo) / (hi - lo), 0.0, 1.0), s.gamma);
      break;
    default:
      t = (v - lo) / (hi - lo);
  }
  return std::isfinite(t) ? std::clamp(t, 0.0, 1.0) : 0.0;
}

std::vector<double> scale_ticks(const colour_scale& s, double lo, double hi) {
  if (s.mapping != colour_mapping::log || !(lo > 0.0) || !(hi > lo)) return nice_ticks(lo, hi);
  std::vector<double> ticks;
  const int first = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
  const int last = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
  const bool few = last - first < 2;  // under three decades: 2 and 5 × 10^k too
  constexpr double steps[] = {1.0, 2.0, 5.0};
  for (int k = first - 1; k <= last; ++k)
    for (int m = 0; m < (few ? 3 : 1); ++m) {
      const double t = steps[m] * std::pow(10.0, k);
      if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push_back(t);
    }
  return ticks;
}

}  // namespace attnviz
