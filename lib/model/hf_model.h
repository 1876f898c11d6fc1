// A Hugging Face model folder opened for running: its config, its memory-mapped weights, and
// every tensor the forward pass will use found and shape-checked before any work (a missing or
// misshapen tensor is an input_error naming it, its file and the shape expected). Which names
// fill which slot is each family's tensor-name table (lib/model/families/).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/checkpoint.h"
#include "model/hf_config.h"

namespace attnviz {

// One attention sub-layer's projections (null: not in this family, or an optional bias absent).
struct attention_weights {
  const weight_view *qkv = nullptr, *qkv_b = nullptr;  // GPT-2's fused c_attn
  const weight_view *q = nullptr, *k = nullptr, *v = nullptr;
  const weight_view *q_b = nullptr, *k_b = nullptr, *v_b = nullptr;
  const weight_view *o = nullptr, *o_b = nullptr;
  // Gemma 3: RMS norms over each query and key head (d_h wide), before RoPE
  const weight_view *q_norm = nullptr, *k_norm = nullptr;
  // DINOv2: the layer scale λ1 [d] on the sub-layer's output (o × λ before the residual add)
  const weight_view* out_scale = nullptr;
};

// One layer's tensors (null: not in this family, or an optional bias absent).
struct layer_weights {
  const weight_view *norm1_w = nullptr, *norm1_b = nullptr;  // ln_1 / input_layernorm /
                                                            // self_attn_layer_norm
  attention_weights self;
  attention_weights cross;                                   // decoders: encoder_attn
  const weight_view *norm_cross_w = nullptr, *norm_cross_b = nullptr;  // encoder_attn_layer_norm
  const weight_view *norm2_w = nullptr, *norm2_b = nullptr;  // ln_2 / BERT's attention LN /
                                                            // post_attention_layernorm
  const weight_view *up = nullptr, *up_b = nullptr;          // c_fc / intermediate / up_proj / fc1
  const weight_view *gate = nullptr;                         // gate_proj
  const weight_view* gate_up = nullptr;                      // Phi-3's fused [gate | up]
  const weight_view* gate_up_b = nullptr;                    // DINOv2's SwiGLU weights_in bias
  const weight_view *down = nullptr, *down_b = nullptr;      // mlp.c_proj / output / down_proj
  const weight_view *norm3_w = nullptr, *norm3_b = nullptr;  // BERT's output LayerNorm;
                                                            // Gemma 2's pre_feedforward
  const weight_view* norm4_w = nullptr;                      // Gemma 2's post_feedforward
  // DINOv2's layer scales: the attention's and the MLP's outputs × λ before each residual add
  const weight_view *scale1 = nullptr, *scale2 = nullptr;
  bool local = false;  // Gemma 2: this layer attends within the config's local_window
  const weight_view* position_bias = nullptr;  // T5: [buckets, H], in each stack's layer 0
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
  // OPT with narrower embeddings (e < d): e → d after the embedding, d → e before the head
  const weight_view *project_in = nullptr, *project_out = nullptr;
  // A head between the hidden state and the output embeddings (BERT's masked-LM transform), and
  // a bias on the logits, when the checkpoint has them
  const weight_view *head_dense = nullptr, *head_dense_b = nullptr, *head_norm_w = nullptr,
                    *head_norm_b = nullptr, *logits_bias = nullptr;
  std::vector<layer_weights> layers;  // the encoder's, or the only stack's
  // Vision transformers (model/vision.h): the patch projection as a matrix [d, C·P·P] (the
  // stored [d, C, P, P] convolution read row by row), the learned tokens [1, k, d], the
  // classifier(s) [labels, d or 2d]
  const weight_view *patch_w = nullptr, *patch_b = nullptr;
  const weight_view *cls_token = nullptr, *distill_token = nullptr, *register_tokens = nullptr;
  const weight_view *classifier_w = nullptr, *classifier_b = nullptr;
  const weight_view *classifier2_w = nullptr, *classifier2_b = nullptr;  // DeiT's distillation
  bool conv1d = false;  // GPT-2: weights stored [in, out]

  // Encoder–decoder models: the decoder's stack (token embeddings shared with the encoder).
  std::vector<layer_weights> decoder_layers;
  const weight_view* decoder_positions = nullptr;
  const weight_view *decoder_embed_norm_w = nullptr, *decoder_embed_norm_b = nullptr;
  const weight_view *decoder_final_norm_w = nullptr, *decoder_final_norm_b = nullptr;

  // Tables the model computes rather than reads (Marian's sinusoids), owned here; the views
  // above may point into them. Held by pointer so that moving the model keeps them in place.
  std::vector<std::unique_ptr<weight_view>> computed_views;
  std::vector<std::unique_ptr<std::vector<float>>> computed_data;
};

// Reads DIR/config.json and the weights, and binds every tensor (see above).
hf_model load_model(const std::string& dir);

// The tensors of one family, found under the checkpoint's prefix.
class binder {
 public:
  using shape = std::vector<std::int64_t>;
  binder(const checkpoint& c, std::string prefix) : c_(c), prefix_(std::move(prefix)) {}
  const weight_view* need(const std::string& name, const shape& s) const;
  // LayerNorm parameters under new or old names (weight/bias or gamma/beta); which: "weight" or
  // "bias".
  const weight_view* need_ln(const std::string& base, const char* which, const shape& s) const;
  const weight_view* maybe(const std::string& name, const shape& s) const;
  // Outside the prefix (heads of task models: lm_head, cls.predictions).
  const weight_view* maybe_top(const std::string& name, const shape& s) const;

 private:
  const checkpoint& c_;
  std::string prefix_;
};

// The output embeddings: the top-level tensor `name` (shape s), or the token embeddings when
// the config ties them and the file has no such tensor.
const weight_view* output_embeddings(const hf_model& m, const std::string& name,
                                     const binder::shape& s);

// Sizes as tensor dimensions.
inline std::int64_t dim(std::size_t v) { return static_cast<std::int64_t>(v); }

}  // namespace attnviz
