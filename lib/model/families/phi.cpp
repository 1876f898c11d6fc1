// Phi (model_type phi: phi-1, phi-1.5, phi-2).
//
// config.json   hidden_size, num_attention_heads, num_key_value_heads (= heads),
//               num_hidden_layers, intermediate_size, max_position_embeddings, vocab_size,
//               partial_rotary_factor (0.5), rope_theta (10000), rope_scaling, layer_norm_eps
//               (1e-5), hidden_act (gelu_new), qk_layernorm (false only),
//               tie_word_embeddings (false), eos_token_id
// tensors       model.embed_tokens, model.layers.{l}.{input_layernorm,
//               self_attn.{q,k,v}_proj, self_attn.dense, mlp.fc1, mlp.fc2} (weights and
//               biases), model.final_layernorm, lm_head (weight and bias)
// block         x = embed[ids]
//               per layer: h = LN(x); x += dense(attn(h)) + fc2(gelu(fc1(h)))   (one norm,
//               parallel); RoPE (rotate-half) on each head's first ⌊d_h · factor⌋ dimensions
//               h = LN_final(x), logits = lm_head h + b
#include <fmt/format.h>

#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace phi_parts {
namespace {

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.kv_heads = r.size_or("num_key_value_heads", c.heads);
  c.layers = r.size("num_hidden_layers");
  c.intermediate = r.size("intermediate_size");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.norm_eps = r.number_or("layer_norm_eps", 1e-5);
  c.rope_theta = r.number_or("rope_theta", 10000.0);
  if (r.has("rope_scaling")) c.rope_scaling = read_rope_scaling(r);
  c.activation = activation_of(r, "hidden_act", r.text_or("hidden_act", "gelu_new"));
  r.require_flag("qk_layernorm", false, false, "no LayerNorm on q and k");
  c.tie_embeddings = r.flag_or("tie_word_embeddings", false);
  if (c.d_model % c.heads != 0) r.fail("num_attention_heads", "a divisor of hidden_size");
  c.head_dim = c.d_model / c.heads;
  c.rotary_dims = rotary_dims_of(r, "partial_rotary_factor", 0.5, c.head_dim);
  c.parallel_residual = true;
  c.norm = norm_kind::layer_norm;
  c.positions = position_kind::rotary;
  c.causal = true;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate), V = dim(c.vocab);
  const auto q_out = dim(c.heads * c.head_dim), kv_out = dim(c.kv_heads * c.head_dim);
  const binder b(m.weights, "model.");
  m.tokens = b.need("embed_tokens.weight", {V, d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    layer_weights w;
    w.norm1_w = b.need(p + "input_layernorm.weight", {d});
    w.norm1_b = b.need(p + "input_layernorm.bias", {d});
    w.self.q = b.need(p + "self_attn.q_proj.weight", {q_out, d});
    w.self.q_b = b.need(p + "self_attn.q_proj.bias", {q_out});
    w.self.k = b.need(p + "self_attn.k_proj.weight", {kv_out, d});
    w.self.k_b = b.need(p + "self_attn.k_proj.bias", {kv_out});
    w.self.v = b.need(p + "self_attn.v_proj.weight", {kv_out, d});
    w.self.v_b = b.need(p + "self_attn.v_proj.bias", {kv_out});
    w.self.o = b.need(p + "self_attn.dense.weight", {d, q_out});
    w.self.o_b = b.need(p + "self_attn.dense.bias", {d});
    w.up = b.need(p + "mlp.fc1.weight", {I, d});
    w.up_b = b.need(p + "mlp.fc1.bias", {I});
    w.down = b.need(p + "mlp.fc2.weight", {d, I});
    w.down_b = b.need(p + "mlp.fc2.bias", {d});
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("final_layernorm.weight", {d});
  m.final_norm_b = b.need("final_layernorm.bias", {d});
  m.lm_head = output_embeddings(m, "lm_head.weight", {V, d});
  m.logits_bias = b.maybe_top("lm_head.bias", {V});
}

}  // namespace
}  // namespace phi_parts

const family_spec phi_family{"phi", {"phi"}, phi_parts::read_config, phi_parts::bind, token_rows,
                             parallel_block};

}  // namespace attnviz
