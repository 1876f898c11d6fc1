// A model run as JSON (attn-viz model --json): what was run and every layer's every head's
// weights.
//   {"attn-viz": "attn-viz 0.1.0", "model": {model_type, layers, d_model, heads, kv_heads,
//    head_dim, vocab, folder}, "tokens": [...], "ids": [...],
//    "predictions": [{"position": i, "top": [{"id", "token", "probability"}]}],   (--top-k)
//    "measure": "norms",                                                   (--measure)
//    "logit_lens": {"rows": [{"layer": l, "positions": [{"top": [{"id", "token",
//                   "probability"}], "final_rank": r}]}]},   (--logit-lens; row L: the output)
//    "layers": [{"layer": 0, "heads": [[[a_00, a_01, …], …], …]}, …]}
// With a measure other than the weights (lib/measures/) the heads' maps are that measure's.
// Rows are queries; numbers as every other writer prints them (json_numbers.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/forward.h"
#include "model/hf_config.h"

namespace attnviz {

struct model_prediction {
  std::size_t position = 0;  // the row whose hidden state was read
  std::vector<std::pair<std::int64_t, double>> top;
  std::vector<std::string> top_tokens;  // the tokens of `top`, as the tokenizer shows them
};

struct model_json_meta {
  std::string generator;  // "attn-viz 0.1.0"
  std::string folder;     // the model folder's name
  std::string generation;  // `model --generate`: the "generation" object's JSON, else empty
  std::string measure;     // what the maps are (lib/measures/), empty: the weights
  std::string logit_lens;  // `--logit-lens`: the "logit_lens" object's JSON, else empty
};

std::string model_to_json(const model_json_meta& meta, const model_config& config,
                          const std::vector<std::string>& tokens,
                          const std::vector<std::int64_t>& ids, const model_forward& f,
                          const std::vector<model_prediction>& predictions);

}  // namespace attnviz
