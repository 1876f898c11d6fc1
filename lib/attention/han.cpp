#include "attention/han.h"

#include <cmath>
#include <stdexcept>

#include "attention/align.h"

namespace attnviz {

pooled attention_pool(const matrix& h, const matrix& w, const std::vector<float>& b,
                      const std::vector<float>& u) {
  const std::size_t n = h.rows(), d = h.cols();
  if (w.rows() != u.size() || w.cols() != d || b.size() != u.size())
    throw std::logic_error("attention_pool: W must be [d_u, d], b and u [d_u]");
  matrix proj = matmul_nt_ref(h, w);  // n × d_u
  add_row_bias(proj, b);
  matrix scores(1, n);
  for (std::size_t t = 0; t < n; ++t) {
    double e = 0.0;
    for (std::size_t a = 0; a < u.size(); ++a)
      e += std::tanh(static_cast<double>(proj(t, a))) * u[a];
    scores(0, t) = static_cast<float>(e);
  }
  const matrix a = align_softmax(scores, align_options{});
  pooled out;
  out.weights.assign(a.data(), a.data() + n);
  std::vector<double> sum(d, 0.0);
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t c = 0; c < d; ++c) sum[c] += out.weights[t] * h(t, c);
  out.vector.assign(sum.begin(), sum.end());
  return out;
}

han_result hierarchical_attention(const std::vector<matrix>& sentences, param_store& params) {
  if (sentences.empty()) throw std::logic_error("hierarchical_attention: no sentences");
  const std::size_t d = sentences.front().cols();
  const matrix w_w = params.require_matrix("han.W_w", d, d);
  const auto b_w = params.require_vector("han.b_w", d, param_init::zeros);
  const auto u_w = params.require_vector("han.u_w", d);
  han_result r;
  r.sentence_vectors = matrix(sentences.size(), d);
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    const pooled p = attention_pool(sentences[i], w_w, b_w, u_w);
    r.word_weights.push_back(p.weights);
    std::copy(p.vector.begin(), p.vector.end(), r.sentence_vectors.row(i));
  }
  const matrix w_s = params.require_matrix("han.W_s", d, d);
  const auto b_s = params.require_vector("han.b_s", d, param_init::zeros);
  const auto u_s = params.require_vector("han.u_s", d);
  const pooled doc = attention_pool(r.sentence_vectors, w_s, b_s, u_s);
  r.sentence_weights = doc.weights;
  r.document = doc.vector;
  return r;
}

}  // namespace attnviz
