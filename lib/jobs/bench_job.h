// `attn-viz bench`: times the pipeline on synthetic, reproducible inputs.
//
// Inputs: X (n_q × d) and, for cross attention, Y (n_k × d), entries uniform in [−1, 1) from
// splitmix64(seed); parameters seeded as in every other command. Each repetition is one
// run_attention call, exactly what `run` computes (weights materialised for the picture),
// without reading embeddings or writing files. After `warmup` untimed calls, `reps` timed ones;
// the report gives the median per stage and in total.
//
// FLOPs counted (as ../shared/bench/BASELINE.md counts them): projections 2·n_q·d·(H d_k) +
// 2·n_k·d·(H d_k)·2, attention 2·n_q·n_k·H·(d_k + d_v), output projection 2·n_q·(H d_v)·d. The
// softmax and other element-wise work are not counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attention/pipeline.h"

namespace attnviz {

struct bench_config {
  std::size_t n_q = 2048;
  std::size_t n_k = 0;  // 0: self-attention over the n_q tokens
  std::size_t d_model = 768;
  attention_spec spec;  // heads, score, align, … (spec.heads = 0: one head without W^O)
  std::size_t warmup = 1;
  std::size_t reps = 5;
  std::uint64_t seed = 1;
};

struct bench_report {
  std::size_t n_q = 0, n_k = 0, d_model = 0, heads = 0, d_k = 0, d_v = 0;
  std::size_t threads = 0;
  std::string isa;
  std::vector<double> total_seconds;                         // per timed repetition
  std::vector<std::pair<std::string, double>> median_stage;  // seconds
  double median_total = 0.0;
  double gflop_project = 0.0, gflop_attend = 0.0, gflop_combine = 0.0;
  double peak_rss_mib = 0.0;
};

bench_report bench_job(const bench_config& config);

}  // namespace attnviz
