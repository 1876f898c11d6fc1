#include "attention/aoa.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "attention/align.h"

namespace attnviz {
namespace {

matrix transpose(const matrix& a) {
  matrix t(a.cols(), a.rows());
  for (std::size_t i = 0; i < a.rows(); ++i)
    for (std::size_t j = 0; j < a.cols(); ++j) t(j, i) = a(i, j);
  return t;
}

}  // namespace

aoa_result attention_over_attention(const matrix& document, const matrix& query) {
  if (document.cols() != query.cols())
    throw std::logic_error("attention_over_attention: document and query sizes differ");
  aoa_result r;
  r.m = matmul_nt_ref(document, query);
  const align_options plain;
  r.beta = align_softmax(r.m, plain);                         // rows of M
  r.alpha = transpose(align_softmax(transpose(r.m), plain));  // columns of M
  const std::size_t n_d = r.m.rows(), n_q = r.m.cols();
  r.beta_bar.assign(n_q, 0.0);
  for (std::size_t i = 0; i < n_d; ++i)
    for (std::size_t j = 0; j < n_q; ++j) r.beta_bar[j] += r.beta(i, j);
  for (auto& b : r.beta_bar) b /= static_cast<double>(n_d);
  r.s.assign(n_d, 0.0);
  for (std::size_t i = 0; i < n_d; ++i)
    for (std::size_t j = 0; j < n_q; ++j) r.s[i] += r.alpha(i, j) * r.beta_bar[j];
  return r;
}

std::vector<std::pair<std::string, double>> aoa_word_scores(
    const std::vector<std::string>& document_tokens, const std::vector<double>& s) {
  std::vector<std::pair<std::string, double>> out;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < document_tokens.size() && i < s.size(); ++i) {
    auto [it, added] = index.emplace(document_tokens[i], out.size());
    if (added) out.emplace_back(document_tokens[i], 0.0);
    out[it->second].second += s[i];
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

}  // namespace attnviz
