// llama.cpp's architectures (GGUF's general.architecture) as the model families attn-viz runs:
// per architecture, its hyper-parameters under `{arch}.` turned into config.json's keys for
// the family's own reader (model/families/), llama.cpp's tensor names turned into the family's,
// and how llama.cpp's converter stored the weights (storage_notes).
//
//   arch    family  keys read ({arch}.…)                              stored differently
//   llama   llama   context_length, embedding_length, block_count,    Q/K rows for interleaved
//                   feed_forward_length, attention.head_count,        RoPE; rope_freqs
//                   attention.head_count_kv, attention.key_length,    (Llama 3.1's scaling)
//                   attention.layer_norm_rms_epsilon, rope.freq_base,
//                   rope.dimension_count, rope.scaling.type/factor,
//                   attention.sliding_window (Mistral)
//   qwen2   qwen2   the same                                          (as Hugging Face's)
//   gemma   gemma   the same but rope scaling; key_length             norms with + 1 folded in
//   gemma2  gemma2  + attn_logit_softcapping, final_logit_softcapping, the same
//                   attention.sliding_window (query_pre_attn_scalar:
//                   the head size, d / H for the 46-layer 27B)
//   phi3    phi3    + rope.dimension_count, attention.sliding_window  (as Hugging Face's: fused
//                                                                     qkv and gate|up)
//   gpt2    gpt2    context, embedding, block, feed-forward, heads,   [out, in] (Conv1D
//                   attention.layer_norm_epsilon                      transposed)
//   gptneox gpt_neox + rope.dimension_count (rotary share), rope.     qkv as q | k | v (not per
//                   freq_base, use_parallel_residual                  head)
//   falcon  falcon  + attention.layer_norm_epsilon; attn_norm_2 in    qkv as q | k | v (not per
//                   every layer: the new decoder architecture         K/V group)
// Every architecture: float activations (no constant rounded to 16 bits).
//
// Tensor names (.weight / .bias): token_embd, position_embd, output_norm, output (absent:
// tied), rope_freqs and per layer blk.N.{attn_norm, attn_norm_2, attn_q, attn_k, attn_v,
// attn_qkv, attn_output, post_attention_norm, ffn_norm, post_ffw_norm, ffn_gate, ffn_up,
// ffn_down} as each architecture has them; any other tensor is refused by name.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/checkpoint.h"
#include "params/gguf.h"

namespace attnviz {

struct gguf_architecture {
  std::string_view arch;
  // config.json's object for the family from the metadata; input_error naming the GGUF key for
  // a missing or unusable value. `h` also gives the tensors (vocabulary size, tied head).
  nlohmann::json (*config)(const gguf_keys& keys, const gguf_header& h);
  // llama.cpp's base names (no blk.N. and no .weight) → the family's, per layer ({} is the
  // layer) and outside the layers.
  std::vector<std::pair<std::string_view, std::string_view>> layer_names, global_names;
  storage_notes notes;
  // Optional: the family's name adjusted to the file (Falcon's one norm a layer).
  std::string (*rename)(const gguf_header& h, std::string family_name);
};

// The architecture named `arch`, or null.
const gguf_architecture* find_gguf_architecture(std::string_view arch);
// "llama, qwen2": the architectures attn-viz reads, for messages.
std::string gguf_architecture_names();

// The family's name of a GGUF tensor ("blk.3.attn_q.weight" → "model.layers.3.self_attn.q_proj.
// weight"), or empty when the architecture has no such tensor.
std::string family_tensor_name(const gguf_architecture& a, const gguf_header& h,
                               const std::string& gguf_name);
// The reverse, for messages (the name itself when the table has none).
std::string gguf_tensor_name(const gguf_architecture& a, const std::string& family_name);

}  // namespace attnviz
