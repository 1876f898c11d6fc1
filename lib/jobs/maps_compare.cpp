#include "jobs/maps_compare.h"

#include <fmt/format.h>

#include <filesystem>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/layer_maps.h"
#include "attnviz/version.h"
#include "error.h"
#include "jobs/draw_job.h"
#include "jobs/model_job.h"
#include "render/heatmap.h"

namespace attnviz {
namespace {

matrix map_matrix(const float* a, std::size_t n) {
  return matrix(n, n, std::vector<float>(a, a + n * n));
}

std::string pair_list(const maps_comparison& c, bool most_alike) {
  std::vector<const pair_metrics*> order;
  for (const auto& p : c.metrics.pairs) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(), [&](const pair_metrics* a, const pair_metrics* b) {
    return most_alike ? a->mean_js_divergence_bits < b->mean_js_divergence_bits
                      : a->mean_js_divergence_bits > b->mean_js_divergence_bits;
  });
  std::string s;
  for (std::size_t k = 0; k < std::min<std::size_t>(3, order.size()); ++k)
    s += fmt::format("{}{}–{} {:.3f}", k ? ", " : "", c.labels[order[k]->a], c.labels[order[k]->b],
                     order[k]->mean_js_divergence_bits);
  return s;
}

std::string matrix_text(const maps_comparison& c, const matrix& m, const char* format) {
  std::string s = fmt::format("{:>6}", "");
  for (const auto& l : c.labels) s += fmt::format(" {:>6}", l);
  s += "\n";
  for (std::size_t i = 0; i < m.rows(); ++i) {
    s += fmt::format("{:>6}", c.labels[i]);
    for (std::size_t j = 0; j < m.cols(); ++j)
      s += std::isnan(m(i, j)) ? fmt::format(" {:>6}", "n/a")
                               : fmt::format(" {:>6}", fmt::format(fmt::runtime(format), m(i, j)));
    s += "\n";
  }
  return s;
}

nlohmann::ordered_json rows_json(const matrix& m) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < m.rows(); ++i) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (std::size_t j = 0; j < m.cols(); ++j)
      row.push_back(std::isnan(m(i, j)) ? nlohmann::ordered_json() : nlohmann::ordered_json(static_cast<double>(m(i, j))));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

maps_comparison compare_maps(const maps_source& s, compare_between between, std::size_t layer) {
  maps_comparison c;
  c.between = between;
  c.layer = layer;
  c.causal = s.causal;
  c.source = s.name;
  std::vector<matrix> maps;
  if (between == compare_between::heads) {
    if (layer >= s.layers)
      throw usage_error(fmt::format("{} {}: there are {} layers (0 to {})", param("layer"), layer,
                                    s.layers, s.layers - 1));
    for (std::size_t h = 0; h < s.heads; ++h) {
      maps.push_back(map_matrix(maps_of(s).map(layer, h), s.n));
      c.labels.push_back(fmt::format("H{}", h));
    }
  } else {
    const model_maps m = maps_of(s);
    std::vector<std::size_t> heads(s.heads);
    for (std::size_t h = 0; h < s.heads; ++h) heads[h] = h;
    for (std::size_t l = 0; l < s.layers; ++l) {
      maps.push_back(reduce_maps(m, {l}, heads, map_reduce::mean));
      c.labels.push_back(fmt::format("L{}", l));
    }
  }
  if (maps.size() < 2)
    throw usage_error(fmt::format("there is one {} only: nothing to compare it with",
                                  between == compare_between::heads ? "head" : "layer"));
  std::vector<const matrix*> pointers;
  for (const auto& m : maps) pointers.push_back(&m);
  c.metrics = compare_weights(pointers, s.causal);
  const std::size_t k = maps.size();
  c.js = matrix(k, k, 0.0f);
  c.agreement = matrix(k, k, 1.0f);
  c.spearman = matrix(k, k, 1.0f);
  for (const auto& p : c.metrics.pairs) {
    c.js(p.a, p.b) = c.js(p.b, p.a) = static_cast<float>(p.mean_js_divergence_bits);
    c.agreement(p.a, p.b) = c.agreement(p.b, p.a) = static_cast<float>(p.top_key_agreement);
    c.spearman(p.a, p.b) = c.spearman(p.b, p.a) =
        p.mean_spearman ? static_cast<float>(*p.mean_spearman) : NAN;
  }
  return c;
}

std::string maps_comparison_text(const maps_comparison& c) {
  const bool heads = c.between == compare_between::heads;
  std::string s = heads ? fmt::format("the heads of layer {} of {}", c.layer, c.source)
                        : fmt::format("the layers of {} (each the mean of its heads)", c.source);
  s += c.causal ? " · causal: each row over the keys it sees, row 0 left out\n" : "\n";
  s += fmt::format("\n{:>6}  {:>14}  {:>10}\n", "", "entropy (bits)", "max weight");
  for (std::size_t k = 0; k < c.labels.size(); ++k)
    s += fmt::format("{:>6}  {:>14.4f}  {:>10.4f}\n", c.labels[k],
                     c.metrics.variants[k].mean_entropy_bits, c.metrics.variants[k].mean_max_weight);
  s += "\nJS divergence (bits; 0 = the same rows, 1 = no key in common):\n" +
       matrix_text(c, c.js, "{:.3f}");
  s += "\ntop-1 agreement (share of queries with the same highest-weight key):\n" +
       matrix_text(c, c.agreement, "{:.2f}");
  s += "\nSpearman (rank correlation of the rows):\n" + matrix_text(c, c.spearman, "{:.2f}");
  s += fmt::format("\nmost alike: {}\nmost different: {}\n", pair_list(c, true),
                   pair_list(c, false));
  return s;
}

std::string maps_comparison_json(const maps_comparison& c, const std::string& generator) {
  nlohmann::ordered_json j;
  j["attn-viz"] = generator;
  j["between"] = name_of(compare_between_names, c.between);
  j["layer"] = c.between == compare_between::heads ? nlohmann::ordered_json(c.layer)
                                                   : nlohmann::ordered_json();
  j["source"] = c.source;
  j["causal"] = c.causal;
  j["labels"] = c.labels;
  nlohmann::ordered_json entropy = nlohmann::ordered_json::array(),
                         max_weight = nlohmann::ordered_json::array();
  for (const auto& v : c.metrics.variants) {
    entropy.push_back(v.mean_entropy_bits);
    max_weight.push_back(v.mean_max_weight);
  }
  j["entropy_bits"] = std::move(entropy);
  j["max_weight"] = std::move(max_weight);
  j["js_divergence_bits"] = rows_json(c.js);
  j["top_key_agreement"] = rows_json(c.agreement);
  j["spearman"] = rows_json(c.spearman);
  return j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

figure maps_comparison_figure(const maps_comparison& c, const std::string& subtitle) {
  heatmap_spec spec;
  spec.values = &c.js;
  spec.row_labels = c.labels;
  spec.col_labels = c.labels;
  spec.row_axis = spec.col_axis = c.between == compare_between::heads ? "heads" : "layers";
  spec.title = c.between == compare_between::heads
                   ? fmt::format("JS divergence between the heads of layer {} · {}", c.layer, c.source)
                   : fmt::format("JS divergence between the layers · {}", c.source);
  spec.subtitle = subtitle + " · bits, 0 = alike";
  return heatmap_figure(spec);
}

namespace {

// Which stack of an encoder–decoder model is compared (usage_error for a flag that does not
// apply), from config.json before any work.
seq2seq_stack compared_stack(const maps_compare_config& c) {
  const std::filesystem::path config = std::filesystem::path(c.model_dir) / "config.json";
  std::error_code ec;
  const bool seq2seq = std::filesystem::is_regular_file(config, ec) &&
                       read_model_config(config.string()).encoder_decoder;
  if (!seq2seq) {
    if (!c.stack.empty() || !c.gold_path.empty())
      throw usage_error(fmt::format("{} and {} are for encoder–decoder models (bart, mbart, "
                                    "marian, t5)",
                                    param("stack"), param("gold")));
    return seq2seq_stack::encoder;
  }
  const seq2seq_stack stack =
      c.stack.empty() ? (c.gold_path.empty() ? seq2seq_stack::encoder : seq2seq_stack::cross)
                      : value_of(seq2seq_stack_names, c.stack, "--stack");
  if (stack == seq2seq_stack::cross && c.gold_path.empty())
    throw usage_error(fmt::format("{} cross compares the heads by how well they align words: give "
                                  "the gold alignment with {}",
                                  param("stack"), param("gold")));
  if (stack != seq2seq_stack::cross && !c.gold_path.empty())
    throw usage_error(fmt::format("{} scores the cross-attention heads: leave out {} {}",
                                  param("gold"), param("stack"), c.stack));
  if (stack == seq2seq_stack::cross && c.between != compare_between::heads)
    throw usage_error(fmt::format("{} cross ranks heads: use {} heads", param("stack"),
                                  param("between")));
  return stack;
}

void rank_cross_heads(const maps_compare_config& c, const seq2seq_maps& maps,
                      maps_compare_report& r) {
  const gold_alignment gold = read_gold_file(c.gold_path);
  check_gold_words(gold, cross_words(maps.f->cross_map(0, 0), maps.target_tokens, maps.source_tokens),
                   c.gold_path);
  r.by_alignment = true;
  r.ranking = rank_heads_by_alignment(maps, gold, c.method);
  r.text = alignment_ranking_text(r.ranking);
  job_products made;
  made.json = [&] { return alignment_ranking_json(r.ranking, fmt::format("attn-viz {}", version)); };
  made.picture = [&] { return alignment_ranking_figure(r.ranking, maps.subtitle); };
  r.written = write_outputs(c.out, made);
}

}  // namespace

maps_compare_report run_maps_compare_job(const maps_compare_config& c) {
  c.out.check();
  maps_compare_report r;
  auto finish = [&](const maps_source& s) {
    r.comparison = compare_maps(s, c.between, c.layer);
    r.text = maps_comparison_text(r.comparison);
    job_products made;
    made.json = [&] {
      return maps_comparison_json(r.comparison, fmt::format("attn-viz {}", version));
    };
    made.picture = [&] { return maps_comparison_figure(r.comparison, s.subtitle); };
    r.written = write_outputs(c.out, made);
  };
  if (!c.model_dir.empty()) {
    const seq2seq_stack stack = compared_stack(c);
    model_job_config m;
    m.model_dir = c.model_dir;
    m.text = c.text;
    m.ids = c.ids;
    m.target_text = c.target_text;
    m.target_ids = c.target_ids;
    m.progress = c.progress;
    m.keep_every_map = true;
    m.text_only_command = "attn-viz compare --model";
    const model_report run = run_model_job(m);
    r.warnings = run.warnings;
    if (!run.encoder_decoder) {
      finish(model_maps_source(run, m));
      return r;
    }
    const seq2seq_maps maps{&run.seq2seq, run.tokens, run.target_tokens, folder_name(c.model_dir),
                            model_summary(run.config)};
    if (stack != seq2seq_stack::cross) {
      finish(stack_source(maps, stack));
      return r;
    }
    rank_cross_heads(c, maps, r);
  } else {
    draw_job_config d;
    d.weights = c.weights;
    d.key = c.key;
    const draw_report run = run_draw_job(d);
    finish(draw_maps_source(run, d));
  }
  return r;
}

}  // namespace attnviz
