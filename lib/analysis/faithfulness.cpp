#include "analysis/faithfulness.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "params/rng.h"

namespace attnviz {

namespace {

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

double erasure_curves::comprehensiveness_aopc() const {
  return mean_of(comprehensiveness);
}
double erasure_curves::sufficiency_aopc() const {
  return mean_of(sufficiency);
}

erasure_curves erasure_curves_of(const std::vector<std::size_t>& ranking, std::size_t n,
                                 std::size_t K, double full, const erased_probability& p) {
  if (K == 0 || ranking.size() < K)
    throw std::logic_error("erasure_curves_of: fewer erasable tokens than K");
  erasure_curves c;
  std::vector<bool> top(n, false), rest(n, false);  // r_k erased; the others erased
  for (const std::size_t j : ranking) {
    if (j >= n) throw std::logic_error("erasure_curves_of: a position past the input");
    rest[j] = true;
  }
  for (std::size_t k = 1; k <= K; ++k) {
    const std::size_t j = ranking[k - 1];
    top[j] = true;
    rest[j] = false;
    c.comprehensiveness.push_back(full - p(top));
    c.sufficiency.push_back(full - p(rest));
  }
  return c;
}

std::vector<std::size_t> ranking_of(const std::vector<double>& importance,
                                    const std::vector<bool>& erasable) {
  if (importance.size() != erasable.size())
    throw std::logic_error("ranking_of: one importance a position");
  std::vector<std::size_t> order;
  for (std::size_t j = 0; j < erasable.size(); ++j)
    if (erasable[j]) order.push_back(j);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return importance[a] > importance[b]; });
  return order;
}

std::vector<std::size_t> random_ranking(const std::vector<bool>& erasable, std::uint64_t seed,
                                        std::size_t draw) {
  std::vector<std::size_t> order;
  for (std::size_t j = 0; j < erasable.size(); ++j)
    if (erasable[j]) order.push_back(j);
  splitmix64 rng(seed ^ (0x9e3779b97f4a7c15ull * (draw + 1)), "faithfulness");
  for (std::size_t i = order.size(); i > 1; --i) {
    const auto r = static_cast<std::size_t>(rng.next() % i);
    std::swap(order[i - 1], order[r]);
  }
  return order;
}

erasure_curves mean_curves(const std::vector<erasure_curves>& curves) {
  erasure_curves m;
  if (curves.empty()) return m;
  const std::size_t K = curves.front().comprehensiveness.size();
  m.comprehensiveness.assign(K, 0.0);
  m.sufficiency.assign(K, 0.0);
  for (const erasure_curves& c : curves) {
    if (c.comprehensiveness.size() != K || c.sufficiency.size() != K)
      throw std::logic_error("mean_curves: curves of different K");
    for (std::size_t k = 0; k < K; ++k) {
      m.comprehensiveness[k] += c.comprehensiveness[k];
      m.sufficiency[k] += c.sufficiency[k];
    }
  }
  const double inv = 1.0 / static_cast<double>(curves.size());
  for (std::size_t k = 0; k < K; ++k) m.comprehensiveness[k] *= inv, m.sufficiency[k] *= inv;
  return m;
}

}  // namespace attnviz
