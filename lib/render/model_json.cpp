#include "render/model_json.h"

#include <nlohmann/json.hpp>

#include "render/json_numbers.h"

namespace attnviz {
namespace {
using ojson = nlohmann::ordered_json;
}  // namespace

std::string model_to_json(const model_json_meta& meta, const model_config& config,
                          const std::vector<std::string>& tokens,
                          const std::vector<std::int64_t>& ids, const model_forward& f,
                          const std::vector<model_prediction>& predictions) {
  ojson head;
  head["attn-viz"] = meta.generator;
  head["model"] = {{"model_type", config.model_type}, {"folder", meta.folder},
                   {"layers", config.layers},         {"d_model", config.d_model},
                   {"heads", config.heads},           {"kv_heads", config.kv_heads},
                   {"head_dim", config.head_dim},     {"vocab", config.vocab}};
  head["tokens"] = tokens;
  head["ids"] = ids;
  if (!meta.generation.empty()) head["generation"] = ojson::parse(meta.generation);
  if (!meta.measure.empty()) head["measure"] = meta.measure;
  if (!meta.logit_lens.empty()) head["logit_lens"] = ojson::parse(meta.logit_lens);
  if (!predictions.empty()) {
    ojson preds = ojson::array();
    for (const auto& p : predictions) {
      ojson top = ojson::array();
      for (std::size_t i = 0; i < p.top.size(); ++i)
        top.push_back({{"id", p.top[i].first},
                       {"token", i < p.top_tokens.size() ? p.top_tokens[i] : std::string()},
                       {"probability", p.top[i].second}});
      preds.push_back({{"position", p.position}, {"top", top}});
    }
    head["predictions"] = preds;
  }
  // The metadata as nlohmann prints it, then the maps streamed: an object of L·H·n² numbers is
  // never built in memory.
  std::string text = head.dump(1, ' ', false, ojson::error_handler_t::replace);
  text.pop_back();  // the closing brace
  text += ",\n \"layers\": [";
  const std::size_t n = f.n;
  for (std::size_t l = 0; l < f.layers; ++l) {
    text += l ? ",\n  {\"layer\": " : "\n  {\"layer\": ";
    text += std::to_string(l);
    text += ", \"heads\": [";
    for (std::size_t h = 0; h < f.heads; ++h) {
      text += h ? ",\n   [" : "\n   [";
      const float* map = f.map(l, h);
      for (std::size_t i = 0; i < n; ++i) {
        text += i ? ",\n    [" : "\n    [";
        for (std::size_t j = 0; j < n; ++j) {
          if (j) text += ", ";
          text += json_number(map[i * n + j]).dump();
        }
        text += ']';
      }
      text += "\n   ]";
    }
    text += "\n  ]}";
  }
  text += "\n ]\n}\n";
  return text;
}

}  // namespace attnviz
