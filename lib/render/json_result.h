// The JSON result contract (ARCHITECTURE.md):
//   { "tool", "structure", "variant": {score, align, context, temperature, …, masks, heads,
//     positional}, "parameters", "query_tokens", "key_tokens", "oov_tokens",
//     "heads": [ {"scores" n_q×n_k, "weights" n_q×n_k, "context" n_q×d_v,
//                 ["chosen_keys"], "masked_rows"} ] }
// Numbers are written as the shortest decimal that reads back to the same float32, so the
// file is exact and stable (same result => same bytes).
#pragma once

#include <string>
#include <vector>

#include "attention/pipeline.h"

namespace attnviz {

struct result_metadata {
  std::string tool;        // "attn-viz <version>"
  std::string embeddings;  // file the vectors came from
  std::string parameters;  // "--seed N" or the weights file
  std::vector<std::string> oov_tokens;
  std::string oov_policy;
};

std::string result_to_json(const attention_result& result, const result_metadata& meta);

}  // namespace attnviz
