#include "render/json_result.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <deque>
#include <nlohmann/json.hpp>
#include <optional>

#include "attention/registry.h"
#include "render/json_numbers.h"

namespace attnviz {
namespace {

using ojson = nlohmann::ordered_json;

// Indented JSON, but every array of plain values (numbers, strings) on one line: a 40×40
// matrix stays 40 lines and token lists stay readable.
std::string pretty(const ojson& doc) {
  const std::string in = doc.dump(1);
  // End of the string literal starting at in[i] == '"' (index of the closing quote).
  auto string_end = [&](std::size_t i) {
    for (++i; i < in.size() && in[i] != '"'; ++i)
      if (in[i] == '\\') ++i;
    return i;
  };
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '"') {
      const std::size_t e = string_end(i);
      out.append(in, i, e - i + 1);
      i = e;
      continue;
    }
    if (in[i] == '[') {
      std::size_t j = i + 1;
      bool leaf = true;
      for (; j < in.size() && in[j] != ']' && leaf; ++j) {
        if (in[j] == '"')
          j = string_end(j);
        else if (in[j] == '[' || in[j] == '{')
          leaf = false;
      }
      if (leaf && j < in.size()) {  // in[j] == ']'
        out.push_back('[');
        for (std::size_t k = i + 1; k < j; ++k) {
          if (in[k] == '"') {
            const std::size_t e = string_end(k);
            out.append(in, k, e - k + 1);
            k = e;
          } else if (in[k] != ' ' && in[k] != '\n') {
            out.push_back(in[k]);
            if (in[k] == ',') out.push_back(' ');
          }
        }
        out.push_back(']');
        i = j;
        continue;
      }
    }
    out.push_back(in[i]);
  }
  return out;
}

// The maps are not built as JSON values: at 12k tokens a DOM of one map takes 16 bytes a number
// before any text exists, and nlohmann's destructor allocates (an allocation failure there ends
// the process). The document holds a placeholder string per matrix instead; fill() writes each
// matrix's text where its placeholder stands, exactly as dump(1) and pretty() would have.
class matrix_slots {
 public:
  explicit matrix_slots(bool inline_values) : inline_(inline_values) {}

  ojson hold(const matrix& m) {
    if (inline_) return json_rows(m);
    refs_.push_back(&m);
    return placeholder(refs_.size() - 1);
  }
  ojson hold(matrix&& m) {
    owned_.push_back(std::move(m));
    return hold(owned_.back());
  }

  // `text` is the pretty-printed document; nullopt when a placeholder is missing or doubled (a
  // token spelled like one): the caller then builds the document with the values inline.
  std::optional<std::string> fill(const std::string& text) const {
    if (inline_) return text + "\n";
    const std::string open = quoted_marker();
    std::size_t numbers = 0, found = 0;
    for (const matrix* m : refs_) numbers += m->size();
    for (std::size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1))
      ++found;
    if (found != refs_.size()) return std::nullopt;
    std::string out;
    out.reserve(text.size() + numbers * 13 + 1);
    std::size_t from = 0;
    for (std::size_t k = 0; k < refs_.size(); ++k) {
      const std::string slot = ojson(placeholder(k)).dump();
      const std::size_t at = text.find(slot, from);
      if (at == std::string::npos) return std::nullopt;
      out.append(text, from, at - from);
      const std::size_t line = text.rfind('\n', at) + 1;  // npos + 1 = 0
      append_rows(out, *refs_[k], text.find_first_not_of(' ', line) - line);
      from = at + slot.size();
    }
    out.append(text, from, std::string::npos);
    out.push_back('\n');
    return out;
  }

 private:
  static std::string marker() { return "\x01attn-viz matrix "; }
  static std::string quoted_marker() {  // the marker as dump() writes it, with its quote
    const std::string q = ojson(marker()).dump();
    return q.substr(0, q.size() - 1);
  }
  static ojson placeholder(std::size_t k) { return fmt::format("{}{}\x01", marker(), k); }

  // The rows as pretty() lays out a matrix whose key sits `indent` spaces in.
  static void append_rows(std::string& out, const matrix& m, std::size_t indent) {
    if (m.rows() == 0) {
      out += "[]";
      return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < m.rows(); ++i) {
      out.append(indent + 1, ' ');
      out.push_back('[');
      for (std::size_t j = 0; j < m.cols(); ++j) {
        if (j) out += ", ";
        out += json_number(m(i, j)).dump();
      }
      out += i + 1 < m.rows() ? "],\n" : "]\n";
    }
    out.append(indent, ' ');
    out.push_back(']');
  }

  bool inline_;
  std::vector<const matrix*> refs_;
  std::deque<matrix> owned_;
};

// build(slots) makes the document; written with placeholders, or inline when one collides.
template <class Build>
std::string write_document(Build build) {
  {
    matrix_slots slots(false);
    const ojson doc = build(slots);
    if (auto text = slots.fill(pretty(doc))) return std::move(*text);
  }
  matrix_slots slots(true);
  return *slots.fill(pretty(build(slots)));
}

ojson variant_json(const attention_result& r) {
  const attention_spec& s = r.spec;
  const score_entry& score = find_score(s.score);
  const align_entry& align = find_align(s.align);
  const context_entry& context = find_context(s.context);
  ojson variant;
  variant["score"] = s.score;
  variant["align"] = s.align;
  variant["context"] = s.context;
  if (align.uses_temperature) variant["temperature"] = s.temperature;
  if (context.uses_hard_mode) variant["hard"] = name_of(hard_mode_names, s.hard);
  if (score.uses_sharpen) variant["sharpen"] = s.sharpen;
  if (score.uses_d_a) variant["d_a"] = s.d_a ? s.d_a : r.d_k;
  variant["projected"] = s.project;
  variant["d_model"] = r.d_model;
  variant["d_k"] = r.d_k;
  variant["d_v"] = r.d_v;
  variant["heads"] = r.heads.size();
  variant["multihead"] = r.multihead();
  if (r.multihead())
    variant["combine"] = name_of(head_combine_names, s.combine);
  variant["masks"] = s.masks.describe();
  if (align.uses_window) variant["window"] = s.window;
  variant["positional"] = position_name(s.position);
  variant["values"] = r.values == value_source::keys       ? "keys"
                      : r.values == value_source::separate ? "separate"
                                                           : "convs2s";
  return variant;
}

ojson heads_json(const attention_result& r, matrix_slots& slots) {
  ojson heads = ojson::array();
  for (const auto& h : r.heads) {
    ojson jh;
    jh["scores"] = slots.hold(h.scores);
    jh["weights"] = slots.hold(h.weights);
    jh["context"] = slots.hold(h.context);
    if (!h.chosen_keys.empty()) jh["chosen_keys"] = h.chosen_keys;
    ojson masked = ojson::array();
    for (std::size_t i = 0; i < h.masked_rows.size(); ++i)
      if (h.masked_rows[i]) masked.push_back(i);
    jh["masked_rows"] = std::move(masked);
    if (r.spec.position == position_scheme::alibi) jh["alibi_slope"] = h.alibi_slope;
    heads.push_back(std::move(jh));
  }
  return heads;
}

void add_inputs(ojson& doc, const attention_result& r, const result_metadata& meta) {
  doc["tool"] = meta.tool;
  doc["structure"] = structure_name(r.structure);
}

void add_sources(ojson& doc, const attention_result& r, const result_metadata& meta) {
  doc["seed"] = r.spec.seed;
  doc["parameters"] = meta.parameters;
  doc["embeddings"] = meta.embeddings;
  doc["oov_policy"] = meta.oov_policy;
  doc["oov_tokens"] = meta.oov_tokens;
  doc["query_tokens"] = r.query_tokens;
  doc["key_tokens"] = r.key_tokens;
  if (!r.value_tokens.empty()) doc["value_tokens"] = r.value_tokens;
  if (!meta.query_pieces.empty())
    doc["subwords"] = {
        {"merged", true}, {"query_pieces", meta.query_pieces}, {"key_pieces", meta.key_pieces}};
}

// Multi-head extras: the heads' mean weights, κ for the weighted combination, the output.
void add_combined(ojson& doc, const attention_result& r, matrix_slots& slots) {
  if (r.heads.size() > 1)
    doc["mean_weights"] = slots.hold(aggregate_heads(r, head_aggregate::mean));
  if (!r.head_share.empty()) doc["head_share"] = r.head_share;
  if (r.multihead()) doc["output"] = slots.hold(r.output);
}

}  // namespace

std::string result_to_json(const attention_result& r, const result_metadata& meta) {
  return write_document([&](matrix_slots& slots) {
    ojson doc;
    add_inputs(doc, r, meta);
    doc["variant"] = variant_json(r);
    add_sources(doc, r, meta);
    doc["heads"] = heads_json(r, slots);
    add_combined(doc, r, slots);
    return doc;
  });
}

std::string pooled_to_json(const attention_result& r, const pooled_weights& pooled,
                           const result_metadata& meta) {
  ojson doc;
  add_inputs(doc, r, meta);
  doc["streamed"] = true;
  doc["variant"] = variant_json(r);
  add_sources(doc, r, meta);
  auto starts = [](const pool_bins& b) {
    std::vector<std::size_t> s;
    for (std::size_t c = 0; c <= b.bins; ++c) s.push_back(b.start(c));
    return s;
  };
  ojson pooling;
  pooling["mode"] = pool_mode_name(pooled.mode());
  pooling["rows"] = pooled.row_bins().bins;
  pooling["cols"] = pooled.col_bins().bins;
  pooling["row_starts"] = starts(pooled.row_bins());
  pooling["col_starts"] = starts(pooled.col_bins());
  doc["pooling"] = std::move(pooling);
  ojson heads = ojson::array();
  for (std::size_t h = 0; h < r.heads.size(); ++h) {
    ojson jh;
    jh["pooled_weights"] = json_rows(pooled.maps()[h]);
    ojson masked = ojson::array();
    for (std::size_t i = 0; i < r.heads[h].masked_rows.size(); ++i)
      if (r.heads[h].masked_rows[i]) masked.push_back(i);
    jh["masked_rows"] = std::move(masked);
    if (r.spec.position == position_scheme::alibi) jh["alibi_slope"] = r.heads[h].alibi_slope;
    heads.push_back(std::move(jh));
  }
  doc["heads"] = std::move(heads);
  if (r.heads.size() > 1)
    doc["mean_pooled_weights"] = json_rows(aggregate_maps(pooled.maps(), head_aggregate::mean));
  return pretty(doc) + "\n";
}

std::string structure_to_json(std::string_view structure, const std::vector<named_result>& parts,
                              const result_metadata& meta) {
  const attention_result& first = *parts.at(0).result;
  return write_document([&](matrix_slots& slots) {
    ojson doc;
    doc["tool"] = meta.tool;
    doc["structure"] = structure;
    doc["seed"] = first.spec.seed;
    doc["parameters"] = meta.parameters;
    doc["embeddings"] = meta.embeddings;
    doc["oov_policy"] = meta.oov_policy;
    doc["oov_tokens"] = meta.oov_tokens;
    ojson list = ojson::array();
    for (const auto& part : parts) {
      const attention_result& r = *part.result;
      ojson a;
      a["name"] = part.name;
      a["parameter_prefix"] = part.parameter_prefix;
      a["structure"] = structure_name(r.structure);
      a["variant"] = variant_json(r);
      a["query_tokens"] = r.query_tokens;
      a["key_tokens"] = r.key_tokens;
      a["heads"] = heads_json(r, slots);
      add_combined(a, r, slots);
      list.push_back(std::move(a));
    }
    doc["attentions"] = std::move(list);
    return doc;
  });
}

std::string aoa_to_json(const std::vector<std::string>& document_tokens,
                        const std::vector<std::string>& query_tokens, const aoa_result& r,
                        const std::vector<std::pair<std::string, double>>& word_scores,
                        const result_metadata& meta) {
  ojson doc;
  doc["tool"] = meta.tool;
  doc["structure"] = "aoa";
  doc["embeddings"] = meta.embeddings;
  doc["oov_policy"] = meta.oov_policy;
  doc["oov_tokens"] = meta.oov_tokens;
  doc["definitions"] = {{"M", "D Q^T, document rows x query columns"},
                        {"alpha", "softmax over the document of each column of M"},
                        {"beta", "softmax over the query of each row of M"},
                        {"beta_bar", "mean of beta's rows"},
                        {"s", "alpha beta_bar^T"},
                        {"word_scores", "sum of s over the positions of each distinct word"}};
  doc["document_tokens"] = document_tokens;
  doc["query_tokens"] = query_tokens;
  doc["M"] = json_rows(r.m);
  doc["alpha"] = json_rows(r.alpha);
  doc["beta"] = json_rows(r.beta);
  ojson bb = ojson::array(), s = ojson::array();
  for (double v : r.beta_bar) bb.push_back(json_number(static_cast<float>(v)));
  for (double v : r.s) s.push_back(json_number(static_cast<float>(v)));
  doc["beta_bar"] = std::move(bb);
  doc["s"] = std::move(s);
  ojson ws = ojson::array();
  for (const auto& [w, v] : word_scores)
    ws.push_back({{"word", w}, {"score", json_number(static_cast<float>(v))}});
  doc["word_scores"] = std::move(ws);
  return pretty(doc) + "\n";
}

std::string comparison_to_json(
    const std::vector<std::pair<std::string, const attention_result*>>& variants,
    const comparison& metrics, const result_metadata& meta) {
  const attention_result& first = *variants.at(0).second;
  return write_document([&](matrix_slots& slots) {
    ojson doc;
    add_inputs(doc, first, meta);
    add_sources(doc, first, meta);
    doc["definitions"] = {
        {"mean_entropy_bits", "mean over query rows of -sum_j a_ij log2 a_ij"},
        {"mean_max_weight", "mean over query rows of max_j a_ij"},
        {"mean_js_divergence_bits",
         "mean over rows of JS(p, q) = KL(p||m)/2 + KL(q||m)/2, m = (p + q)/2, log base 2"},
        {"top_key_agreement", "share of rows whose first argmax_j is the same"},
        {"mean_spearman",
         "mean over rows of Spearman's rank correlation (ties get mean ranks); rows where either "
         "is constant are left out, spearman_rows counts the others"},
        {"rows", "rows whose weights are all zero (every key masked) are left out of every mean"}};
    ojson list = ojson::array();
    for (std::size_t k = 0; k < variants.size(); ++k) {
      const attention_result& r = *variants[k].second;
      ojson v;
      v["label"] = variants[k].first;
      v["variant"] = variant_json(r);
      v["mean_entropy_bits"] = metrics.variants.at(k).mean_entropy_bits;
      v["mean_max_weight"] = metrics.variants.at(k).mean_max_weight;
      v["heads"] = heads_json(r, slots);
      add_combined(v, r, slots);
      list.push_back(std::move(v));
    }
    doc["variants"] = std::move(list);
    ojson pairs = ojson::array();
    for (const auto& p : metrics.pairs) {
      ojson jp;
      jp["a"] = variants.at(p.a).first;
      jp["b"] = variants.at(p.b).first;
      jp["mean_js_divergence_bits"] = p.mean_js_divergence_bits;
      jp["top_key_agreement"] = p.top_key_agreement;
      jp["mean_spearman"] = p.mean_spearman ? ojson(*p.mean_spearman) : ojson(nullptr);
      jp["spearman_rows"] = p.spearman_rows;
      pairs.push_back(std::move(jp));
    }
    doc["pairs"] = std::move(pairs);
    return doc;
  });
}

}  // namespace attnviz
