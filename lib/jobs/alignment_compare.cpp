#include "jobs/alignment_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "render/heatmap.h"

namespace attnviz {

namespace {

head_alignment score(const seq2seq_maps& s, const matrix& map, const gold_alignment& gold,
                     align_method method) {
  head_alignment h;
  const word_map w = cross_words(map.data(), s.target_tokens, s.source_tokens);
  h.counts.add(align_words(w.values, method), gold);
  return h;
}

matrix one_map(const seq2seq_forward& f, std::size_t l, std::size_t h) {
  const float* m = f.cross_map(l, h);
  return matrix(f.nt, f.ns, std::vector<float>(m, m + f.nt * f.ns));
}

nlohmann::json row_json(const head_alignment& h) {
  nlohmann::json j = {{"label", h.label}, {"aer", h.counts.aer()},
                      {"precision", h.counts.precision()}, {"recall", h.counts.recall()}};
  if (h.single) {
    j["layer"] = h.layer;
    j["head"] = h.head;
  }
  return j;
}

}  // namespace

alignment_ranking rank_heads_by_alignment(const seq2seq_maps& s, const gold_alignment& gold,
                                          align_method method) {
  const seq2seq_forward& f = *s.f;
  alignment_ranking r;
  r.layers = f.decoder_layers;
  r.per_layer = f.decoder_heads;
  r.source = s.name;
  for (std::size_t l = 0; l < f.decoder_layers; ++l) {
    for (std::size_t h = 0; h < f.decoder_heads; ++h) {
      head_alignment a = score(s, one_map(f, l, h), gold, method);
      a.label = fmt::format("L{} H{}", l, h);
      a.layer = l;
      a.head = h;
      r.heads.push_back(a);
    }
    head_alignment mean = score(s, cross_reduce(f, std::to_string(l), "", false), gold, method);
    mean.label = fmt::format("layer {} (mean of its heads)", l);
    mean.layer = l;
    mean.single = false;
    r.means.push_back(mean);
  }
  head_alignment all = score(s, cross_reduce(f, "", "", false), gold, method);
  all.label = "all heads (mean)";
  all.single = false;
  r.means.push_back(all);
  std::stable_sort(r.heads.begin(), r.heads.end(), [](const auto& a, const auto& b) {
    return a.counts.aer() < b.counts.aer();
  });
  return r;
}

std::string alignment_ranking_text(const alignment_ranking& r) {
  std::string out = fmt::format("cross-attention heads of {} by alignment error rate (AER, lower "
                                "aligns better):\n",
                                r.source);
  const auto line = [](const head_alignment& h) {
    return fmt::format("  {:<28} AER {:.3f}  precision {:.3f}  recall {:.3f}\n", h.label,
                       h.counts.aer(), h.counts.precision(), h.counts.recall());
  };
  for (const head_alignment& h : r.heads) out += line(h);
  out += "means:\n";
  for (const head_alignment& h : r.means) out += line(h);
  return out;
}

std::string alignment_ranking_json(const alignment_ranking& r, const std::string& generator) {
  nlohmann::json j;
  j["attn-viz"] = generator;
  j["between"] = "heads";
  j["stack"] = "cross";
  j["source"] = r.source;
  j["heads"] = nlohmann::json::array();
  for (const head_alignment& h : r.heads) j["heads"].push_back(row_json(h));
  j["means"] = nlohmann::json::array();
  for (const head_alignment& h : r.means) j["means"].push_back(row_json(h));
  return j.dump(1) + "\n";
}

figure alignment_ranking_figure(const alignment_ranking& r, const std::string& subtitle) {
  matrix aer(r.layers, r.per_layer);
  for (const head_alignment& h : r.heads)
    aer(h.layer, h.head) = static_cast<float>(h.counts.aer());
  heatmap_spec spec;
  spec.values = &aer;
  for (std::size_t l = 0; l < r.layers; ++l) spec.row_labels.push_back(fmt::format("L{}", l));
  for (std::size_t h = 0; h < r.per_layer; ++h) spec.col_labels.push_back(fmt::format("H{}", h));
  spec.row_axis = "decoder layers";
  spec.col_axis = "heads";
  spec.title = fmt::format("alignment error rate of each cross-attention head · {}", r.source);
  spec.subtitle = subtitle + " · low = aligns like the gold";
  spec.vmin = 0.0;
  spec.vmax = 1.0;
  return heatmap_figure(spec);
}

}  // namespace attnviz
