// The spine: inputs -> (projections) -> stage 1 score -> stage 2 align -> stage 3 context.
//
// Structures:
//   self   Q = K = V = X (one sentence). Without projections the map is raw similarity of
//          the embeddings; with `project`, Q = X W_Qᵀ, K = X W_Kᵀ, V = X W_Vᵀ first.
//   cross  queries from the target sentence, keys and values from the source sentence.
// Projection parameters (torch.nn.Linear layout [out, in]): q_proj.weight [d_k, d],
// k_proj.weight [d_k, d], v_proj.weight [d_v, d], optional q_proj.bias … ; or the packed
// torch.nn.MultiheadAttention form in_proj_weight [3d, d] (+ in_proj_bias [3d]) with d_k = d_v = d.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/context.h"
#include "attention/mask.h"
#include "params/param_store.h"
#include "tensor.h"

namespace attnviz {

enum class attention_structure { self, cross };

struct attention_spec {
  std::string score = "scaled_dot";
  std::string align = "softmax";
  std::string context = "soft";
  double temperature = 1.0;
  hard_mode hard = hard_mode::sample;
  bool project = false;
  std::size_t d_k = 0;     // projection size (0: d); also d_v
  std::size_t d_a = 0;     // additive / concat hidden size (0: d_k)
  double sharpen = 1.0;    // cosine β
  std::size_t window = 0;  // local-m / local-p half-width D
  mask_set masks;          // applied to the scores before alignment
  std::uint64_t seed = 0;  // hard-context sampling (parameters come from the param_store)
};

struct attention_input {
  attention_structure structure = attention_structure::self;
  std::vector<std::string> query_tokens;
  std::vector<std::string> key_tokens;
  matrix queries;  // n_q × d, raw embeddings of the query tokens
  matrix keys;     // n_k × d, raw embeddings of the key tokens
  matrix values;   // n_k × d (the same rows as keys unless a structure says otherwise)
};

struct head_result {
  matrix scores;                  // E: n_q × n_k, before masking
  matrix weights;                 // A: n_q × n_k
  matrix context;                 // C: n_q × d_v
  std::vector<int> chosen_keys;   // hard context only: j* per query (-1: none)
  std::vector<bool> masked_rows;  // rows with every key masked (zero weights and context)
  std::vector<bool> masked;       // n_q·n_k row-major: true where a mask hid the key (empty: none)
};

struct attention_result {
  attention_structure structure = attention_structure::self;
  std::vector<std::string> query_tokens;
  std::vector<std::string> key_tokens;
  attention_spec spec;  // with canonical stage names
  std::size_t d_model = 0, d_k = 0, d_v = 0;
  std::vector<head_result> heads;
};

// Throws usage_error for a bad spec (unknown names, τ <= 0, …) and input_error for
// parameters that are missing or misshapen in a weights file.
attention_result run_attention(const attention_input& input, const attention_spec& spec,
                               param_store& params);

std::string_view structure_name(attention_structure s);

}  // namespace attnviz
