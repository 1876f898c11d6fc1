// Falcon (model_type falcon: Falcon-7B/40B/180B, Falcon-11B, Falcon 3 as their "falcon" files).
//
// config.json   hidden_size, num_attention_heads, num_hidden_layers, vocab_size,
//               max_position_embeddings (2048), layer_norm_epsilon (1e-5),
//               new_decoder_architecture (false), num_kv_heads (new architecture),
//               multi_query (true: one K/V head in the old architecture), parallel_attn
//               (true), num_ln_in_parallel_attn (new architecture: 2), bias (false),
//               ffn_hidden_size (4·hidden), activation (gelu), rope_theta (10000),
//               rope_scaling, tie_word_embeddings (true), eos_token_id; alibi: false only
// tensors       transformer.word_embeddings, transformer.h.{l}.{self_attention.query_key_value,
//               self_attention.dense, mlp.dense_h_to_4h, mlp.dense_4h_to_h} (biases when
//               `bias`), the norms: ln_attn and ln_mlp (new architecture, two norms) or
//               input_layernorm (+ post_attention_layernorm when not parallel),
//               transformer.ln_f, lm_head (or the embeddings when tied)
// block         q, k, v from one product: per K/V group [its query heads | k | v] (new
//               architecture), q | k | v with one K/V head (multi_query), or per head
//               [q | k | v]; RoPE rotate-half on whole heads; causal, grouped-query
//               parallel:   x += attn(LN_a(x)) + mlp(LN_m(x))   (LN_m = LN_a with one norm)
//               sequential: x += attn(LN_1(x)); x += mlp(LN_2(x))
//               h = LN_f(x)
#include <fmt/format.h>

#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace falcon_parts {
namespace {

void read_attention_layout(const config_reader& r, model_config& c) {
  c.new_architecture = r.flag_or("new_decoder_architecture", false);
  if (c.new_architecture) {
    c.kv_heads = r.size_or("num_kv_heads", c.heads);
    c.fused_qkv = qkv_order::grouped;  // [q heads of the group | k | v] per K/V group
    c.norms_in_parallel = r.size_or("num_ln_in_parallel_attn", 2);
    if (c.norms_in_parallel > 2) r.fail("num_ln_in_parallel_attn", "1 or 2");
    c.parallel_residual = true;
    return;
  }
  const bool multi_query = r.flag_or("multi_query", true);
  c.kv_heads = multi_query ? 1 : c.heads;
  c.fused_qkv = multi_query ? qkv_order::blocks : qkv_order::grouped;
  c.parallel_residual = r.flag_or("parallel_attn", true);
  c.norms_in_parallel = 1;
}

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.layers = r.size("num_hidden_layers");
  c.vocab = r.size("vocab_size");
  c.max_positions = r.size_or("max_position_embeddings", 2048);
  c.norm_eps = r.number_or("layer_norm_epsilon", 1e-5);
  c.intermediate = r.size_or("ffn_hidden_size", 4 * c.d_model);
  c.activation = activation_of(r, "activation", r.text_or("activation", "gelu"));
  c.rope_theta = r.number_or("rope_theta", 10000.0);
  if (r.has("rope_scaling")) c.rope_scaling = read_rope_scaling(r);
  r.require_flag("alibi", false, false, "rotary positions (ALiBi Falcons are not run)");
  c.qkv_bias = r.flag_or("bias", false);
  c.tie_embeddings = r.flag_or("tie_word_embeddings", true);
  read_attention_layout(r, c);
  c.norm = norm_kind::layer_norm;
  c.positions = position_kind::rotary;
  c.causal = true;
}

void bind_norms(const binder& b, const model_config& c, const std::string& p, std::int64_t d,
                layer_weights& w) {
  if (c.new_architecture && c.norms_in_parallel == 2) {
    w.norm1_w = b.need(p + "ln_attn.weight", {d});
    w.norm1_b = b.need(p + "ln_attn.bias", {d});
    w.norm2_w = b.need(p + "ln_mlp.weight", {d});
    w.norm2_b = b.need(p + "ln_mlp.bias", {d});
    return;
  }
  w.norm1_w = b.need(p + "input_layernorm.weight", {d});
  w.norm1_b = b.need(p + "input_layernorm.bias", {d});
  if (!c.parallel_residual) {
    w.norm2_w = b.need(p + "post_attention_layernorm.weight", {d});
    w.norm2_b = b.need(p + "post_attention_layernorm.bias", {d});
  }
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate), V = dim(c.vocab);
  const auto qkv = dim((c.heads + 2 * c.kv_heads) * c.head_dim);
  const binder b(m.weights, "transformer.");
  m.tokens = b.need("word_embeddings.weight", {V, d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("h.{}.", l);
    layer_weights w;
    bind_norms(b, c, p, d, w);
    w.self.qkv = b.need(p + "self_attention.query_key_value.weight", {qkv, d});
    w.self.o = b.need(p + "self_attention.dense.weight", {d, d});
    w.up = b.need(p + "mlp.dense_h_to_4h.weight", {I, d});
    w.down = b.need(p + "mlp.dense_4h_to_h.weight", {d, I});
    if (c.qkv_bias) {
      w.self.qkv_b = b.need(p + "self_attention.query_key_value.bias", {qkv});
      w.self.o_b = b.need(p + "self_attention.dense.bias", {d});
      w.up_b = b.need(p + "mlp.dense_h_to_4h.bias", {I});
      w.down_b = b.need(p + "mlp.dense_4h_to_h.bias", {d});
    }
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("ln_f.weight", {d});
  m.final_norm_b = b.need("ln_f.bias", {d});
  m.lm_head = output_embeddings(m, "lm_head.weight", {V, d});
}

void block(layer_context& lc, const layer_weights& w, matrix& x, float* maps, layer_probe* probe,
           kv_cache* cache) {
  if (lc.m.config.parallel_residual) return parallel_block(lc, w, x, maps, probe, cache);
  pre_norm_block(lc, w, x, maps, probe, cache);
}

}  // namespace
}  // namespace falcon_parts

const family_spec falcon_family{"falcon", {"falcon"}, falcon_parts::read_config, falcon_parts::bind,
                                token_rows, falcon_parts::block};

}  // namespace attnviz
