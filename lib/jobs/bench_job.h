// `attn-viz bench`: times the pipeline on synthetic, reproducible inputs.
//
// Inputs: X (n_q × d) and, for cross attention, Y (n_k × d), entries uniform in [−1, 1) from
// splitmix64(seed); parameters seeded as in every other command. Each repetition is one
// run_attention call, exactly what `run` computes (weights materialised for the picture),
// without reading embeddings or writing files. After `warmup` untimed calls, `reps` timed ones;
// the report gives the median per stage and in total.
//
// Streaming (stream_pixels > 0): each call hands the weights to a pooled_weights sink of that
// many pixels instead of keeping them (as `run --stream` does); with `png`, the pooled picture is
// also drawn and PNG-encoded at the current --png-level, timed as the stage "png".
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
  std::uint64_t seed = 1;  // the synthetic inputs (and the parameters unless params_in is set)
  std::string params_in, params_prefix;  // a safetensors file (and layer) instead of seeding
  std::size_t stream_pixels = 0;  // > 0: stream, pooling into at most this many pixels a side
  bool png = false;               // streaming only: draw and encode the picture every call
  bool quiet = false;             // streaming: no progress on stderr
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
  std::size_t image_width = 0, image_height = 0, png_bytes = 0;  // with png
};

bench_report bench_job(const bench_config& config);

}  // namespace attnviz
