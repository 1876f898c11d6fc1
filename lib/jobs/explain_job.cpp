#include "jobs/explain_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>

#include "analysis/query_pick.h"
#include "error.h"
#include "jobs/memory_guard.h"
#include "params/param_store.h"
#include "render/explain_trace.h"
#include "text/lookup.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

std::vector<neighbour> nearest_words(const float* c, std::size_t d, const embedding_table& table,
                                     std::size_t k) {
  std::vector<neighbour> all;
  const double cn = l2_norm(c, d);
  if (cn == 0.0) return all;
  for (const auto& [word, v] : table.vectors) {
    const double vn = l2_norm(v.data(), d);
    if (vn > 0.0) all.push_back({word, dot(c, v.data(), d) / (cn * vn)});
  }
  const std::size_t n = std::min(k, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                    [](const neighbour& a, const neighbour& b) {
                      return a.cosine != b.cosine ? a.cosine > b.cosine : a.word < b.word;
                    });
  all.resize(n);
  return all;
}

query_trace trace_query(const explain_config& c, const prepared_input& in, param_store& params) {
  query_trace q;
  q.r = run_attention(in.input, c.spec, params);
  q.head_index = c.head;
  q.embeddings_name = in.embeddings_name;
  q.table_dim = in.table.dim;
  q.table_rows = in.table.rows;
  q.vocabulary = c.vocabulary;
  q.params_source = params.source();
  for (const auto& [name, tensor] : params.used()) q.params_used.emplace_back(name, tensor.shape);
  const attention_result& r = q.r;
  if (c.head >= r.heads.size())
    throw usage_error(fmt::format("{} {}: the run has {} head{} (0 to {})", param("head"), c.head,
                                  r.heads.size(), r.heads.size() == 1 ? "" : "s",
                                  r.heads.size() - 1));
  const head_result& h = q.head();
  const query_pick pick = pick_query(r.query_tokens, c.query);
  q.i = pick.index;
  q.note = pick.note;
  const std::size_t n_k = r.key_tokens.size();
  q.order.resize(n_k);
  std::iota(q.order.begin(), q.order.end(), 0);
  std::stable_sort(q.order.begin(), q.order.end(), [&](std::size_t a, std::size_t b) {
    return h.weights(q.i, a) > h.weights(q.i, b);
  });
  q.top = std::min(c.top_k, n_k);
  q.norm = l2_norm(h.context.row(q.i), r.d_v);
  if (r.d_v == in.table.dim)
    q.near = nearest_words(h.context.row(q.i), r.d_v, in.table, c.neighbours);
  if (r.multihead()) {
    q.out_norm = l2_norm(r.output.row(q.i), r.d_model);
    if (r.d_model == in.table.dim)
      q.out_near = nearest_words(r.output.row(q.i), r.d_model, in.table, c.neighbours);
  }
  return q;
}

}  // namespace

explain_report run_explain(const explain_config& c) {
  input_config input = c.input;
  input.vocabulary_rows = c.vocabulary;
  const prepared_input in = prepare_input(input);
  // the walk keeps every head's maps (and the JSON holds one row of them)
  run_size size;
  size.n_q = in.input.query_tokens.size();
  size.n_k = in.input.key_tokens.size();
  size.d_v = in.input.values.cols();
  size.heads = std::max<std::size_t>(c.spec.heads, 1);
  check_memory(with_parameters(size, c.spec, in.input.queries.cols(), false), c.max_memory);
  param_store params = param_store::open(c.params_in, c.spec.seed, c.params_prefix);
  const query_trace q = trace_query(c, in, params);
  explain_report rep;
  for (auto& w : input_warnings(in, c.input)) rep.warnings.push_back(std::move(w));
  if (!q.note.empty()) rep.warnings.push_back(q.note);
  rep.text = explain_header(q) + explain_stages(q) + explain_row(q);
  rep.json = explain_json(q);
  return rep;
}

}  // namespace attnviz
