#include "attention/score.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "attention/positional.h"
#include "error.h"
#include "kernels/kernels.h"

namespace attnviz {
namespace {

void require_same_dims(const score_inputs& in, const char* name) {
  if (in.queries.cols() != in.keys.cols())
    throw usage_error(
        fmt::format("score '{}' needs queries and keys of the same size, got d_q = "
                    "{} and d_k = {}",
                    name, in.queries.cols(), in.keys.cols()));
}

std::size_t hidden_size(const score_inputs& in) {
  return in.d_a ? in.d_a : in.keys.cols();
}

}  // namespace

// ---- dot / scaled_dot --------------------------------------------------------------------------

matrix score_dot(const score_inputs& in) {
  require_same_dims(in, "dot");
  return kernels::matmul_nt(in.queries, in.keys);
}

matrix score_scaled_dot(const score_inputs& in) {
  require_same_dims(in, "scaled_dot");
  const matrix& q = in.queries;
  const matrix& k = in.keys;
  matrix e = matrix::uninitialized(q.rows(), k.rows());
  const double scale = 1.0 / std::sqrt(static_cast<double>(k.cols()));
  kernels::gemm(q.rows(), k.rows(), k.cols(), static_cast<float>(scale), q.data(), q.cols(),
                k.data(), k.cols(), true, 0.0f, e.data(), e.cols());
  return e;
}

// ---- general: q_iᵀ W k_j ------------------------------------------------------------------------
// pass 1: R = Q W (n_q × d_k); pass 2: E = R Kᵀ.

matrix general_scores_ref(const matrix& q, const matrix& k, const matrix& w) {
  return matmul_nt_ref(matmul_nn_ref(q, w), k);
}

matrix score_general(const score_inputs& in) {
  const matrix w = in.params.require_matrix("score.W", in.queries.cols(), in.keys.cols());
  return kernels::matmul_nt(kernels::matmul_nn(in.queries, w), in.keys);
}

// ---- additive (Bahdanau): vᵀ tanh(W_q q_i + W_k k_j + b) --------------------------------------
// pass 1: P = Q W_qᵀ (n_q × d_a), R = K W_kᵀ (n_k × d_a), once each;
// pass 2: e_ij = Σ_a v_a tanh(P_ia + R_ja + b_a)  — O(n_q n_k d_a), no n_q×n_k×d_a tensor.

matrix additive_scores_ref(const matrix& q, const matrix& k, const matrix& w_q,
                           const matrix& w_k, const std::vector<float>& v,
                           const std::vector<float>& b) {
  const matrix p = matmul_nt_ref(q, w_q);
  const matrix r = matmul_nt_ref(k, w_k);
  const std::size_t n_q = q.rows(), n_k = k.rows(), d_a = v.size();
  matrix e(n_q, n_k);
  for (std::size_t i = 0; i < n_q; ++i) {
    for (std::size_t j = 0; j < n_k; ++j) {
      double s = 0.0;
      for (std::size_t a = 0; a < d_a; ++a)
        s += v[a] * std::tanh(static_cast<double>(p(i, a)) + r(j, a) + b[a]);
      e(i, j) = static_cast<float>(s);
    }
  }
  return e;
}

matrix score_additive(const score_inputs& in) {
  const std::size_t d_a = hidden_size(in);
  const matrix w_q = in.params.require_matrix("score.W_q", d_a, in.queries.cols());
  const matrix w_k = in.params.require_matrix("score.W_k", d_a, in.keys.cols());
  const auto v = in.params.require_vector("score.v", d_a);
  const auto b = in.params.require_vector("score.b", d_a, param_init::zeros);
  const matrix p = kernels::matmul_nt(in.queries, w_q);
  const matrix r = kernels::matmul_nt(in.keys, w_k);
  matrix e = matrix::uninitialized(in.queries.rows(), in.keys.rows());
  kernels::additive_scores(p.data(), r.data(), v.data(), b.data(), p.rows(), r.rows(), d_a,
                           e.data());
  return e;
}

// ---- concat (Luong): vᵀ tanh(W [q_i ; k_j]) ----------------------------------------------------
// The plain definition: build [q_i ; k_j] (d_q + d_k) for every pair and apply W to it.
// (additive_scores_ref with W = [W_q W_k] and b = 0 computes the same; the tests check it.)

matrix concat_scores_ref(const matrix& q, const matrix& k, const matrix& w,
                         const std::vector<float>& v) {
  const std::size_t n_q = q.rows(), n_k = k.rows(), d_q = q.cols(), d_k = k.cols();
  const std::size_t d_a = v.size();
  if (w.rows() != d_a || w.cols() != d_q + d_k)
    throw std::logic_error("concat_scores: W must be [d_a, d_q + d_k]");
  matrix e(n_q, n_k);
  std::vector<float> qk(d_q + d_k);
  for (std::size_t i = 0; i < n_q; ++i) {
    for (std::size_t j = 0; j < n_k; ++j) {
      std::copy(q.row(i), q.row(i) + d_q, qk.begin());
      std::copy(k.row(j), k.row(j) + d_k, qk.begin() + static_cast<std::ptrdiff_t>(d_q));
      double s = 0.0;
      for (std::size_t a = 0; a < d_a; ++a)
        s += v[a] * std::tanh(dot(w.row(a), qk.data(), d_q + d_k));
      e(i, j) = static_cast<float>(s);
    }
  }
  return e;
}

matrix score_concat(const score_inputs& in) {
  const std::size_t d_a = hidden_size(in);
  const matrix w = in.params.require_matrix("score.W", d_a, in.queries.cols() + in.keys.cols());
  const auto v = in.params.require_vector("score.v", d_a);
  // W [q ; k] = W_1 q + W_2 k with W = [W_1 W_2]: project each side once, then the additive
  // kernel (no bias).
  const matrix& q = in.queries;
  const matrix& k = in.keys;
  matrix p = matrix::uninitialized(q.rows(), d_a), r = matrix::uninitialized(k.rows(), d_a);
  kernels::gemm(q.rows(), d_a, q.cols(), 1.0f, q.data(), q.cols(), w.data(), w.cols(), true, 0.0f,
                p.data(), d_a);
  kernels::gemm(k.rows(), d_a, k.cols(), 1.0f, k.data(), k.cols(), w.data() + q.cols(), w.cols(),
                true, 0.0f, r.data(), d_a);
  matrix e = matrix::uninitialized(q.rows(), k.rows());
  kernels::additive_scores(p.data(), r.data(), v.data(), nullptr, q.rows(), k.rows(), d_a,
                           e.data());
  return e;
}

// ---- cosine (content-based, NTM) --------------------------------------------------------------

matrix cosine_scores(const matrix& q, const matrix& k, double sharpen) {
  if (q.cols() != k.cols()) throw std::logic_error("cosine_scores: d_q != d_k");
  std::vector<double> kn(k.rows());
  for (std::size_t j = 0; j < k.rows(); ++j) kn[j] = l2_norm(k.row(j), k.cols());
  matrix e(q.rows(), k.rows());
  for (std::size_t i = 0; i < q.rows(); ++i) {
    const double qn = l2_norm(q.row(i), q.cols());
    for (std::size_t j = 0; j < k.rows(); ++j) {
      const double denom = qn * kn[j];
      double c = denom > 0.0 ? dot(q.row(i), k.row(j), q.cols()) / denom : 0.0;
      c = std::fmax(-1.0, std::fmin(1.0, c));  // rounding can step just outside [-1, 1]
      e(i, j) = static_cast<float>(sharpen * c);
    }
  }
  return e;
}

matrix score_cosine(const score_inputs& in) {
  require_same_dims(in, "cosine");
  return cosine_scores(in.queries, in.keys, in.sharpen);
}

// ---- location (Luong): e_i = W q_i, one score per position -------------------------------------

matrix location_scores(const matrix& q, std::size_t n_k, const matrix& w) {
  if (w.rows() < n_k || w.cols() != q.cols())
    throw std::logic_error("location_scores: W must be [n_max >= n_k, d_q]");
  const matrix all = matmul_nt_ref(q, w);  // n_q × n_max
  return all.columns(0, n_k);
}

matrix score_location(const score_inputs& in) {
  const std::size_t n_k = in.keys.rows(), d_q = in.queries.cols();
  const auto& t = in.params.require_rows_at_least("score.W", n_k, d_q, n_k);
  const matrix w(static_cast<std::size_t>(t.shape[0]), d_q, t.values);
  return location_scores(in.queries, n_k, w);
}

// ---- relative (Transformer-XL) ----------------------------------------------------------------
// pass 1: P_δ = W_R r_δ for every offset δ = i − j in [−(n_k − 1), n_q − 1] (n_q + n_k − 1
// vectors of d_k); pass 2: the four terms per pair, O(n_q n_k d_k).

matrix relative_scores(const matrix& q, const matrix& k, const matrix& w_r,
                       const std::vector<float>& u, const std::vector<float>& w) {
  const std::size_t n_q = q.rows(), n_k = k.rows(), d = k.cols();
  if (q.cols() != d || w_r.rows() != d || w_r.cols() != d || u.size() != d || w.size() != d)
    throw std::logic_error("relative_scores: shapes must all be d_k");
  const std::size_t offsets = n_q + n_k - 1;  // δ + (n_k − 1) indexes the rows
  matrix r(offsets, d);
  for (std::size_t o = 0; o < offsets; ++o) {
    const auto s = sinusoid(static_cast<double>(o) - static_cast<double>(n_k - 1), d);
    std::copy(s.begin(), s.end(), r.row(o));
  }
  const matrix p = matmul_nt_ref(r, w_r);  // offsets × d: row o is W_R r_δ
  std::vector<double> uk(n_k), wp(offsets);
  for (std::size_t j = 0; j < n_k; ++j) uk[j] = dot(u.data(), k.row(j), d);
  for (std::size_t o = 0; o < offsets; ++o) wp[o] = dot(w.data(), p.row(o), d);
  matrix e(n_q, n_k);
#pragma omp parallel for schedule(static) if (n_q * n_k * d > 100000)
  for (std::ptrdiff_t ii = 0; ii < static_cast<std::ptrdiff_t>(n_q); ++ii) {
    const auto i = static_cast<std::size_t>(ii);
    for (std::size_t j = 0; j < n_k; ++j) {
      const std::size_t o = i + n_k - 1 - j;
      e(i, j) = static_cast<float>(dot(q.row(i), k.row(j), d) + dot(q.row(i), p.row(o), d) + uk[j] +
                                   wp[o]);
    }
  }
  return e;
}

matrix score_relative(const score_inputs& in) {
  require_same_dims(in, "relative");
  const std::size_t d = in.keys.cols();
  const matrix w_r = in.params.require_matrix("score.W_R", d, d);
  const auto u = in.params.require_vector("score.u", d);
  const auto w = in.params.require_vector("score.w", d);
  // scaled by 1/√d_k, as Transformer-XL scales its scores (without it the four terms of d = 300
  // vectors make nearly one-hot maps)
  matrix e = relative_scores(in.queries, in.keys, w_r, u, w);
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  for (std::size_t k = 0; k < e.size(); ++k) e.data()[k] *= scale;
  return e;
}

}  // namespace attnviz
