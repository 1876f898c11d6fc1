// `attn-viz bench --product MxNxK`: one matrix product C = A Bᵀ (A m×k, B n×k as a Linear
// layer's weights are stored, F32, F16 or BF16) timed under several cache blockings in turn,
// round after round in one process, so a host whose speed drifts from minute to minute still
// compares them: each round times every blocking once, and each blocking's speed against the
// first one's is taken within the round (paired), then summarised over the rounds.
//
// B is read fresh from memory every call, as a model's weights are: calls cycle through copies
// of B that together pass 256 MiB (more than any L3 they could stay in). A and C are one buffer
// each (activations, warm in cache as the forward leaves them). Inputs are uniform in [-1, 1)
// from splitmix64(seed), the same bytes in every copy of B.
//
// FLOPs: 2 m n k a call. The C of each blocking's last call is hashed (FNV-1a over its bytes):
// every blocking gives the same bytes (kernels.h), so the hashes agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernels.h"

namespace attnviz {

struct product_bench_config {
  std::size_t m = 0, n = 0, k = 0;
  kernels::element_type weights = kernels::element_type::f32;
  std::vector<std::string> blockings{""};  // ATTNVIZ_BLOCKING specs; "" = the one in use
  std::size_t warmup = 1;                  // untimed rounds
  std::size_t rounds = 10;
  std::uint64_t seed = 1;
};

struct product_bench_blocking {
  std::string spec;  // as given ("" = the one the process started with)
  kernels::blocking sizes;
  kernels::product_plan plan;   // the path and panel group the product took with it
  std::vector<double> seconds;  // one call a round
  double median_s = 0.0, gflops = 0.0;
  // this blocking's speed over the first blocking's, round by round: median and quartiles
  double speed_median = 1.0, speed_q1 = 1.0, speed_q3 = 1.0;
  std::string c_fnv1a;  // hex, of C after its last call
};

struct product_bench_report {
  std::size_t threads = 0, b_copies = 0;
  std::string isa;
  double gflop = 0.0;  // a call
  std::vector<product_bench_blocking> blockings;
};

// "1024x3072x768" → m, n, k; a usage error naming --product otherwise.
void parse_product_shape(const std::string& text, product_bench_config& config);

product_bench_report product_bench_job(const product_bench_config& config);

}  // namespace attnviz
