#include "text/lookup.h"
#include "text/utf8.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "error.h"
#include "params/rng.h"
#include "text/tokenizer.h"

namespace attnviz {

void add_wanted(std::unordered_set<std::string>& wanted, const std::vector<std::string>& tokens) {
  for (const auto& t : tokens) {
    wanted.insert(t);
    wanted.insert(lower_case(t));
  }
}

std::string list_tokens(const std::vector<std::string>& tokens, std::size_t limit) {
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < tokens.size() && i < limit; ++i)
    shown.push_back(shorten_for_message(tokens[i]));
  if (tokens.size() <= limit) return fmt::format("{}", fmt::join(shown, ", "));
  return fmt::format("{} … and {} more", fmt::join(shown, ", "), tokens.size() - limit);
}

std::vector<float> oov_hash_vector(const std::string& token, std::size_t dim, double norm) {
  splitmix64 rng(fnv1a64(token));
  std::vector<double> v(dim);
  double ss = 0.0;
  for (auto& x : v) {
    x = rng.uniform(1.0);
    ss += x * x;
  }
  const double scale = (norm > 0.0 ? norm : 1.0) / std::sqrt(ss > 0.0 ? ss : 1.0);
  std::vector<float> out(dim);
  for (std::size_t i = 0; i < dim; ++i) out[i] = static_cast<float>(v[i] * scale);
  return out;
}

embedded_tokens embed_tokens(const std::vector<std::string>& tokens, const embedding_table& table,
                             oov_policy policy) {
  embedded_tokens out;
  out.vectors = matrix(tokens.size(), table.dim);
  std::unordered_set<std::string> seen_oov;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::vector<float>* v = table.find(tokens[i]);
    if (!v) v = table.find(lower_case(tokens[i]));
    if (v) {
      std::copy(v->begin(), v->end(), out.vectors.row(i));
      continue;
    }
    if (seen_oov.insert(tokens[i]).second) out.oov_tokens.push_back(tokens[i]);
    if (policy == oov_policy::hash) {
      const auto h = oov_hash_vector(tokens[i], table.dim, table.mean_norm);
      std::copy(h.begin(), h.end(), out.vectors.row(i));
    }
  }
  if (policy == oov_policy::error && !out.oov_tokens.empty())
    throw input_error(table.source,
                      fmt::format("{} token(s) not in the vocabulary: {} (use {} hash or "
                                  "{} zero to go on)",
                                  out.oov_tokens.size(), list_tokens(out.oov_tokens),
                                  param("oov"), param("oov")));
  return out;
}

}  // namespace attnviz
