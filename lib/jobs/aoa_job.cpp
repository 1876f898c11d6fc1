#include "jobs/aoa_job.h"

#include <fmt/format.h>

#include "attnviz/version.h"
#include "error.h"
#include "io/file_io.h"
#include "jobs/job_outputs.h"
#include "render/canvas.h"
#include "render/grid.h"
#include "render/json_result.h"

namespace attnviz {

namespace {

// The five panels: M, α, β, β-bar and s, with the top word in the subtitle.
figure aoa_figure(const aoa_report& report, const view_options& view,
                  const std::string& embeddings_name) {
  const aoa_result& r = report.result;
  const matrix beta_bar(1, r.beta_bar.size(),
                        std::vector<float>(r.beta_bar.begin(), r.beta_bar.end()));
  const matrix s(r.s.size(), 1, std::vector<float>(r.s.begin(), r.s.end()));
  grid_spec grid;
  auto panel = [&](const matrix& m, std::string title, std::vector<std::string> rows,
                   std::vector<std::string> cols, std::string row_axis, std::string col_axis,
                   bool diverging) {
    heatmap_spec p;
    p.values = &m;
    p.title = std::move(title);
    p.row_labels = std::move(rows);
    p.col_labels = std::move(cols);
    p.row_axis = std::move(row_axis);
    p.col_axis = std::move(col_axis);
    p.cell = view.cell;
    p.annotate = view.annotate;
    p.cmap = &colormap::named_or_default(diverging ? "" : view.cmap, diverging);
    p.centered = diverging;
    if (!diverging) p.scale = view.colours;  // the weights' panels (M keeps its centred range)
    grid.panels.push_back(std::move(p));
  };
  const auto& doc = report.document_tokens;
  const auto& query = report.query_tokens;
  panel(r.m, "M = D Q^T (matching scores)", doc, query, "document", "query", true);
  panel(r.alpha, "α: softmax of each column", doc, query, "document", "query", false);
  panel(r.beta, "β: softmax of each row", doc, query, "document", "query", false);
  panel(beta_bar, "β-bar: mean of β's rows", {"β-bar"}, query, "", "query", false);
  panel(s, "s = α β-barᵀ", doc, {"s"}, "document", "", false);
  grid.title = "attention-over-attention (Cui et al. 2017)";
  grid.subtitle =
      fmt::format("document {} tokens, query {} tokens · {} · top word: {} ({:.3f})", doc.size(),
                  query.size(), embeddings_name, report.word_scores.front().first,
                  report.word_scores.front().second);
  apply_titles(view, grid.title, grid.subtitle);
  grid.cols = 3;
  grid.scale = scale_mode::panel;
  return grid_figure(grid);
}

}  // namespace

aoa_report run_aoa(const aoa_config& c) {
  check_job(c.out, c.view);
  if (c.input.source.empty() || c.input.target.empty())
    throw usage_error(fmt::format("aoa needs {} and {}", param("document"), param("query")));
  const prepared_input in = prepare_input(c.input);
  // rows: document words, columns: query words
  run_size size =
      output_size(c.out, c.view, in.input.key_tokens.size(), in.input.query_tokens.size());
  size.heads = 2;  // M, α and β: three n_d × n_q matrices
  check_memory(size, c.max_memory);

  aoa_report report;
  report.document_tokens = in.input.key_tokens;
  report.query_tokens = in.input.query_tokens;
  report.result = attention_over_attention(in.input.keys, in.input.queries);
  report.word_scores = aoa_word_scores(report.document_tokens, report.result.s);
  for (auto& w : input_warnings(in, c.input)) report.warnings.push_back(std::move(w));

  job_products made;
  made.json = [&] {
    return aoa_to_json(report.document_tokens, report.query_tokens, report.result,
                       report.word_scores,
                       {fmt::format("attn-viz {}", version), in.embeddings_name, "none",
                        in.oov_tokens, std::string(oov_policy_name(c.input.oov))});
  };
  made.picture = [&] { return aoa_figure(report, c.view, in.embeddings_name); };
  report.written = write_outputs(c.out, made);
  return report;
}

}  // namespace attnviz
