#include "model/blocks.h"

#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "kernels/kernels.h"

namespace attnviz {

void layer_norm_ref(matrix& x, const std::vector<float>& gamma, const std::vector<float>& beta,
                    double eps) {
  const std::size_t d = x.cols();
  if (gamma.size() != d || (!beta.empty() && beta.size() != d))
    throw std::logic_error("layer_norm: parameter size differs from the rows");
  for (std::size_t r = 0; r < x.rows(); ++r) {
    float* row = x.row(r);
    double mean = 0.0;
    for (std::size_t j = 0; j < d; ++j) mean += row[j];
    mean /= static_cast<double>(d);
    double var = 0.0;
    for (std::size_t j = 0; j < d; ++j) var += (row[j] - mean) * (row[j] - mean);
    var /= static_cast<double>(d);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (std::size_t j = 0; j < d; ++j)
      row[j] = static_cast<float>((row[j] - mean) * inv * gamma[j] + (beta.empty() ? 0.0 : beta[j]));
  }
}

matrix rms_norm_ref(const matrix& x, const std::vector<float>& weight, double eps) {
  const std::size_t d = x.cols();
  if (weight.size() != d) throw std::logic_error("rms_norm: weight size differs from the rows");
  matrix y = matrix::uninitialized(x.rows(), d);
  for (std::size_t r = 0; r < x.rows(); ++r) {
    const float* in = x.row(r);
    float* out = y.row(r);
    double sq = 0.0;
    for (std::size_t j = 0; j < d; ++j) sq += static_cast<double>(in[j]) * in[j];
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(d) + eps);
    for (std::size_t j = 0; j < d; ++j) out[j] = static_cast<float>(in[j] * inv * weight[j]);
  }
  return y;
}

void gelu_tanh_ref(matrix& x) {
  const double c = std::sqrt(2.0 / 3.14159265358979323846);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x.data()[i];
    x.data()[i] = static_cast<float>(0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v))));
  }
}

void gelu_erf_ref(matrix& x) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x.data()[i];
    x.data()[i] = static_cast<float>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
  }
}

void silu_gate_ref(matrix& gate, const matrix& up) {
  if (gate.rows() != up.rows() || gate.cols() != up.cols())
    throw std::logic_error("silu_gate: shapes differ");
  for (std::size_t i = 0; i < gate.size(); ++i) {
    const double g = gate.data()[i];
    gate.data()[i] = static_cast<float>(g / (1.0 + std::exp(-g)) * up.data()[i]);
  }
}

void silu_ref(matrix& x) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x.data()[i];
    x.data()[i] = static_cast<float>(v / (1.0 + std::exp(-v)));
  }
}

void relu_ref(matrix& x) {
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = x.data()[i] > 0.0f ? x.data()[i] : 0.0f;
}

matrix layer_norm_of(const matrix& x, const std::vector<float>& gamma,
                     const std::vector<float>& beta, double eps) {
  const std::size_t d = x.cols();
  if (gamma.size() != d || (!beta.empty() && beta.size() != d))
    throw std::logic_error("layer_norm: parameter size differs from the rows");
  matrix y = matrix::uninitialized(x.rows(), d);
  kernels::layer_norm_rows(x.data(), d, y.data(), d, x.rows(), d, gamma.data(),
                           beta.empty() ? nullptr : beta.data(), static_cast<float>(eps));
  return y;
}

matrix rms_norm_of(const matrix& x, const std::vector<float>& weight, double eps) {
  const std::size_t d = x.cols();
  if (weight.size() != d) throw std::logic_error("rms_norm: weight size differs from the rows");
  matrix y = matrix::uninitialized(x.rows(), d);
  kernels::rms_norm_rows(x.data(), d, y.data(), d, x.rows(), d, weight.data(),
                         static_cast<float>(eps));
  return y;
}

void gelu_tanh(matrix& x) {
  kernels::gelu_tanh(x.data(), x.size());
}

void gelu_erf(matrix& x) {
  kernels::gelu_erf(x.data(), x.size());
}

void silu_gate(matrix& gate, const matrix& up) {
  if (gate.rows() != up.rows() || gate.cols() != up.cols())
    throw std::logic_error("silu_gate: shapes differ");
  kernels::silu_mul(gate.data(), up.data(), gate.size());
}

void silu(matrix& x) {
  float* p = x.data();
  const auto n = static_cast<std::ptrdiff_t>(x.size());
#pragma omp parallel for simd schedule(static) if (n > 65536)
  for (std::ptrdiff_t i = 0; i < n; ++i) p[i] = p[i] / (1.0f + std::exp(-p[i]));
}

void relu(matrix& x) {
  float* p = x.data();
  const auto n = static_cast<std::ptrdiff_t>(x.size());
#pragma omp parallel for simd schedule(static) if (n > 65536)
  for (std::ptrdiff_t i = 0; i < n; ++i) p[i] = p[i] > 0.0f ? p[i] : 0.0f;
}

void multiply_in_place(matrix& gate, const matrix& up) {
  if (gate.rows() != up.rows() || gate.cols() != up.cols())
    throw std::logic_error("multiply_in_place: shapes differ");
  float* g = gate.data();
  const float* u = up.data();
  const auto n = static_cast<std::ptrdiff_t>(gate.size());
#pragma omp parallel for simd schedule(static) if (n > 65536)
  for (std::ptrdiff_t i = 0; i < n; ++i) g[i] *= u[i];
}

void add_in_place(matrix& x, const matrix& y) {
  if (x.rows() != y.rows() || x.cols() != y.cols())
    throw std::logic_error("add_in_place: shapes differ");
  kernels::add_to(x.data(), y.data(), x.size());
}

}  // namespace attnviz
