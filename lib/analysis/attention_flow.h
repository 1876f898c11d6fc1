// Attention flow (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"): the
// layered graph with a node per (layer boundary b ∈ [0, L], token) and an edge (b−1, j) → (b, i)
// of capacity Â_b[i, j] (Â = ½ mean_h A + ½ I, rows renormalised: residual_map); F[i, j] is the
// maximum flow from input token j (before the first chosen layer) to position i (after the
// last). Each F[i, j] <= 1; rows are not renormalised.
//
// attention_flow: one maximum flow per pair, Dinic's algorithm on the dense residual capacities
// of the L boundaries, pairs spread over the threads (each its own residual copy: the same
// numbers on any thread count). When every Â is lower-triangular (a causal mask) every edge
// goes from a token to the same or a later one, so only tokens j … i lie on a path from j to i;
// no augmenting path ever leaves them either (flow never enters a node outside, so no residual
// edge leads out of the range): pair (i, j) works on L · (i − j + 1)² cells instead of L · n².
//   work   causal L · n⁴ / 12 cells a phase over all pairs, bidirectional L · n⁴: exact flow is
//          for short texts (check_flow_size: flow_max_work); rollout is its long-text view.
// attention_flow_ref: the plain reference — a general Dinic on an explicit edge list, one pair
// after another, nothing pruned.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/layer_maps.h"
#include "io/progress.h"
#include "tensor.h"

namespace attnviz {

// The cells a flow over n tokens through `layers` layers visits in one Dinic phase, over all
// pairs, and the most a run may take: about a minute on two cores (measured at 5–7 ns a cell:
// 12 causal layers, 256 tokens, 4.3e9 cells: 28 s), up to 316 tokens through 12 causal layers,
// 170 without a mask.
double flow_work(std::size_t n, std::size_t layers, bool causal);
inline constexpr double flow_max_work = 1e10;
// usage_error naming "view" when flow_work is past flow_max_work, with the longest text that fits.
void check_flow_size(std::size_t n, std::size_t layers, bool causal);

// With a progress bar (rows of F done) past a second's work.
matrix attention_flow(const model_maps& m, const std::vector<std::size_t>& layers,
                      progress_style style = progress_style::quiet);
matrix attention_flow_ref(const model_maps& m, const std::vector<std::size_t>& layers);

}  // namespace attnviz
