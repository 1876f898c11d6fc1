#include "render/json_result.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "attention/registry.h"

namespace attnviz {
namespace {

using ojson = nlohmann::ordered_json;

// The double whose shortest representation is the float's shortest representation.
ojson number(float v) {
  if (!std::isfinite(v)) return nullptr;
  const std::string s = fmt::format("{}", v);
  return std::strtod(s.c_str(), nullptr);
}

ojson rows(const matrix& m) {
  ojson out = ojson::array();
  for (std::size_t i = 0; i < m.rows(); ++i) {
    ojson row = ojson::array();
    for (std::size_t j = 0; j < m.cols(); ++j) row.push_back(number(m(i, j)));
    out.push_back(std::move(row));
  }
  return out;
}

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

}  // namespace

std::string result_to_json(const attention_result& r, const result_metadata& meta) {
  const attention_spec& s = r.spec;
  ojson variant;
  variant["score"] = s.score;
  variant["align"] = s.align;
  variant["context"] = s.context;
  if (find_align(s.align).uses_temperature) variant["temperature"] = s.temperature;
  if (s.context == "hard") variant["hard"] = s.hard == hard_mode::argmax ? "argmax" : "sample";
  if (s.score == "cosine") variant["sharpen"] = s.sharpen;
  if (s.score == "additive" || s.score == "concat") variant["d_a"] = s.d_a ? s.d_a : r.d_k;
  variant["projected"] = s.project;
  variant["d_model"] = r.d_model;
  variant["d_k"] = r.d_k;
  variant["d_v"] = r.d_v;
  variant["heads"] = r.heads.size();
  variant["masks"] = ojson::array();
  variant["positional"] = "none";

  ojson doc;
  doc["tool"] = meta.tool;
  doc["structure"] = structure_name(r.structure);
  doc["variant"] = std::move(variant);
  doc["seed"] = s.seed;
  doc["parameters"] = meta.parameters;
  doc["embeddings"] = meta.embeddings;
  doc["oov_policy"] = meta.oov_policy;
  doc["oov_tokens"] = meta.oov_tokens;
  doc["query_tokens"] = r.query_tokens;
  doc["key_tokens"] = r.key_tokens;
  ojson heads = ojson::array();
  for (const auto& h : r.heads) {
    ojson jh;
    jh["scores"] = rows(h.scores);
    jh["weights"] = rows(h.weights);
    jh["context"] = rows(h.context);
    if (!h.chosen_keys.empty()) jh["chosen_keys"] = h.chosen_keys;
    ojson masked = ojson::array();
    for (std::size_t i = 0; i < h.masked_rows.size(); ++i)
      if (h.masked_rows[i]) masked.push_back(i);
    jh["masked_rows"] = std::move(masked);
    heads.push_back(std::move(jh));
  }
  doc["heads"] = std::move(heads);
  return pretty(doc) + "\n";
}

}  // namespace attnviz
