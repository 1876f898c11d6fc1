#include "jobs/model_bench_job.h"

#include <fmt/format.h>

#include "analysis/head_stats.h"
#include "analysis/layer_maps.h"
#include "error.h"
#include "jobs/bench_stats.h"
#include "jobs/model_job.h"
#include "kernels/kernels.h"
#include "model/forward.h"
#include "model/hf_model.h"
#include "params/rng.h"
#include "vision/preprocess.h"

namespace attnviz {
namespace {

std::vector<std::int64_t> random_ids(std::size_t n, std::size_t vocab, std::uint64_t seed) {
  splitmix64 rng(seed, "bench.ids");
  std::vector<std::int64_t> ids(n);
  for (auto& id : ids) id = static_cast<std::int64_t>(rng.next() % vocab);
  return ids;
}

// A vision model's input: uniform pixels in [−1, 1) at its own image size (n = 1 + extra
// tokens + patches, whatever --n says).
pixel_tensor random_pixels(const model_config& c, std::uint64_t seed) {
  splitmix64 rng(seed, "bench.pixels");
  pixel_tensor p;
  p.height = p.width = c.vision.image_size;
  p.chw.resize(3 * p.height * p.width);
  for (float& v : p.chw)
    v = static_cast<float>(static_cast<double>(rng.next() >> 11) * 0x1p-52 - 1.0);
  return p;
}

void count_flops(const model_config& c, std::size_t n, model_bench_report& r) {
  const double L = static_cast<double>(c.layers), d = static_cast<double>(c.d_model),
               H = static_cast<double>(c.heads), KV = static_cast<double>(c.kv_heads),
               dh = static_cast<double>(c.head_dim), I = static_cast<double>(c.intermediate),
               nn = static_cast<double>(n);
  const double mlp = c.gated_mlp ? 3.0 : 2.0;
  r.gflop_products = L * 2.0 * nn * (d * H * dh + 2.0 * d * KV * dh + H * dh * d + mlp * d * I) / 1e9;
  r.gflop_attention = L * H * 2.0 * 2.0 * nn * nn * dh / 1e9;
  if (c.vision.on) {  // the patch projection: every patch's C·P² pixels through d outputs
    const double P = static_cast<double>(c.vision.patch_size);
    const double g = static_cast<double>(c.vision.image_size) / P;
    r.gflop_products += 2.0 * g * g * 3.0 * P * P * d / 1e9;
  }
}

// The views `model` and `heads` compute from a forward's maps, each timed once.
stage_list time_views(const model_forward& f) {
  stage_clock clock;
  stage_list out;
  const model_maps maps{f.map(0, 0), f.layers, f.heads, f.n, {}};
  std::vector<std::size_t> layers(f.layers), heads(f.heads);
  for (std::size_t l = 0; l < f.layers; ++l) layers[l] = l;
  for (std::size_t h = 0; h < f.heads; ++h) heads[h] = h;
  clock.lap();
  reduce_maps(maps, layers, heads, map_reduce::mean);
  out.emplace_back("mean", clock.lap());
  reduce_maps(maps, layers, heads, map_reduce::max);
  out.emplace_back("max", clock.lap());
  attention_rollout(maps, layers);
  out.emplace_back("rollout", clock.lap());
  measure_heads(f.map(0, 0), f.layers * f.heads, f.n);
  out.emplace_back("head_stats", clock.lap());
  return out;
}

}  // namespace

model_bench_report model_bench_job(const model_bench_config& config) {
  if (config.n == 0) throw usage_error(param("n") + " must be at least 1");
  if (config.reps == 0) throw usage_error(param("reps") + " must be at least 1");
  model_bench_report report;
  stage_clock clock;
  const hf_model m = load_model(config.model_dir);
  refuse_encoder_decoder(m.config, config.model_dir, "bench --model");
  report.load_seconds = clock.lap();
  report.config = m.config;
  report.n = config.n;
  report.threads = kernels::threads();
  report.isa = std::string(kernels::active_isa());
  report.weights_dtype = std::string(dtype_name(m.layers.front().down->dtype));
  const bool vision = m.config.vision.on;
  const std::vector<std::int64_t> ids =
      vision ? std::vector<std::int64_t>{} : random_ids(config.n, m.config.vocab, config.seed);
  const pixel_tensor pixels = vision ? random_pixels(m.config, config.seed) : pixel_tensor{};

  std::vector<stage_list> stages;
  for (std::size_t rep = 0; rep < config.warmup + config.reps; ++rep) {
    clock.lap();
    const model_forward f = vision ? run_model_on_image(m, pixels) : run_model(m, ids);
    report.n = f.n;
    const double seconds = clock.lap();
    if (rep < config.warmup) continue;
    report.total_seconds.push_back(seconds);
    stages.push_back(f.stage_seconds);
    if (rep + 1 == config.warmup + config.reps) report.view_seconds = time_views(f);
  }
  report.median_total = median_of(report.total_seconds);
  report.median_stage = median_stages(stages);
  count_flops(m.config, report.n, report);
  report.mapped_mib = static_cast<double>(m.weights.mapped_bytes()) / (1 << 20);
  report.maps_mib = static_cast<double>(m.config.layers * m.config.heads * report.n * report.n) *
                    sizeof(float) / (1 << 20);
  report.peak_rss_mib = peak_rss_mib();
  return report;
}

}  // namespace attnviz
