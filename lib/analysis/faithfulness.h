// How far a map can be trusted to say which input tokens a prediction rests on: erase the
// tokens it ranks highest and watch the prediction (DeYoung et al. 2020, "ERASER: A Benchmark
// to Evaluate Rationalized NLP Models"; the area over the perturbation curve of Samek et al.
// 2017). With p(x) the model's probability of its own prediction ŷ on the whole input, r_k the
// ranking's top k tokens among those that may be erased, for k = 1 … K:
//
//   comprehensiveness(k) = p(x) − p(x ∖ r_k)     the top k erased: a faithful ranking makes
//                                                 the prediction fall (higher is better)
//   sufficiency(k)       = p(x) − p(r_k)         every erasable token but the top k erased: a
//                                                 faithful ranking keeps it (lower is better)
//   AOPC                 = (1/K) Σ_k of either    the area over each curve, per token erased
//
// What erasing means (dropping the tokens, or replacing them) is the caller's: here the model
// is a function from the erased positions to p.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace attnviz {

// p(ŷ) on the input with the positions where erased[j] is true erased (n entries).
using erased_probability = std::function<double(const std::vector<bool>& erased)>;

struct erasure_curves {
  std::vector<double> comprehensiveness, sufficiency;  // [K]: k = 1 … K
  double comprehensiveness_aopc() const;
  double sufficiency_aopc() const;
};

// The curves of `ranking` (the erasable positions, most important first; at least K of them)
// for the model `p` whose prediction has probability `full` on the whole input of n tokens.
// 2K calls of p.
erasure_curves erasure_curves_of(const std::vector<std::size_t>& ranking, std::size_t n,
                                 std::size_t K, double full, const erased_probability& p);

// The erasable positions (erasable[j]) in decreasing `importance` (ties: the earlier first).
std::vector<std::size_t> ranking_of(const std::vector<double>& importance,
                                    const std::vector<bool>& erasable);
// The erasable positions in a random order (Fisher–Yates from splitmix64(seed, "faithfulness")
// with `draw` mixed in: the same seed and draw give the same order).
std::vector<std::size_t> random_ranking(const std::vector<bool>& erasable, std::uint64_t seed,
                                        std::size_t draw);

// The element-wise mean of several curves of the same K.
erasure_curves mean_curves(const std::vector<erasure_curves>& curves);

}  // namespace attnviz
