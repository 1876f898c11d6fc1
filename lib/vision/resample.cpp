#include "vision/resample.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace attnviz {
namespace resample_parts {
namespace {

constexpr double pi = 3.14159265358979323846;

double sinc(double t) {
  if (t == 0.0) return 1.0;
  return std::sin(pi * t) / (pi * t);
}

double keys_cubic(double t, double a) {
  t = std::fabs(t);
  if (t < 1.0) return ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
  if (t < 2.0) return (((t - 5.0) * t + 8.0) * t - 4.0) * a;
  return 0.0;
}

double support_of(resample_filter f) {
  switch (f) {
    case resample_filter::box:
      return 0.5;
    case resample_filter::bilinear:
    case resample_filter::hamming:
      return 1.0;
    case resample_filter::bicubic:
      return 2.0;
    case resample_filter::lanczos:
      return 3.0;
    case resample_filter::nearest:
      break;
  }
  throw std::logic_error("resample: nearest has no weights");
}

double kernel(resample_filter f, double t) {
  switch (f) {
    case resample_filter::box:
      return t > -0.5 && t <= 0.5 ? 1.0 : 0.0;
    case resample_filter::bilinear:
      t = std::fabs(t);
      return t < 1.0 ? 1.0 - t : 0.0;
    case resample_filter::hamming:
      t = std::fabs(t);
      if (t == 0.0) return 1.0;
      if (t >= 1.0) return 0.0;
      return std::sin(pi * t) / (pi * t) * (0.54 + 0.46 * std::cos(pi * t));
    case resample_filter::bicubic:
      return keys_cubic(t, -0.5);
    case resample_filter::lanczos:
      return t > -3.0 && t < 3.0 ? sinc(t) * sinc(t / 3.0) : 0.0;
    case resample_filter::nearest:
      break;
  }
  throw std::logic_error("resample: nearest has no weights");
}

// One output position's inputs [first, first + weights.size()) and their normalised weights.
struct tap_row {
  std::size_t first = 0;
  std::vector<double> weights;
};

// PIL's (and PyTorch's antialiased) weights for every output position (header's formula).
std::vector<tap_row> pil_taps(std::size_t in, std::size_t out, resample_filter f) {
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  const double fscale = std::max(scale, 1.0), support = support_of(f) * fscale;
  std::vector<tap_row> rows(out);
  for (std::size_t x = 0; x < out; ++x) {
    const double centre = (static_cast<double>(x) + 0.5) * scale;
    const double lo = centre - support + 0.5, hi = centre + support + 0.5;
    const std::size_t first = lo > 0.0 ? static_cast<std::size_t>(lo) : 0;
    const std::size_t last = std::min(in, static_cast<std::size_t>(std::max(hi, 0.0)));
    tap_row& r = rows[x];
    r.first = first;
    double sum = 0.0;
    for (std::size_t j = first; j < last; ++j) {
      const double w = kernel(f, (static_cast<double>(j) - centre + 0.5) / fscale);
      r.weights.push_back(w);
      sum += w;
    }
    if (sum != 0.0)
      for (double& w : r.weights) w /= sum;
  }
  return rows;
}

constexpr int precision_bits = 22;

// The weights as PIL's fixed-point integers.
std::vector<std::vector<std::int32_t>> fixed_point(const std::vector<tap_row>& taps) {
  std::vector<std::vector<std::int32_t>> out(taps.size());
  const double one = static_cast<double>(1 << precision_bits);
  for (std::size_t x = 0; x < taps.size(); ++x)
    for (const double w : taps[x].weights)
      out[x].push_back(static_cast<std::int32_t>(w < 0.0 ? -0.5 + w * one : 0.5 + w * one));
  return out;
}

std::uint8_t clip8(std::int64_t sum) {
  const std::int64_t v = sum >> precision_bits;  // arithmetic: floor
  return static_cast<std::uint8_t>(std::clamp<std::int64_t>(v, 0, 255));
}

// PIL's pass along one axis: columns (horizontal) or rows.
rgb_image resample_pass(const rgb_image& in, std::size_t out_size, resample_filter f,
                        bool horizontal) {
  const std::size_t in_size = horizontal ? in.width : in.height;
  const std::vector<tap_row> taps = pil_taps(in_size, out_size, f);
  const auto k = fixed_point(taps);
  rgb_image out;
  out.width = horizontal ? out_size : in.width;
  out.height = horizontal ? in.height : out_size;
  out.rgb.resize(out.width * out.height * 3);
  for (std::size_t y = 0; y < out.height; ++y)
    for (std::size_t x = 0; x < out.width; ++x) {
      const std::size_t at = horizontal ? x : y;
      for (std::size_t c = 0; c < 3; ++c) {
        std::int64_t sum = std::int64_t{1} << (precision_bits - 1);
        for (std::size_t t = 0; t < k[at].size(); ++t) {
          const std::size_t j = taps[at].first + t;
          sum +=
              static_cast<std::int64_t>(k[at][t]) * (horizontal ? in.at(y, j, c) : in.at(j, x, c));
        }
        out.rgb[(y * out.width + x) * 3 + c] = clip8(sum);
      }
    }
  return out;
}

rgb_image nearest(const rgb_image& in, std::size_t width, std::size_t height) {
  rgb_image out;
  out.width = width;
  out.height = height;
  out.rgb.resize(width * height * 3);
  const double sx = static_cast<double>(in.width) / static_cast<double>(width);
  const double sy = static_cast<double>(in.height) / static_cast<double>(height);
  for (std::size_t y = 0; y < height; ++y) {
    const auto yi =
        std::min(in.height - 1, static_cast<std::size_t>((static_cast<double>(y) + 0.5) * sy));
    for (std::size_t x = 0; x < width; ++x) {
      const auto xi =
          std::min(in.width - 1, static_cast<std::size_t>((static_cast<double>(x) + 0.5) * sx));
      for (std::size_t c = 0; c < 3; ++c) out.rgb[(y * width + x) * 3 + c] = in.at(yi, xi, c);
    }
  }
  return out;
}

// PyTorch's plain bicubic weights (a = −¾) and clamped inputs for every output position.
std::vector<tap_row> torch_cubic_taps(std::size_t in, std::size_t out,
                                      std::vector<std::size_t>& idx) {
  const double scale = static_cast<double>(in) / static_cast<double>(out), a = -0.75;
  std::vector<tap_row> rows(out);
  idx.assign(out * 4, 0);
  for (std::size_t x = 0; x < out; ++x) {
    const double src = scale * (static_cast<double>(x) + 0.5) - 0.5;
    const double x0 = std::floor(src), t = src - x0;
    rows[x].weights = {keys_cubic(t + 1.0, a), keys_cubic(t, a), keys_cubic(1.0 - t, a),
                       keys_cubic(2.0 - t, a)};
    for (std::size_t i = 0; i < 4; ++i) {
      const double j = x0 - 1.0 + static_cast<double>(i);
      idx[x * 4 + i] = static_cast<std::size_t>(std::clamp(j, 0.0, static_cast<double>(in - 1)));
    }
  }
  return rows;
}

// Inputs of every output position along one axis as explicit indices (both kinds).
struct axis_taps {
  std::vector<std::vector<std::size_t>> index;
  std::vector<std::vector<double>> weight;
};

axis_taps axis_of(std::size_t in, std::size_t out, grid_bicubic kind) {
  axis_taps a;
  a.index.resize(out);
  a.weight.resize(out);
  if (kind == grid_bicubic::antialias) {
    const auto taps = pil_taps(in, out, resample_filter::bicubic);
    for (std::size_t x = 0; x < out; ++x) {
      a.weight[x] = taps[x].weights;
      for (std::size_t t = 0; t < taps[x].weights.size(); ++t)
        a.index[x].push_back(taps[x].first + t);
    }
    return a;
  }
  std::vector<std::size_t> idx;
  const auto taps = torch_cubic_taps(in, out, idx);
  for (std::size_t x = 0; x < out; ++x) {
    a.weight[x] = taps[x].weights;
    a.index[x].assign(idx.begin() + static_cast<std::ptrdiff_t>(4 * x),
                      idx.begin() + static_cast<std::ptrdiff_t>(4 * x + 4));
  }
  return a;
}

}  // namespace
}  // namespace resample_parts

const char* resample_name(resample_filter f) {
  switch (f) {
    case resample_filter::nearest:
      return "nearest";
    case resample_filter::lanczos:
      return "lanczos";
    case resample_filter::bilinear:
      return "bilinear";
    case resample_filter::bicubic:
      return "bicubic";
    case resample_filter::box:
      return "box";
    case resample_filter::hamming:
      return "hamming";
  }
  return "?";
}

rgb_image resize_like_pil(const rgb_image& in, std::size_t width, std::size_t height,
                          resample_filter filter) {
  using namespace resample_parts;
  if (width == 0 || height == 0 || in.width == 0 || in.height == 0)
    throw std::logic_error("resize_like_pil: an empty size");
  if (filter == resample_filter::nearest) return nearest(in, width, height);
  rgb_image out = in;
  if (width != in.width) out = resample_pass(out, width, filter, true);
  if (height != in.height) out = resample_pass(out, height, filter, false);
  return out;
}

std::vector<double> resize_grid(const std::vector<double>& in, std::size_t in_h, std::size_t in_w,
                                std::size_t channels, std::size_t out_h, std::size_t out_w,
                                grid_bicubic kind) {
  using namespace resample_parts;
  if (in.size() != in_h * in_w * channels || out_h == 0 || out_w == 0)
    throw std::logic_error("resize_grid: sizes do not match");
  const axis_taps ys = axis_of(in_h, out_h, kind), xs = axis_of(in_w, out_w, kind);
  std::vector<double> rows(in_h * out_w * channels, 0.0);  // columns first
  for (std::size_t y = 0; y < in_h; ++y)
    for (std::size_t x = 0; x < out_w; ++x)
      for (std::size_t t = 0; t < xs.index[x].size(); ++t) {
        const double w = xs.weight[x][t];
        const double* src = in.data() + (y * in_w + xs.index[x][t]) * channels;
        double* dst = rows.data() + (y * out_w + x) * channels;
        for (std::size_t c = 0; c < channels; ++c) dst[c] += w * src[c];
      }
  std::vector<double> out(out_h * out_w * channels, 0.0);
  for (std::size_t y = 0; y < out_h; ++y)
    for (std::size_t t = 0; t < ys.index[y].size(); ++t) {
      const double w = ys.weight[y][t];
      const double* src = rows.data() + ys.index[y][t] * out_w * channels;
      double* dst = out.data() + y * out_w * channels;
      for (std::size_t i = 0; i < out_w * channels; ++i) dst[i] += w * src[i];
    }
  return out;
}

}  // namespace attnviz
