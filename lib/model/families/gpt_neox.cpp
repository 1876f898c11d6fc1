// GPT-NeoX (model_type gpt_neox: Pythia, GPT-NeoX-20B).
//
// config.json   hidden_size, num_attention_heads, num_hidden_layers, intermediate_size,
//               max_position_embeddings, vocab_size, layer_norm_eps (1e-5), rotary_pct (0.25;
//               newer files: partial_rotary_factor), rotary_emb_base (10000; newer: rope_theta),
//               rope_scaling, use_parallel_residual (true), hidden_act (gelu), attention_bias
//               (true), tie_word_embeddings (false), eos_token_id
// tensors       gpt_neox.embed_in, gpt_neox.layers.{l}.{input_layernorm,
//               post_attention_layernorm, attention.query_key_value [3d, d] (per head
//               [q_h | k_h | v_h]), attention.dense, mlp.dense_h_to_4h, mlp.dense_4h_to_h},
//               gpt_neox.final_layer_norm, embed_out (or embed_in when tied)
// block         x = embed_in[ids]
//               per layer: q, k, v from one product; RoPE (rotate-half) on each head's first
//               r = ⌊d_h · rotary_pct⌋ dimensions, θ_i = base^(−2i/r); causal attention
//               parallel:   x += attn(LN1(x)) + mlp(LN2(x))
//               sequential: x += attn(LN1(x)); x += mlp(LN2(x))
//               h = LN_final(x), logits = embed_out h
#include <fmt/format.h>

#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace gpt_neox_parts {
namespace {

bool parallel(const model_config& c) { return c.parallel_residual; }

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.layers = r.size("num_hidden_layers");
  c.intermediate = r.size("intermediate_size");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.norm_eps = r.number_or("layer_norm_eps", 1e-5);
  c.rope_theta = r.has("rope_theta") ? r.number_or("rope_theta", 10000.0)
                                     : r.number_or("rotary_emb_base", 10000.0);
  if (r.has("rope_scaling")) c.rope_scaling = read_rope_scaling(r);
  c.parallel_residual = r.flag_or("use_parallel_residual", true);
  c.activation = activation_of(r, "hidden_act", r.text_or("hidden_act", "gelu"));
  c.tie_embeddings = r.flag_or("tie_word_embeddings", false);
  r.require_flag("attention_bias", true, true, "q/k/v and output projections with biases");
  if (c.d_model % c.heads != 0) r.fail("num_attention_heads", "a divisor of hidden_size");
  c.head_dim = c.d_model / c.heads;
  c.rotary_dims = rotary_dims_of(
      r, r.has("partial_rotary_factor") ? "partial_rotary_factor" : "rotary_pct", 0.25, c.head_dim);
  c.fused_qkv = qkv_order::grouped;
  c.norm = norm_kind::layer_norm;
  c.positions = position_kind::rotary;
  c.causal = true;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate), V = dim(c.vocab);
  const binder b(m.weights, "gpt_neox.");
  m.tokens = b.need("embed_in.weight", {V, d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    layer_weights w;
    w.norm1_w = b.need(p + "input_layernorm.weight", {d});
    w.norm1_b = b.need(p + "input_layernorm.bias", {d});
    w.norm2_w = b.need(p + "post_attention_layernorm.weight", {d});
    w.norm2_b = b.need(p + "post_attention_layernorm.bias", {d});
    w.self.qkv = b.need(p + "attention.query_key_value.weight", {3 * d, d});
    w.self.qkv_b = b.need(p + "attention.query_key_value.bias", {3 * d});
    w.self.o = b.need(p + "attention.dense.weight", {d, d});
    w.self.o_b = b.need(p + "attention.dense.bias", {d});
    w.up = b.need(p + "mlp.dense_h_to_4h.weight", {I, d});
    w.up_b = b.need(p + "mlp.dense_h_to_4h.bias", {I});
    w.down = b.need(p + "mlp.dense_4h_to_h.weight", {d, I});
    w.down_b = b.need(p + "mlp.dense_4h_to_h.bias", {d});
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("final_layer_norm.weight", {d});
  m.final_norm_b = b.need("final_layer_norm.bias", {d});
  m.lm_head = output_embeddings(m, "embed_out.weight", {V, d});
}

void block(layer_context& lc, const layer_weights& w, matrix& x, float* maps, layer_probe* probe,
           kv_cache* cache) {
  if (parallel(lc.m.config)) return parallel_block(lc, w, x, maps, probe, cache);
  pre_norm_block(lc, w, x, maps, probe, cache);
}

}  // namespace
}  // namespace gpt_neox_parts

const family_spec gpt_neox_family{"gpt_neox", {"gpt_neox"}, gpt_neox_parts::read_config,
                                  gpt_neox_parts::bind, token_rows, gpt_neox_parts::block};

}  // namespace attnviz
