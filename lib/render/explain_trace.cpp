#include "render/explain_trace.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "attention/registry.h"
#include "attnviz/version.h"
#include "text/lookup.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

using ojson = nlohmann::ordered_json;

// Words of `text` in lines of at most `width` columns, each after `indent` spaces.
std::string wrap(std::string_view text, std::size_t indent, std::size_t width = 92) {
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    start = end + 1;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

std::string aliases_of(const variant_info& v) {
  return v.aliases.empty() ? std::string() : fmt::format(" (also: {})", fmt::join(v.aliases, ", "));
}

using stage_list = std::pair<const char*, const variant_info*>[3];

void stages_of(const attention_result& r, stage_list& stages) {
  stages[0] = {"1. score  ", &find_score(r.spec.score).info};
  stages[1] = {"2. align  ", &find_align(r.spec.align).info};
  stages[2] = {"3. context", &find_context(r.spec.context).info};
}

ojson neighbours_json(const std::vector<neighbour>& words) {
  ojson out = ojson::array();
  for (const auto& n : words) out.push_back({{"word", n.word}, {"cosine", n.cosine}});
  return out;
}

}  // namespace

// The header: the run's shape, heads, position, the query.
std::string explain_header(const query_trace& q) {
  const attention_result& r = q.r;
  std::string t;
  t += fmt::format("{}-attention{}, {} queries × {} keys, d_model = {}, d_k = {}, d_v = {} ({})\n",
                   structure_name(r.structure),
                   r.spec.project ? " with projections W_Q, W_K, W_V" : "", r.query_tokens.size(),
                   r.key_tokens.size(), r.d_model, r.d_k, r.d_v, q.embeddings_name);
  if (r.multihead())
    t += fmt::format(
        "multi-head: head {} of heads 0 to {} (--head), d_k = {} per head; heads combined by "
        "{} through W^O into the output\n",
        q.head_index, r.heads.size() - 1, r.d_k,
        r.spec.combine == head_combine::weighted
            ? "the Weighted Transformer's shares kappa_h (Ahmed et al. 2017)"
            : "concatenation (Vaswani et al. 2017)");
  if (r.spec.position != position_scheme::none) {
    const auto& pos = find_position(position_name(r.spec.position)).info;
    t += fmt::format("position: {} — {}\n             {}\n", pos.name, pos.summary, pos.formula);
    t += wrap(pos.contrast, 13);
    if (r.spec.position == position_scheme::alibi)
      t += fmt::format("             this head's slope m = {:.6g}\n", q.head().alibi_slope);
  }
  t += fmt::format("query {} \"{}\"\n\n", q.i, r.query_tokens[q.i]);
  return t;
}

// The three stages with their formulas and papers, the settings, the parameters used.
std::string explain_stages(const query_trace& q) {
  const attention_result& r = q.r;
  stage_list stages;
  stages_of(r, stages);
  std::string t;
  for (const auto& [label, v] : stages) {
    t += fmt::format("{} {}{} — {}\n", label, v->name, aliases_of(*v), v->summary);
    t += fmt::format("             {}\n", v->formula);
    t += wrap(v->contrast, 13);
    t += fmt::format("             paper: {}\n", v->paper);
  }
  if (find_align(r.spec.align).uses_temperature)
    t += fmt::format("temperature tau = {:g}\n", r.spec.temperature);
  if (const auto masks = r.spec.masks.describe(); !masks.empty())
    t += fmt::format("masks: {} (masked keys get -inf scores, weight 0)\n", fmt::join(masks, ", "));
  t += fmt::format("\nparameters ({}):\n", q.params_source);
  if (q.params_used.empty()) t += "  none: this variant has no learned parameters\n";
  for (const auto& [name, shape] : q.params_used)
    t += fmt::format("  {:<16} {}\n", name, shape_string(shape));
  return t;
}

// The query's row: every key's score and weight, the top keys, the context and output vectors.
std::string explain_row(const query_trace& q) {
  const attention_result& r = q.r;
  const head_result& h = q.head();
  const std::size_t i = q.i, n_k = r.key_tokens.size();
  std::string t;
  std::size_t key_w = 4;
  for (const auto& k : r.key_tokens) key_w = std::max(key_w, k.size());
  t += fmt::format("\n{:>3}  {:<{}}  {:>12}  {:>10}\n", "j", "key", key_w, "score e_ij",
                   "weight a_ij");
  for (std::size_t j = 0; j < n_k; ++j) {
    const bool masked = !h.masked.empty() && h.masked[i * n_k + j];
    t += fmt::format(
        "{:>3}  {:<{}}  {:>12.4f}  {:>10.4f}{}{}\n", j, r.key_tokens[j], key_w, h.scores(i, j),
        h.weights(i, j), masked ? "   masked" : "",
        !h.chosen_keys.empty() && h.chosen_keys[i] == static_cast<int>(j) ? "   <- j*" : "");
  }
  t += "\ntop keys:";
  for (std::size_t k = 0; k < q.top; ++k)
    t += fmt::format(" {} {:.1f}%{}", r.key_tokens[q.order[k]], 100.0 * h.weights(i, q.order[k]),
                     k + 1 < q.top ? "," : "\n");
  if (h.masked_rows[i]) t += "every key of this query is masked: zero weights, zero context\n";

  t += fmt::format("context c_{}: |c| = {:.4f}", i, q.norm);
  if (r.d_v == q.table_dim) {
    t += fmt::format("; nearest of the file's first {} words (cosine):",
                     std::min<std::uint64_t>(q.vocabulary, q.table_rows));
    for (std::size_t k = 0; k < q.near.size(); ++k)
      t += fmt::format(" {} {:.3f}{}", q.near[k].word, q.near[k].cosine,
                       k + 1 < q.near.size() ? "," : "");
    t += "\n";
  } else {
    t += fmt::format(" (in the projected space, d_v = {}: not comparable with word vectors)\n",
                     r.d_v);
  }
  // multi-head: the combined output row lives in the embedding space again
  if (r.multihead()) {
    t += fmt::format("output (all {} heads through W^O): |o| = {:.4f}", r.heads.size(),
                     q.out_norm);
    if (r.d_model == q.table_dim) {
      t += "; nearest words (cosine):";
      for (std::size_t k = 0; k < q.out_near.size(); ++k)
        t += fmt::format(" {} {:.3f}{}", q.out_near[k].word, q.out_near[k].cosine,
                         k + 1 < q.out_near.size() ? "," : "");
    }
    t += "\n";
  }
  return t;
}

std::string explain_json(const query_trace& q) {
  const attention_result& r = q.r;
  const head_result& h = q.head();
  const std::size_t i = q.i, n_k = r.key_tokens.size();
  stage_list stages;
  stages_of(r, stages);
  ojson j;
  j["tool"] = fmt::format("attn-viz {}", version);
  j["structure"] = structure_name(r.structure);
  j["query_index"] = i;
  j["query_token"] = r.query_tokens[i];
  j["key_tokens"] = r.key_tokens;
  for (const auto& [label, v] : stages) {
    ojson sj;
    sj["name"] = v->name;
    sj["aliases"] = v->aliases;
    sj["formula"] = v->formula;
    sj["differs"] = v->contrast;
    sj["paper"] = v->paper;
    j[std::string(label).substr(3, std::string(label).find_last_not_of(' ') - 2)] = sj;
  }
  ojson ps = ojson::object();
  for (const auto& [name, shape] : q.params_used) ps[name] = shape;
  j["parameters"] = ps;
  j["temperature"] = r.spec.temperature;
  j["masks"] = r.spec.masks.describe();
  std::vector<double> e(n_k), a(n_k);
  for (std::size_t k = 0; k < n_k; ++k) e[k] = h.scores(i, k), a[k] = h.weights(i, k);
  j["scores"] = e;
  j["weights"] = a;
  ojson topj = ojson::array();
  for (std::size_t k = 0; k < q.top; ++k)
    topj.push_back(
        {{"key", q.order[k]}, {"token", r.key_tokens[q.order[k]]}, {"weight", a[q.order[k]]}});
  j["top_keys"] = topj;
  j["context_norm"] = q.norm;
  j["nearest_words"] = neighbours_json(q.near);
  if (!h.chosen_keys.empty()) j["chosen_key"] = h.chosen_keys[i];
  j["position"] = position_name(r.spec.position);
  j["heads"] = r.heads.size();
  j["head"] = q.head_index;
  if (r.multihead()) {
    j["output_norm"] = q.out_norm;
    j["output_nearest_words"] = neighbours_json(q.out_near);
  }
  return j.dump(1) + "\n";
}

}  // namespace attnviz
