#include "jobs/run_job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "analysis/subwords.h"
#include "attnviz/version.h"
#include "error.h"
#include "io/file_io.h"
#include "jobs/job_outputs.h"
#include "jobs/stream_job.h"
#include "attention/positional.h"
#include "params/param_store.h"
#include "render/heatmap.h"
#include "render/html_page.h"
#include "render/json_result.h"
#include "render/npy_result.h"

namespace attnviz {

namespace {

bool any_name(const std::vector<std::string>& names, const std::function<bool(const std::string&)>& f) {
  return std::any_of(names.begin(), names.end(), f);
}

// The flag that would read a parameters file of which a run used nothing, from its names.
std::string flag_for_tensors(const std::vector<std::string>& names) {
  const auto starts = [](const std::string& p) {
    return [p](const std::string& n) { return n.rfind(p, 0) == 0; };
  };
  if (any_name(names, [](const std::string& n) {
        return n == "in_proj_weight" || n == "q_proj.weight" || n == "query.weight";
      }))
    return fmt::format("{} reads its projections (W_Q, W_K, W_V)", param("project"));
  if (any_name(names, starts("score.")))
    return fmt::format("{} names the score function whose score.* tensors it holds (attn-viz "
                       "list score)",
                       param("score"));
  if (any_name(names, starts("align.")))
    return fmt::format("{} names the alignment whose align.* tensors it holds", param("align"));
  if (any_name(names, starts("heads.")))
    return fmt::format("{} reads its heads.N.* tensors", param("heads"));
  if (any_name(names, starts("han.")))
    return "attn-viz han reads its han.* tensors";
  for (const auto& n : names)
    if (const auto at = n.find("attn."); at != std::string::npos)
      return fmt::format("it looks like a model's checkpoint: {} {} {} runs one of its attention "
                         "layers, and attn-viz model --model DIR the whole model",
                         param("params-prefix"), n.substr(0, at + 5), param("project"));
  return fmt::format("see attn-viz list for the tensors each variant reads ({})",
                     param("params-out") + " writes those of a run");
}

// A parameters file of which the run used nothing is a mistake, not a warning.
void refuse_unused_file(const param_store& params) {
  if (!params.from_file() || !params.used().empty()) return;
  const std::vector<std::string> unused = params.unused_file_tensors();
  if (unused.empty()) return;
  const std::size_t shown = std::min<std::size_t>(unused.size(), 4);
  throw usage_error(fmt::format(
      "{} {}: this run uses none of its {} tensors ({}{}); {}", param("params"), params.source(),
      unused.size(), fmt::join(unused.begin(), unused.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
      shown < unused.size() ? ", …" : "", flag_for_tensors(unused)));
}

}  // namespace

std::vector<std::string> run_warnings(const run_config& c, const prepared_input& in,
                                      const param_store& params) {
  refuse_unused_file(params);
  std::vector<std::string> warnings;
  for (auto& w : input_warnings(in, c.input)) warnings.push_back(std::move(w));
  if (c.spec.position == position_scheme::alibi)
    if (auto note = alibi_single_head_note(c.spec.heads, c.spec.alibi_slope,
                                           in.input.key_tokens.size());
        !note.empty())
      warnings.push_back(std::move(note));
  if (const auto unused = params.unused_file_tensors(); !unused.empty())
    warnings.push_back(fmt::format("{}: tensors not used by this variant: {}", params.source(),
                                   fmt::join(unused, ", ")));
  return warnings;
}

result_metadata run_metadata(const run_config& c, const prepared_input& in,
                             const param_store& params) {
  result_metadata meta{fmt::format("attn-viz {}", version), in.embeddings_name, params.source(),
                       in.oov_tokens, std::string(oov_policy_name(c.input.oov))};
  if (c.input.merge_subwords) {
    meta.query_pieces = pieces_of_words(in.input.query_tokens);
    meta.key_pieces = pieces_of_words(in.input.key_tokens);
  }
  return meta;
}

run_size size_of_run(const run_config& c, const prepared_input& in) {
  run_size size =
      output_size(c.out, c.view, in.input.query_tokens.size(), in.input.key_tokens.size());
  size.d_v = value_size(c.spec, in.input.values.cols());
  size.heads = std::max<std::size_t>(c.spec.heads, 1);
  return with_parameters(size, c.spec, in.input.queries.cols(), !c.out.params.empty());
}

run_report run_job(const run_config& c) {
  check_job(c.out, c.view);
  if (c.out.figure()) check_head_grid(c.spec.heads, c.view);

  const prepared_input in = prepare_input(c.input);
  const run_size size = size_of_run(c, in);
  // streaming saves the maps, not the parameters: when those alone break the limit, the full
  // run's refusal says so
  const bool stream =
      c.stream == run_config::streaming::on ||
      (c.stream == run_config::streaming::automatic &&
       (size.n_q * size.n_k > auto_stream_cells ||
        (estimate_bytes(size) > c.max_memory && parameter_bytes(size) <= c.max_memory / 2)));
  if (stream && !c.out.html.empty())
    throw usage_error(fmt::format(
        "{} holds the full n_q x n_k maps ({} x {}), which a streamed run never holds; use "
        "{} / {} for the pooled map, or {}",
        param("html"), size.n_q, size.n_k, param("png"), param("json"), param("no_stream")));
  if (stream && !c.out.npy_dir.empty())
    throw usage_error(fmt::format(
        "{} writes the full n_q x n_k maps ({} x {}), which a streamed run never holds; "
        "use {} / {} for the pooled map, or {}",
        param("npy"), size.n_q, size.n_k, param("json"), param("png"), param("no_stream")));
  if (stream && c.input.merge_subwords)
    throw usage_error(fmt::format(
        "{} needs the full maps of the pieces ({} x {}), which a streamed run "
        "never holds; use {}",
        param("merge_subwords"), size.n_q, size.n_k, param("no_stream")));
  if (stream) return run_streamed(c, in);
  check_memory(size, c.max_memory);
  output_batch out;
  run_report report =
      run_prepared(c, in, param_store::open(c.params_in, c.spec.seed, c.params_prefix), out);
  report.written = out.commit();
  return report;
}

run_report run_prepared(const run_config& c, const prepared_input& in, param_store params,
                        output_batch& out) {
  run_report report;
  attention_spec spec = c.spec;  // the raw scores only when an output shows them
  spec.keep_scores = !c.out.json.empty() || !c.out.npy_dir.empty() || !c.out.html.empty() ||
                     c.view.show == shown_matrix::scores;
  report.result = run_attention(in.input, spec, params);
  if (c.input.merge_subwords) report.result = merge_subwords(report.result);
  report.warnings = run_warnings(c, in, params);

  std::string suffix = fmt::format(" · {}", in.embeddings_name);
  if (!params.used().empty()) suffix += fmt::format(" · parameters {}", params_label(params));
  const attention_result& r = report.result;
  job_products made;
  made.json = [&] { return result_to_json(r, run_metadata(c, in, params)); };
  made.picture = [&] { return result_figure(r, c.view, suffix); };
  made.html = [&] {
    return html_page({{"", &r}}, c.view, variant_title(r),
                     fmt::format("{} queries × {} keys{}", r.query_tokens.size(),
                                 r.key_tokens.size(), suffix));
  };
  made.params = [&] { return params.serialize_used(); };
  made.npy = [&](output_batch& batch, const std::string& dir) { add_npy_files(batch, dir, r); };
  add_outputs(out, c.out, made);
  return report;
}

}  // namespace attnviz
