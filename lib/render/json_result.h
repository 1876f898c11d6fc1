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

#include "analysis/compare_metrics.h"
#include "analysis/pooled_map.h"
#include "attention/aoa.h"
#include "attention/pipeline.h"

namespace attnviz {

struct result_metadata {
  std::string tool;        // "attn-viz <version>"
  std::string embeddings;  // file the vectors came from
  std::string parameters;  // "--seed N" or the weights file
  std::vector<std::string> oov_tokens;
  std::string oov_policy;
  // --merge-subwords: the pieces of each query and key word (empty: not merged)
  std::vector<std::vector<std::string>> query_pieces = {}, key_pieces = {};
};

std::string result_to_json(const attention_result& result, const result_metadata& meta);

// A streamed run (stream_job.h): the inputs and variant as in result_to_json, then
// "pooling": {"mode", "rows", "cols", "row_starts", "col_starts"} (bin r holds queries
// [row_starts[r], row_starts[r+1])), and per head "pooled_weights" (rows × cols) and
// "masked_rows"; with several heads also "mean_pooled_weights". No scores, weights or context.
std::string pooled_to_json(const attention_result& result, const pooled_weights& pooled,
                           const result_metadata& meta);

// Structures made of several attentions (transformer): the sources once, then
// "attentions": [{ "name", "parameter_prefix", "structure", "variant", "query_tokens",
// "key_tokens", "heads", ["mean_weights"], ["output"] }].
struct named_result {
  std::string name;
  std::string parameter_prefix;
  const attention_result* result = nullptr;
};
std::string structure_to_json(std::string_view structure, const std::vector<named_result>& parts,
                              const result_metadata& meta);

// aoa's JSON: document_tokens, query_tokens, M, alpha, beta (n_d × n_q), beta_bar (n_q),
// s (n_d), word_scores [{word, score}] highest first, and the definitions.
std::string aoa_to_json(const std::vector<std::string>& document_tokens,
                        const std::vector<std::string>& query_tokens, const aoa_result& r,
                        const std::vector<std::pair<std::string, double>>& word_scores,
                        const result_metadata& meta);

// compare's JSON: the shared inputs once, then every variant (label, variant, per-variant
// metrics, heads as in result_to_json) and every pair's metrics, with their definitions.
std::string comparison_to_json(
    const std::vector<std::pair<std::string, const attention_result*>>& variants,
    const comparison& metrics, const result_metadata& meta);

}  // namespace attnviz
