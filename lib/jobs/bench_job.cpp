#include "jobs/bench_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "analysis/pooled_map.h"
#include "jobs/bench_stats.h"
#include "error.h"
#include "io/progress.h"
#include "kernels/kernels.h"
#include "params/param_store.h"
#include "params/rng.h"
#include "render/canvas.h"
#include "render/pooled_view.h"
#include "render/views.h"

namespace attnviz {
namespace {

matrix synthetic(std::size_t rows, std::size_t cols, std::uint64_t seed, std::string_view stream) {
  splitmix64 rng(seed, stream);
  matrix m = matrix::uninitialized(rows, cols);
  for (std::size_t i = 0; i < m.size(); ++i)
    m.data()[i] = static_cast<float>(2.0 * rng.uniform() - 1.0);
  return m;
}

std::vector<std::string> token_names(std::size_t n, char prefix) {
  std::vector<std::string> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = prefix + std::to_string(i);
  return out;
}

// The synthetic input: n_q query vectors (and n_k key vectors for cross attention) of size
// d_model, seeded; the values are the keys.
attention_input bench_input(const bench_config& config) {
  const bool cross = config.n_k > 0;
  attention_input input;
  input.structure = cross ? attention_structure::cross : attention_structure::self;
  input.query_tokens = token_names(config.n_q, 'q');
  input.queries = synthetic(config.n_q, config.d_model, config.seed, "bench.queries");
  if (cross) {
    input.key_tokens = token_names(config.n_k, 'k');
    input.keys = synthetic(config.n_k, config.d_model, config.seed, "bench.keys");
  } else {
    input.key_tokens = input.query_tokens;
    input.keys = input.queries;
  }
  input.values = input.keys;
  return input;
}

// One streamed call (pooling into at most stream_pixels a side), with the picture drawn and
// encoded as stage "png" when asked; the PNG's size and bytes go to the report.
attention_result streamed_call(const bench_config& config, const attention_input& input,
                               param_store& params, std::size_t rep, bench_report& report) {
  const std::size_t heads = std::max<std::size_t>(config.spec.heads, 1);
  progress bar(fmt::format("call {}/{}", rep + 1, config.warmup + config.reps), "rows",
               heads * input.query_tokens.size(),
               config.quiet ? progress_style::quiet : progress_style::automatic);
  pooled_weights pooled(heads, input.query_tokens.size(), input.key_tokens.size(),
                        config.stream_pixels, pool_mode::mean,
                        [&bar](std::size_t done, std::size_t) { bar.update(done); });
  attention_result r = run_attention(input, config.spec, params, &pooled);
  bar.finish();
  if (!config.png) return r;
  auto clock = std::chrono::steady_clock::now();
  const matrix shown = aggregate_maps(pooled.maps(), head_aggregate::mean);
  pooled_view_spec view;
  view.values = &shown;
  view.rows = pooled.row_bins();
  view.cols = pooled.col_bins();
  view.title = variant_title(r);
  const std::string png = encode_png(rasterize(pooled_heatmap_figure(view)));
  r.stage_seconds.emplace_back(
      "png", std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count());
  report.png_bytes = png.size();
  const figure fig = pooled_heatmap_figure(view);
  report.image_width = static_cast<std::size_t>(fig.width());
  report.image_height = static_cast<std::size_t>(fig.height());
  return r;
}

// The work of one call in GFLOP: projections (when projecting), attention (Q Kᵀ and A V) and
// the heads' combination through W^O (with several heads).
void count_flops(const bench_config& config, bench_report& report) {
  const double nq = static_cast<double>(report.n_q), nk = static_cast<double>(report.n_k),
               d = static_cast<double>(report.d_model), H = static_cast<double>(report.heads),
               dk = static_cast<double>(report.d_k), dv = static_cast<double>(report.d_v);
  const bool projected = config.spec.project || config.spec.heads > 0;
  if (projected) report.gflop_project = 2.0 * d * (nq * H * dk + nk * H * dk + nk * H * dv) / 1e9;
  report.gflop_attend = 2.0 * nq * nk * H * (dk + dv) / 1e9;
  if (config.spec.heads > 0) report.gflop_combine = 2.0 * nq * H * dv * d / 1e9;
}

}  // namespace

bench_report bench_job(const bench_config& config) {
  if (config.n_q == 0 || config.d_model == 0)
    throw usage_error(fmt::format("{} and {} must be at least 1", param("n"), param("d")));
  if (config.reps == 0) throw usage_error(param("reps") + " must be at least 1");
  if (config.png && config.stream_pixels == 0)
    throw usage_error(fmt::format("{} times the pooled picture of a streaming run: add {}",
                                  param("png"), param("stream")));
  const attention_input input = bench_input(config);
  param_store params = param_store::open(config.params_in, config.seed, config.params_prefix);

  bench_report report;
  report.threads = kernels::threads();
  report.isa = std::string(kernels::active_isa());
  std::vector<stage_list> stages;
  for (std::size_t rep = 0; rep < config.warmup + config.reps; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    const attention_result r = config.stream_pixels > 0
                                   ? streamed_call(config, input, params, rep, report)
                                   : run_attention(input, config.spec, params);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rep == 0) {
      report.n_q = r.query_tokens.size();
      report.n_k = r.key_tokens.size();
      report.d_model = r.d_model;
      report.heads = r.heads.size();
      report.d_k = r.d_k;
      report.d_v = r.d_v;
    }
    if (rep < config.warmup) continue;
    report.total_seconds.push_back(seconds);
    stages.push_back(r.stage_seconds);
  }
  report.median_total = median_of(report.total_seconds);
  report.median_stage = median_stages(stages);
  count_flops(config, report);
  report.peak_rss_mib = peak_rss_mib();
  return report;
}

}  // namespace attnviz
