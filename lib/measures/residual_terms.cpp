#include "measures/residual_terms.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace attnviz {

namespace residual_terms_parts {

// The norm's divisor over the d floats it normalises: √(var z + ε) for a layer norm,
// √(mean z² + ε) for an RMS norm.
float norm_divisor(const float* z, std::size_t d, bool rms, double eps) {
  double total = 0.0, squares = 0.0;
  for (std::size_t k = 0; k < d; ++k) total += z[k], squares += static_cast<double>(z[k]) * z[k];
  const double mean = total / static_cast<double>(d),
               mean_square = squares / static_cast<double>(d);
  const double spread = rms ? mean_square : std::max(0.0, mean_square - mean * mean);
  return static_cast<float>(std::sqrt(spread + eps));
}

}  // namespace residual_terms_parts

residual_taps::residual_taps(const measure_shape& s, map_taps& views, map_taps& weights,
                             const std::string& array)
    : layer_map_taps(s, views, weights, array), scale_(s.n, 1.0f) {}

void residual_taps::values(const attention_values& p) {
  const std::size_t H = p.heads, n = p.n_k, kvd = p.kv_heads * p.head_dim;
  if (H != shape().heads || n != shape().key_count() || p.kv_heads == 0 || H % p.kv_heads != 0)
    throw std::logic_error("residual_taps: the layer's values do not match the measure's shape");
  v_.resize(n * kvd);
  for (std::size_t j = 0; j < n; ++j)
    std::copy(p.v + j * p.ldv, p.v + j * p.ldv + kvd, v_.data() + j * kvd);
  wo_ = output_projection(p);
  const std::size_t d = wo_.size() / (H * p.head_dim);
  source_ =
      value_vector_source{v_.data(), kvd, H, p.kv_heads, p.head_dim, n, d, wo_.data(), p.layout};
  have_values_ = true;
}

// L(z) in place for `rows` rows of d: γ ⊙ (z − mean z) (layer norm) or γ ⊙ z (RMS norm).
void residual_taps::linear_part(float* z, std::size_t rows, std::size_t d) const {
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = z + r * d;
    double mean = 0.0;
    if (!rms_) {
      for (std::size_t k = 0; k < d; ++k) mean += row[k];
      mean /= static_cast<double>(d);
    }
    for (std::size_t k = 0; k < d; ++k) row[k] = gamma_[k] * static_cast<float>(row[k] - mean);
  }
}

// s_i, ω_i and y_i for every query (the table in residual_terms.h).
void residual_taps::set_terms(const attention_residual& r) {
  const std::size_t n = r.n, d = r.d;
  own_.assign(n * d, 0.0f);
  result_.assign(n * d, 0.0f);
#pragma omp parallel
  {
    std::vector<float> z(d);
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const float *x = r.x + i * d, *o = r.out + i * d;
      float *own = own_.data() + i * d, *y = result_.data() + i * d;
      if (kind_ == residual_kind::add) {
        scale_[i] = 1.0f;
        for (std::size_t k = 0; k < d; ++k) own[k] = x[k], y[k] = x[k] + o[k];
        continue;
      }
      const bool sum = kind_ == residual_kind::norm_of_sum;
      for (std::size_t k = 0; k < d; ++k) z[k] = o[k] + (sum ? x[k] : 0.0f);
      const float s = residual_terms_parts::norm_divisor(z.data(), d, rms_, r.eps);
      scale_[i] = s;
      linear_part(z.data(), 1, d);  // L(x_i + o_i) or L(o_i)
      for (std::size_t k = 0; k < d; ++k) {
        const float beta = r.beta.empty() ? 0.0f : r.beta[k];
        y[k] = z[k] / s + beta + (sum ? 0.0f : x[k]);
        own[k] = x[k];
      }
      if (sum) {
        linear_part(own, 1, d);
        for (std::size_t k = 0; k < d; ++k) own[k] /= s;
      }
    }
  }
}

void residual_taps::residual(const attention_residual& r) {
  if (!have_values_ || r.n != shape().n || r.d != source_.d)
    throw std::logic_error("residual_taps: the residual does not match the layer's values");
  kind_ = r.kind;
  rms_ = r.rms;
  gamma_ = r.gamma;
  if (kind_ != residual_kind::add && gamma_.size() != r.d)
    throw std::logic_error("residual_taps: the norm's scale is not d wide");
  set_terms(r);
  measure_residual();
  have_residual_ = true;
}

void residual_taps::transformed_values(std::size_t j0, std::size_t b, float* f) const {
  form_values(source_, j0, b, f);
  if (kind_ != residual_kind::add) linear_part(f, b * source_.heads, source_.d);
}

void residual_taps::take_layer() {
  if (!have_residual_)
    throw std::logic_error(
        "the layer's block did not say how its attention joins the residual "
        "stream (report_residual)");
  have_values_ = have_residual_ = false;
}

}  // namespace attnviz
