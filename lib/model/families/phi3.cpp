// Phi-3 (model_type phi3: Phi-3 and Phi-3.5 mini/medium, Phi-4-mini).
//
// config.json   hidden_size, num_attention_heads, num_key_value_heads (= heads),
//               num_hidden_layers, intermediate_size, max_position_embeddings, vocab_size,
//               rms_norm_eps (1e-5), rope_theta (10000), rope_scaling (null, linear or llama3;
//               longrope is refused), partial_rotary_factor (1), sliding_window (null: none),
//               hidden_act (silu only), tie_word_embeddings (false), eos_token_id
// tensors       model.embed_tokens, model.layers.{l}.{input_layernorm, self_attn.qkv_proj
//               [(H + 2 KV) d_h, d] (q | k | v), self_attn.o_proj, post_attention_layernorm,
//               mlp.gate_up_proj [2 I, d] (gate | up), mlp.down_proj}, model.norm, lm_head (or
//               the embeddings when tied)
// block         as Llama's: x += o(attn(rope(q), rope(k), v)) on RMS(x), x += down(silu(gate) ⊙
//               up) on RMS(x), q, k, v and gate, up from one product each; RoPE rotate-half on
//               the first ⌊d_h · factor⌋ dimensions; causal, and the sliding window (keys
//               i − W < j ≤ i) when the config sets one
#include <fmt/format.h>

#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace phi3_parts {
namespace {

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.kv_heads = r.size_or("num_key_value_heads", c.heads);
  c.layers = r.size("num_hidden_layers");
  c.intermediate = r.size("intermediate_size");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.norm_eps = r.number_or("rms_norm_eps", 1e-5);
  c.rope_theta = r.number_or("rope_theta", 10000.0);
  if (r.has("rope_scaling")) c.rope_scaling = read_rope_scaling(r);
  c.sliding_window = r.has("sliding_window") ? r.size("sliding_window") : 0;
  const std::string act = r.text_or("hidden_act", "silu");
  if (act != "silu") r.fail("hidden_act", fmt::format("silu (SwiGLU), got '{}'", act));
  c.tie_embeddings = r.flag_or("tie_word_embeddings", false);
  if (c.d_model % c.heads != 0) r.fail("num_attention_heads", "a divisor of hidden_size");
  c.head_dim = c.d_model / c.heads;
  c.rotary_dims = rotary_dims_of(r, "partial_rotary_factor", 1.0, c.head_dim);
  c.norm = norm_kind::rms_norm;
  c.activation = mlp_activation::silu;
  c.gated_mlp = true;
  c.positions = position_kind::rotary;
  c.causal = true;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate), V = dim(c.vocab);
  const auto qkv = dim((c.heads + 2 * c.kv_heads) * c.head_dim), q_out = dim(c.heads * c.head_dim);
  const binder b(m.weights, "model.");
  m.tokens = b.need("embed_tokens.weight", {V, d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    layer_weights w;
    w.norm1_w = b.need(p + "input_layernorm.weight", {d});
    w.self.qkv = b.need(p + "self_attn.qkv_proj.weight", {qkv, d});
    w.self.o = b.need(p + "self_attn.o_proj.weight", {d, q_out});
    w.norm2_w = b.need(p + "post_attention_layernorm.weight", {d});
    w.gate_up = b.need(p + "mlp.gate_up_proj.weight", {2 * I, d});
    w.down = b.need(p + "mlp.down_proj.weight", {d, I});
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("norm.weight", {d});
  m.lm_head = output_embeddings(m, "lm_head.weight", {V, d});
}

}  // namespace
}  // namespace phi3_parts

const family_spec phi3_family{"phi3", {"phi3"}, phi3_parts::read_config, phi3_parts::bind,
                              token_rows, pre_norm_block};

}  // namespace attnviz
