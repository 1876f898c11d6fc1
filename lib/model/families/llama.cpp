// The Llama family (model_type llama, mistral, qwen2).
//
// config.json   hidden_size, num_attention_heads, num_key_value_heads (= heads),
//               num_hidden_layers, intermediate_size, max_position_embeddings, vocab_size,
//               head_dim (d/H), rms_norm_eps (1e-6), rope_theta (10000), rope_scaling (default,
//               linear, llama3), tie_word_embeddings (false), hidden_act (silu only),
//               attention_bias (Qwen2: always), sliding_window (Mistral; Qwen2 when
//               use_sliding_window)
// tensors       model.embed_tokens, model.layers.{l}.{input_layernorm, self_attn.{q,k,v,o}_proj,
//               post_attention_layernorm, mlp.{gate,up,down}_proj}, model.norm, lm_head (or the
//               embeddings when tied)
// block         x = embed[ids]
//               per layer: m = RMS(x); x += o(attn(rope(q(m)), rope(k(m)), v(m)))
//                          m = RMS(x); x += down(silu(gate(m)) ⊙ up(m))
//               h = RMS_final(x)          causal (Mistral: and its sliding window), grouped-query
#include <fmt/format.h>

#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace llama_parts {
namespace {

void read_sliding_window(const config_reader& r, model_config& c) {
  if (c.model_type == "mistral" && r.has("sliding_window"))
    c.sliding_window = r.size("sliding_window");
  if (c.model_type == "qwen2" && r.flag_or("use_sliding_window", false) &&
      r.has("sliding_window"))
    c.sliding_window = r.size("sliding_window");
}

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.kv_heads = r.size_or("num_key_value_heads", c.heads);
  c.layers = r.size("num_hidden_layers");
  c.intermediate = r.size("intermediate_size");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.head_dim = r.size_or("head_dim", 0);
  c.norm_eps = r.number_or("rms_norm_eps", 1e-6);
  c.rope_theta = r.number_or("rope_theta", 10000.0);
  c.tie_embeddings = r.flag_or("tie_word_embeddings", false);
  const std::string act = r.text_or("hidden_act", "silu");
  if (act != "silu") r.fail("hidden_act", fmt::format("silu (SwiGLU), got '{}'", act));
  if (r.has("rope_scaling")) c.rope_scaling = read_rope_scaling(r);
  c.qkv_bias = c.model_type == "qwen2" || r.flag_or("attention_bias", false);
  read_sliding_window(r, c);
  c.norm = norm_kind::rms_norm;
  c.activation = mlp_activation::silu;
  c.gated_mlp = true;
  c.positions = position_kind::rotary;
  c.causal = true;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate);
  const auto q_out = dim(c.heads * c.head_dim), kv_out = dim(c.kv_heads * c.head_dim);
  const binder b(m.weights, "model.");
  m.tokens = b.need("embed_tokens.weight", {dim(c.vocab), d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    layer_weights w;
    w.norm1_w = b.need(p + "input_layernorm.weight", {d});
    w.self.q = b.need(p + "self_attn.q_proj.weight", {q_out, d});
    w.self.k = b.need(p + "self_attn.k_proj.weight", {kv_out, d});
    w.self.v = b.need(p + "self_attn.v_proj.weight", {kv_out, d});
    w.self.o = b.need(p + "self_attn.o_proj.weight", {d, q_out});
    if (c.qkv_bias) {
      w.self.q_b = b.need(p + "self_attn.q_proj.bias", {q_out});
      w.self.k_b = b.need(p + "self_attn.k_proj.bias", {kv_out});
      w.self.v_b = b.need(p + "self_attn.v_proj.bias", {kv_out});
    }
    w.self.o_b = b.maybe(p + "self_attn.o_proj.bias", {d});
    w.norm2_w = b.need(p + "post_attention_layernorm.weight", {d});
    w.gate = b.need(p + "mlp.gate_proj.weight", {I, d});
    w.up = b.need(p + "mlp.up_proj.weight", {I, d});
    w.down = b.need(p + "mlp.down_proj.weight", {d, I});
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("norm.weight", {d});
  // tie_word_embeddings: no lm_head in the file, the embeddings serve; otherwise it must be there
  m.lm_head = output_embeddings(m, "lm_head.weight", {dim(c.vocab), d});
}

}  // namespace
}  // namespace llama_parts

const family_spec llama_family{"llama", {"llama", "mistral", "qwen2"}, llama_parts::read_config,
                               llama_parts::bind, token_rows, pre_norm_block};

}  // namespace attnviz
