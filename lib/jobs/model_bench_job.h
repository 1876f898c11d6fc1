// `attn-viz bench --model DIR`: times a Hugging Face model's forward pass (every layer's every
// head's weights kept, as `attn-viz model` computes them) on reproducible token ids.
//
// The ids are uniform over the vocabulary from splitmix64(seed); speed does not depend on them.
// A vision model reads uniform pixels at its config's image size instead (n is then its tokens:
// CLS, extra tokens and patches; --n is not read), and its patch projection is counted.
// The model is loaded (memory-mapped) once; after `warmup` untimed forwards, `reps` timed ones,
// each a whole run_model call that allocates its own [L, H, n, n] maps, as one `attn-viz model`
// run does. The report gives the median per stage and in total.
//
// FLOPs counted (as ../shared/bench/bench_model.py counts them, so the figures compare):
//   products   L · 2n · (d·H·d_h + 2·d·KV·d_h + H·d_h·d + m·d·I),  m = 3 gated (SwiGLU), else 2
//   attention  L · H · 2 · 2·n²·d_h   (Q Kᵀ and A V over the full n × n, also for causal
//              models, whose masked half the kernel skips)
// Norms, activations and the softmax are not counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/hf_config.h"
#include "stage_times.h"

namespace attnviz {

struct model_bench_config {
  std::string model_dir;
  std::size_t n = 512;
  std::size_t warmup = 1;
  std::size_t reps = 3;
  std::uint64_t seed = 1;
};

struct model_bench_report {
  model_config config;
  std::size_t n = 0, threads = 0;
  std::string isa;
  std::string weights_dtype;  // of the layers' first projection: F32, F16 or BF16
  double load_seconds = 0.0;  // config, mapping and binding (once)
  std::vector<double> total_seconds;  // per timed forward
  stage_list median_stage;            // seconds
  double median_total = 0.0;
  double gflop_products = 0.0, gflop_attention = 0.0;
  double mapped_mib = 0.0;  // the checkpoint files mapped
  double maps_mib = 0.0;    // the [L, H, n, n] float32 maps one forward keeps
  double peak_rss_mib = 0.0;
  // Seconds of each view over the last forward's maps (every layer and head): mean, max,
  // rollout, the head finder's statistics
  stage_list view_seconds;
};

model_bench_report model_bench_job(const model_bench_config& config);

}  // namespace attnviz
