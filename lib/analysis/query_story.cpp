#include "analysis/query_story.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attention/registry.h"

namespace attnviz {

std::string query_story(const attention_result& r, const query_row& row, std::size_t i) {
  const std::size_t n_k = r.key_tokens.size();
  const matrix& a = *row.weights;
  auto masked = [&](std::size_t j) {
    return row.masked && !row.masked->empty() && (*row.masked)[i * n_k + j];
  };
  std::string t = fmt::format("query {} \"{}\"{}\n", i, r.query_tokens[i],
                              row.what.empty() ? "" : " · " + row.what);

  t += fmt::format("1. score {}", r.spec.score);
  if (row.scores) {
    std::size_t hi = n_k, lo = n_k;
    for (std::size_t j = 0; j < n_k; ++j) {
      if (masked(j) || !std::isfinite((*row.scores)(i, j))) continue;
      if (hi == n_k || (*row.scores)(i, j) > (*row.scores)(i, hi)) hi = j;
      if (lo == n_k || (*row.scores)(i, j) < (*row.scores)(i, lo)) lo = j;
    }
    if (hi < n_k)
      t += fmt::format(": highest e = {:.4f} for \"{}\", lowest {:.4f} for \"{}\"",
                       (*row.scores)(i, hi), r.key_tokens[hi], (*row.scores)(i, lo),
                       r.key_tokens[lo]);
  }
  t += "\n";

  std::size_t n_masked = 0;
  for (std::size_t j = 0; j < n_k; ++j) n_masked += masked(j);
  t += fmt::format("2. align {}: ", r.spec.align);
  if (n_masked == n_k) {
    t += "every key is masked: zero weights, zero context\n";
    return t;
  }
  std::vector<std::size_t> order(n_k);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return a(i, x) > a(i, y); });
  const std::size_t top = std::min<std::size_t>(3, n_k);
  double share = 0.0, entropy = 0.0;
  std::string tops;
  for (std::size_t k = 0; k < top; ++k) {
    const double w = a(i, order[k]);
    if (w <= 0.0) break;
    share += w;
    tops += fmt::format("{}{} {:.1f}%", k ? ", " : "", r.key_tokens[order[k]], 100.0 * w);
  }
  for (std::size_t j = 0; j < n_k; ++j)
    if (a(i, j) > 0.0f) entropy -= a(i, j) * std::log2(static_cast<double>(a(i, j)));
  t += fmt::format(
      "top keys {} ({:.1f}% together); entropy {:.2f} bits (uniform over {} keys: "
      "{:.2f})",
      tops, 100.0 * share, entropy, n_k - n_masked, std::log2(static_cast<double>(n_k - n_masked)));
  if (n_masked) t += fmt::format("; {} key(s) masked (weight 0)", n_masked);
  t += "\n";

  t += fmt::format("3. context {}", r.spec.context);
  if (row.chosen_keys && !row.chosen_keys->empty() && (*row.chosen_keys)[i] >= 0)
    t += fmt::format(": the value of the chosen key j* = {} \"{}\"", (*row.chosen_keys)[i],
                     r.key_tokens[static_cast<std::size_t>((*row.chosen_keys)[i])]);
  if (row.context) {
    const float* c = row.context->row(i);
    double norm = 0.0;
    for (std::size_t d = 0; d < row.context->cols(); ++d) norm += double(c[d]) * c[d];
    t += fmt::format("{} |c_{}| = {:.4f} (d_v = {})",
                     row.chosen_keys && !row.chosen_keys->empty() ? ";" : ":", i, std::sqrt(norm),
                     row.context->cols());
  }
  t += "\n";
  return t;
}

}  // namespace attnviz
