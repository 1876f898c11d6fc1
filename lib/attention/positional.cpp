#include "attention/positional.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "error.h"
#include "names.h"

namespace attnviz {

position_scheme parse_position(std::string_view name) {
  const std::string n = normalise_name(name);
  if (n == "none") return position_scheme::none;
  if (n == "sinusoidal" || n == "absolute") return position_scheme::sinusoidal;
  if (n == "rope" || n == "rotary") return position_scheme::rope;
  if (n == "alibi") return position_scheme::alibi;
  throw usage_error(
      fmt::format("unknown {} '{}': expected none, sinusoidal, rope or alibi", param("position"),
                  name));
}

std::string_view position_name(position_scheme p) {
  switch (p) {
    case position_scheme::none:
      return "none";
    case position_scheme::sinusoidal:
      return "sinusoidal";
    case position_scheme::rope:
      return "rope";
    case position_scheme::alibi:
      return "alibi";
  }
  return "?";
}

std::vector<float> sinusoid(double p, std::size_t d) {
  std::vector<float> out(d);
  for (std::size_t c = 0; c < d; ++c) {
    const double i2 = static_cast<double>(c - c % 2);  // 2i
    const double angle = p / std::pow(10000.0, i2 / static_cast<double>(d));
    out[c] = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
  }
  return out;
}

matrix sinusoidal_table(std::size_t n, std::size_t d) {
  matrix pe(n, d);
  for (std::size_t p = 0; p < n; ++p) {
    const auto row = sinusoid(static_cast<double>(p), d);
    for (std::size_t c = 0; c < d; ++c) pe(p, c) = row[c];
  }
  return pe;
}

void add_sinusoidal(matrix& x) {
  const matrix pe = sinusoidal_table(x.rows(), x.cols());
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] += pe.data()[i];
}

void apply_rope(matrix& x) {
  apply_rope_columns(x, 0, x.cols());
}

void apply_rope_columns(matrix& x, std::size_t first, std::size_t count) {
  const std::size_t d = count;
  for (std::size_t p = 0; p < x.rows(); ++p) {
    float* row = x.row(p) + first;
    for (std::size_t c = 0; c + 1 < d; c += 2) {
      const double theta = std::pow(10000.0, -static_cast<double>(c) / static_cast<double>(d));
      const double angle = static_cast<double>(p) * theta;
      const double a = row[c], b = row[c + 1];
      const double cs = std::cos(angle), sn = std::sin(angle);
      row[c] = static_cast<float>(a * cs - b * sn);
      row[c + 1] = static_cast<float>(a * sn + b * cs);
    }
  }
}

rope_half_table make_rope_half_table(std::size_t positions, std::size_t d, double base) {
  std::vector<double> theta(d / 2);
  for (std::size_t i = 0; i < theta.size(); ++i)
    theta[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(d));
  return make_rope_half_table(positions, theta);
}

rope_half_table make_rope_half_table(std::size_t positions, const std::vector<double>& theta) {
  return make_rope_half_table(0, positions, theta);
}

rope_half_table make_rope_half_table(std::size_t first, std::size_t count,
                                     const std::vector<double>& theta) {
  rope_half_table t;
  t.positions = count;
  t.half = theta.size();
  t.cos.resize(count * t.half);
  t.sin.resize(count * t.half);
  for (std::size_t i = 0; i < t.half; ++i) {
    for (std::size_t p = 0; p < count; ++p) {
      const double angle = static_cast<double>(first + p) * theta[i];
      t.cos[p * t.half + i] = static_cast<float>(std::cos(angle));
      t.sin[p * t.half + i] = static_cast<float>(std::sin(angle));
    }
  }
  return t;
}

void apply_rope_half(matrix& x, std::size_t first, const rope_half_table& table) {
  const std::size_t h = table.half;
  for (std::size_t p = 0; p < x.rows(); ++p) {
    float* a = x.row(p) + first;
    float* b = a + h;
    const float* cs = table.cos.data() + p * h;
    const float* sn = table.sin.data() + p * h;
    for (std::size_t i = 0; i < h; ++i) {
      const float x1 = a[i], x2 = b[i];
      a[i] = x1 * cs[i] - x2 * sn[i];
      b[i] = x2 * cs[i] + x1 * sn[i];
    }
  }
}

void apply_rope_interleaved(matrix& x, std::size_t first, const rope_half_table& table) {
  const std::size_t h = table.half;
  for (std::size_t p = 0; p < x.rows(); ++p) {
    float* a = x.row(p) + first;
    const float* cs = table.cos.data() + p * h;
    const float* sn = table.sin.data() + p * h;
    for (std::size_t i = 0; i < h; ++i) {
      const float x1 = a[2 * i], x2 = a[2 * i + 1];
      a[2 * i] = x1 * cs[i] - x2 * sn[i];
      a[2 * i + 1] = x2 * cs[i] + x1 * sn[i];
    }
  }
}

std::vector<double> alibi_slopes(std::size_t heads, double first) {
  const double m = first > 0.0 ? first : std::pow(2.0, -8.0 / static_cast<double>(heads));
  std::vector<double> out(heads);
  for (std::size_t h = 0; h < heads; ++h) out[h] = std::pow(m, static_cast<double>(h + 1));
  return out;
}

std::string alibi_single_head_note(std::size_t heads, double first, std::size_t tokens) {
  if (first > 0.0 || heads > 1 || tokens < 2) return "";
  const double m = std::pow(2.0, -8.0);
  return fmt::format(
      "ALiBi with one head takes the paper's slope 2^-8 = {:.4f} (H heads: 2^(-8h/H)), so over "
      "{} tokens it lowers a score by at most {:.3f} and the weights barely move; {} 0.5 (the "
      "steepest of 8 heads) shows the recency bias",
      m, tokens, m * static_cast<double>(tokens - 1), param("alibi_slope"));
}

void add_alibi(matrix& scores, double slope, std::size_t first_row) {
  for (std::size_t r = 0; r < scores.rows(); ++r)
    for (std::size_t j = 0; j < scores.cols(); ++j) {
      const std::size_t i = first_row + r;
      const double dist = i > j ? static_cast<double>(i - j) : static_cast<double>(j - i);
      scores(r, j) = static_cast<float>(scores(r, j) - slope * dist);
    }
}

}  // namespace attnviz
