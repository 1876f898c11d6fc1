// A Hugging Face model folder opened for running: its config, its memory-mapped weights, and
// every tensor the forward pass will use found and shape-checked before any work (a missing or
// misshapen tensor is an input_error naming it, its file and the shape expected).
//
// Names (the optional prefixes transformer. / bert. are found once):
//   gpt2   wte, wpe, h.{l}.{ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj}, ln_f;
//          Conv1D weights [in, out]
//   bert   embeddings.{word, position, token_type}_embeddings, embeddings.LayerNorm,
//          encoder.layer.{l}.{attention.self.{query,key,value}, attention.output.{dense,
//          LayerNorm}, intermediate.dense, output.{dense, LayerNorm}}; LayerNorm gamma/beta
//          accepted for weight/bias; Linear weights [out, in]; the MLM head cls.predictions.*
//          when present
//   llama  model.embed_tokens, model.layers.{l}.{input_layernorm, self_attn.{q,k,v,o}_proj,
//          post_attention_layernorm, mlp.{gate,up,down}_proj}, model.norm, lm_head (or the
//          embeddings when tied)
#pragma once

#include <string>
#include <vector>

#include "model/checkpoint.h"
#include "model/hf_config.h"

namespace attnviz {

// One layer's tensors (null: not in this family, or an optional bias absent).
struct layer_weights {
  const weight_view *norm1_w = nullptr, *norm1_b = nullptr;  // ln_1 / input_layernorm
  const weight_view *qkv = nullptr, *qkv_b = nullptr;        // GPT-2's fused c_attn
  const weight_view *q = nullptr, *k = nullptr, *v = nullptr;
  const weight_view *q_b = nullptr, *k_b = nullptr, *v_b = nullptr;
  const weight_view *o = nullptr, *o_b = nullptr;
  const weight_view *norm2_w = nullptr, *norm2_b = nullptr;  // ln_2 / BERT's attention LN /
                                                            // post_attention_layernorm
  const weight_view *up = nullptr, *up_b = nullptr;          // c_fc / intermediate / up_proj
  const weight_view *gate = nullptr;                         // gate_proj
  const weight_view *down = nullptr, *down_b = nullptr;      // mlp.c_proj / output / down_proj
  const weight_view *norm3_w = nullptr, *norm3_b = nullptr;  // BERT's output LayerNorm
};

struct hf_model {
  std::string dir;
  model_config config;
  checkpoint weights;
  const weight_view* tokens = nullptr;     // [V, d]
  const weight_view* positions = nullptr;  // [P, d] (gpt2, bert)
  const weight_view* token_types = nullptr;  // [T, d] (bert)
  const weight_view *embed_norm_w = nullptr, *embed_norm_b = nullptr;  // bert
  const weight_view *final_norm_w = nullptr, *final_norm_b = nullptr;  // gpt2, llama
  const weight_view* lm_head = nullptr;  // [V, d]: the output embeddings (tied: tokens)
  // BERT's masked-LM head, when the checkpoint has it
  const weight_view *mlm_dense = nullptr, *mlm_dense_b = nullptr, *mlm_norm_w = nullptr,
                    *mlm_norm_b = nullptr, *mlm_bias = nullptr;
  std::vector<layer_weights> layers;
  bool conv1d = false;  // GPT-2: weights stored [in, out]
};

// Reads DIR/config.json and the weights, and binds every tensor (see above).
hf_model load_model(const std::string& dir);

}  // namespace attnviz
