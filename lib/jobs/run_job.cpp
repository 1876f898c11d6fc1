#include "jobs/run_job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "attnviz/version.h"
#include "error.h"
#include "io/file_io.h"
#include "params/param_store.h"
#include "render/heatmap.h"
#include "render/json_result.h"
#include "text/embeddings.h"
#include "text/tokenizer.h"

namespace attnviz {
namespace {

struct tokenized {
  attention_structure structure = attention_structure::self;
  std::vector<std::string> queries;
  std::vector<std::string> keys;
};

tokenized tokenize_inputs(const run_config& c) {
  const int given = !c.text.empty() + !c.tokens.empty() + (!c.source.empty() || !c.target.empty());
  if (given == 0)
    throw usage_error("nothing to attend: give --text, --tokens, or --source with --target");
  if (given > 1) throw usage_error("give only one of --text, --tokens, or --source/--target");
  tokenized t;
  const tokenizer_options opts{c.keep_case};
  if (!c.text.empty()) {
    t.queries = tokenize(c.text, opts, "--text");
    if (t.queries.empty()) throw input_error("--text", "has no tokens (only spaces or controls)");
    t.keys = t.queries;
  } else if (!c.tokens.empty()) {
    t.queries = split_pretokenized(c.tokens, "--tokens");
    if (t.queries.empty()) throw input_error("--tokens", "has no tokens");
    t.keys = t.queries;
  } else {
    if (c.source.empty() || c.target.empty())
      throw usage_error("cross attention needs both --source and --target");
    t.structure = attention_structure::cross;
    t.keys = tokenize(c.source, opts, "--source");
    t.queries = tokenize(c.target, opts, "--target");
    if (t.keys.empty()) throw input_error("--source", "has no tokens");
    if (t.queries.empty()) throw input_error("--target", "has no tokens");
  }
  return t;
}

}  // namespace

std::string_view oov_policy_name(oov_policy p) {
  switch (p) {
    case oov_policy::hash:
      return "hash";
    case oov_policy::zero:
      return "zero";
    case oov_policy::error:
      return "error";
  }
  return "?";
}

std::string variant_title(const attention_result& r) {
  return fmt::format("{}-attention{} · score: {} · align: {} · context: {}",
                     structure_name(r.structure), r.spec.project ? " (projected)" : "",
                     r.spec.score, r.spec.align, r.spec.context);
}

run_report run_job(const run_config& c) {
  if (c.embeddings.empty()) throw usage_error("--embeddings FILE is required");
  if (!c.json_out.empty()) check_output_path(c.json_out, "--json");
  if (!c.png_out.empty()) check_output_path(c.png_out, "--png");
  if (!c.params_out.empty()) check_output_path(c.params_out, "--params-out");
  if (c.cell < 0 || c.cell > 256) throw usage_error("--cell must be between 1 and 256 pixels");

  const tokenized tok = tokenize_inputs(c);
  std::unordered_set<std::string> wanted;
  add_wanted(wanted, tok.queries);
  add_wanted(wanted, tok.keys);
  const embedding_table table = read_embeddings(c.embeddings, wanted);

  const embedded_tokens q = embed_tokens(tok.queries, table, c.oov);
  const embedded_tokens k =
      tok.structure == attention_structure::self ? q : embed_tokens(tok.keys, table, c.oov);
  std::vector<std::string> oov = q.oov_tokens;
  for (const auto& t : k.oov_tokens)
    if (std::find(oov.begin(), oov.end(), t) == oov.end()) oov.push_back(t);

  attention_input input;
  input.structure = tok.structure;
  input.query_tokens = tok.queries;
  input.key_tokens = tok.keys;
  input.queries = q.vectors;
  input.keys = k.vectors;
  input.values = k.vectors;

  param_store params =
      c.params_in.empty() ? param_store::seeded(c.spec.seed) : param_store::from_file(c.params_in);
  run_report report;
  report.result = run_attention(input, c.spec, params);

  if (!oov.empty())
    report.warnings.push_back(fmt::format(
        "{} token(s) not in {}: {} ({})", oov.size(), c.embeddings, fmt::join(oov, ", "),
        c.oov == oov_policy::hash
            ? "given deterministic hash vectors; --oov zero or --oov error to change"
            : "given zero vectors"));
  if (const auto unused = params.unused_file_tensors(); !unused.empty())
    report.warnings.push_back(fmt::format("{}: tensors not used by this variant: {}", c.params_in,
                                          fmt::join(unused, ", ")));

  output_batch out;
  if (!c.json_out.empty()) {
    result_metadata meta{fmt::format("attn-viz {}", version),
                         std::filesystem::path(c.embeddings).filename().string(), params.source(),
                         oov, std::string(oov_policy_name(c.oov))};
    out.add(c.json_out, result_to_json(report.result, meta));
  }
  if (!c.png_out.empty()) {
    const head_result& h = report.result.heads.front();
    heatmap_spec spec;
    spec.values = &h.weights;
    spec.row_labels = report.result.query_tokens;
    spec.col_labels = report.result.key_tokens;
    spec.title = variant_title(report.result);
    spec.subtitle =
        fmt::format("weights a_ij · {} queries × {} keys · {}", h.weights.rows(), h.weights.cols(),
                    std::filesystem::path(c.embeddings).filename().string());
    if (!params.used().empty())
      spec.subtitle += fmt::format(" · parameters {}",
                                   params.from_file()
                                       ? std::filesystem::path(params.source()).filename().string()
                                       : params.source());
    spec.row_axis = tok.structure == attention_structure::cross ? "queries (target)" : "queries";
    spec.col_axis = tok.structure == attention_structure::cross ? "keys (source)" : "keys";
    spec.cell = c.cell;
    spec.marked_col_per_row = h.chosen_keys;
    out.add(c.png_out, encode_png(render_heatmap(spec)));
  }
  if (!c.params_out.empty()) out.add(c.params_out, params.serialize_used());
  report.written = out.commit();
  return report;
}

}  // namespace attnviz
