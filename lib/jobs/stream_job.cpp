#include "jobs/stream_job.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/pooled_map.h"
#include "error.h"
#include "io/progress.h"
#include "jobs/job_outputs.h"
#include "jobs/run_job.h"
#include "kernels/kernels.h"
#include "number_format.h"
#include "render/json_result.h"
#include "render/pooled_view.h"
#include "render/views.h"

namespace attnviz {
namespace {

// The map the picture shows: the one head, the chosen head, or the heads' mean / max.
matrix shown_map(const pooled_weights& pooled, const head_view& view, std::string& what) {
  const auto& maps = pooled.maps();
  if (maps.size() == 1) return maps[0];
  if (view.what == head_view::kind::one) {
    what = fmt::format(" · head {}", view.head);
    return maps.at(view.head);
  }
  const bool max = view.what == head_view::kind::max;
  what = fmt::format(" · {} of {} heads", max ? "max" : "mean", maps.size());
  return aggregate_maps(maps, max ? head_aggregate::max : head_aggregate::mean);
}

}  // namespace

std::uint64_t estimate_stream_bytes(const run_size& s, std::size_t d_model, std::size_t bins_q,
                                    std::size_t bins_k) {
  const double n = static_cast<double>(s.n_q + s.n_k), H = static_cast<double>(s.heads);
  const double pooled = H * static_cast<double>(bins_q) * static_cast<double>(bins_k);
  double bytes = 4.0 * (n * static_cast<double>(d_model) * 4.0          // inputs, Q, K, V
                        + H * static_cast<double>(s.n_q * s.d_v) * 2.0  // contexts, output
                        + pooled                                        // pooled maps
                        + static_cast<double>(kernels::threads()) * 4.0 * 1024 * 1024);  // blocks
  if (s.image)
    bytes +=
        (static_cast<double>(bins_q) * 8 + 400) * (static_cast<double>(bins_k) * 8 + 400) * 3.0;
  if (s.json) bytes += pooled * 24.0;
  return static_cast<std::uint64_t>(bytes);
}

run_report run_streamed(const run_config& c, const prepared_input& in) {
  if (c.out.png.empty() && c.out.svg.empty() && c.out.json.empty())
    throw usage_error(fmt::format(
        "{} x {} tokens: streaming{}, which draws a pooled picture: give {}, {} or {} "
        "(a table of that many weights would not help), or {}",
        in.input.query_tokens.size(), in.input.key_tokens.size(),
        c.stream == run_config::streaming::on ? "" : " (automatic for long inputs)", param("png"),
        param("svg"), param("json"), param("no_stream")));
  if (c.view.show == shown_matrix::scores)
    throw usage_error(param("show") +
                      " scores is not available when streaming: the raw scores are never "
                      "kept, only the pooled weights");
  if (c.pixels < 1 || c.pixels > 16384) throw usage_error(fmt::format("{} must be between 1 and 16384, got {}", param("pixels"), c.pixels));
  const std::size_t n_q = in.input.query_tokens.size(), n_k = in.input.key_tokens.size();
  const std::size_t H = std::max<std::size_t>(c.spec.heads, 1);
  if (c.view.heads.what == head_view::kind::one && c.view.heads.head >= H)
    throw usage_error(fmt::format("{} {}: there are {} heads (0 to {})", param("head_view"),
                                  c.view.heads.head, H, H - 1));

  run_size size = output_size(c.out, c.view, n_q, n_k);
  size.d_v = value_size(c.spec, in.input.values.cols());
  size.heads = H;
  const std::size_t bins_q = std::min(n_q, c.pixels), bins_k = std::min(n_k, c.pixels);
  const std::uint64_t param_bytes = parameter_bytes(
      with_parameters(size, c.spec, in.input.queries.cols(), !c.out.params.empty()));
  const std::uint64_t need =
      estimate_stream_bytes(size, in.input.queries.cols(), bins_q, bins_k) + param_bytes;
  if (need > c.max_memory)
    throw usage_error(fmt::format(
        "streaming {} × {} tokens to {} × {} pixels would need about {}, more than the limit of "
        "{}; {} or raise {}",
        n_q, n_k, bins_q, bins_k, format_bytes(need), limit_text(c.max_memory),
        param_bytes > need / 2
            ? fmt::format("{} of it are the parameters and projections: use fewer {} or a "
                          "smaller {}",
                          format_bytes(param_bytes), param("heads"), param("d_k"))
            : fmt::format("use a smaller {}", param("pixels")),
        param("max_memory")));

  param_store params = param_store::open(c.params_in, c.spec.seed, c.params_prefix);
  progress bar("attending", "rows", static_cast<std::uint64_t>(H) * n_q, c.progress);
  pooled_weights pooled(H, n_q, n_k, c.pixels, c.pool,
                        [&bar](std::size_t done, std::size_t) { bar.update(done); });
  run_report report;
  report.result = run_attention(in.input, c.spec, params, &pooled);
  bar.finish();
  report.streamed = true;

  report.warnings = run_warnings(c, in, params);

  job_products made;
  made.json = [&] { return pooled_to_json(report.result, pooled, run_metadata(c, in, params)); };
  made.picture = [&] {
    std::string which;
    const matrix shown = shown_map(pooled, c.view.heads, which);
    pooled_view_spec view;
    view.values = &shown;
    view.rows = pooled.row_bins();
    view.cols = pooled.col_bins();
    view.title = variant_title(report.result);
    view.subtitle = fmt::format(
        "weights a_ij, {}-pooled to {} × {} pixels{} · {} queries × {} keys (streamed) · {}",
        pool_mode_name(c.pool), view.rows.bins, view.cols.bins, which, grouped_number(n_q),
        grouped_number(n_k), in.embeddings_name);
    if (!params.used().empty())
      view.subtitle += fmt::format(" · parameters {}", params_label(params));
    const bool cross = report.result.structure == attention_structure::cross;
    view.row_axis = cross ? "queries i (target)" : "queries i";
    view.col_axis = cross ? "keys j (source)" : "keys j";
    view.cmap = &colormap::named_or_default(c.view.cmap);
    return pooled_heatmap_figure(view);
  };
  made.params = [&] { return params.serialize_used(); };
  report.written = write_outputs(c.out, made);
  return report;
}

}  // namespace attnviz
