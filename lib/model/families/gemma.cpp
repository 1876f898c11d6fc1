// Gemma (model_type gemma: Gemma 2B and 7B, CodeGemma; gemma2: Gemma 2; gemma3_text: Gemma 3's
// language model).
//
// config.json   hidden_size, num_attention_heads, num_key_value_heads, head_dim (may differ
//               from hidden/heads), num_hidden_layers, intermediate_size,
//               max_position_embeddings, vocab_size, rms_norm_eps (1e-6), rope_theta (10000),
//               rope_scaling, hidden_activation (gelu_pytorch_tanh or gelu; when absent the
//               tanh form, whatever hidden_act says), tie_word_embeddings (true),
//               eos_token_id
// tensors       Llama's: model.embed_tokens, model.layers.{l}.{input_layernorm,
//               self_attn.{q,k,v,o}_proj, post_attention_layernorm, mlp.{gate,up,down}_proj},
//               model.norm, lm_head (or the embeddings when tied)
// block         x = embed[ids] · s, s = √hidden_size rounded to the embeddings' dtype (as the
//               model multiplies in its own dtype)
//               per layer: m = RMS₁(x); x += o(attn(rope(q(m)), rope(k(m)), v(m)))
//                          m = RMS₂(x); x += down(gelu_tanh(gate(m)) ⊙ up(m))     (GeGLU)
//               RMS(x) = x / √(mean(x²) + ε) · (1 + w)
//               h = RMS_final(x)                     causal, grouped-query, rotate-half RoPE
// Gemma 2       also query_pre_attn_scalar (scores × its^−1/2), attn_logit_softcapping and
//               final_logit_softcapping (x → cap · tanh(x / cap) on the scores, before the
//               mask, and on the logits; null: none), sliding_window: even layers see only the
//               last sliding_window keys; four norms a layer (post_attention_layernorm on the
//               attention's output, pre_ and post_feedforward_layernorm around the MLP):
//                 x += RMS₂(attn(RMS₁(x)));  x += RMS₄(mlp(RMS₃(x)))
// Gemma 3       Gemma 2's layer without soft caps (unless the config sets them), RMS norms on
//               each query and key head (self_attn.q_norm / k_norm, before RoPE), local layers
//               by layer_types ("sliding_attention") or else all but every
//               sliding_window_pattern-th (6), their RoPE base rope_local_base_freq (10000)
//               without rope_scaling, the global layers' rope_theta (1e6) with it
#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "model/blocks.h"
#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace gemma_parts {
namespace {

// A soft cap: the number, 0 (none) when the key is null, `fallback` when it is absent.
double cap_or(const config_reader& r, std::string_view key, double fallback) {
  if (r.object().contains(std::string(key)) && r.object().at(std::string(key)).is_null()) return 0.0;
  return r.number_or(key, fallback);
}

void read_gemma2(const config_reader& r, model_config& c) {
  c.query_scale = 1.0 / std::sqrt(r.number_or("query_pre_attn_scalar", 256.0));
  c.attn_soft_cap = cap_or(r, "attn_logit_softcapping", 50.0);
  c.final_soft_cap = cap_or(r, "final_logit_softcapping", 30.0);
  c.local_window = r.size_or("sliding_window", 4096);
}

void read_gemma3(const config_reader& r, model_config& c) {
  c.query_scale = 1.0 / std::sqrt(r.number_or("query_pre_attn_scalar", 256.0));
  c.attn_soft_cap = cap_or(r, "attn_logit_softcapping", 0.0);
  c.final_soft_cap = cap_or(r, "final_logit_softcapping", 0.0);
  c.local_window = r.size_or("sliding_window", 4096);
  c.local_rope_theta = r.number_or("rope_local_base_freq", 10000.0);
  if (!r.has("rope_theta")) c.rope_theta = 1e6;
}

// Gemma 3's local layers: layer_types, or all but every sliding_window_pattern-th.
bool gemma3_local(const config_reader& r, std::size_t l) {
  if (r.has("layer_types")) {
    const nlohmann::json& types = r.object().at("layer_types");
    if (!types.is_array() || l >= types.size() || !types[l].is_string())
      r.fail("layer_types", "one \"sliding_attention\" or \"full_attention\" per layer");
    const std::string t = types[l].get<std::string>();
    if (t != "sliding_attention" && t != "full_attention")
      r.fail("layer_types", fmt::format("sliding_attention or full_attention, got '{}'", t));
    return t == "sliding_attention";
  }
  return (l + 1) % r.size_or("sliding_window_pattern", 6) != 0;
}

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.kv_heads = r.size_or("num_key_value_heads", c.heads);
  c.head_dim = r.size_or("head_dim", 0);
  c.layers = r.size("num_hidden_layers");
  c.intermediate = r.size("intermediate_size");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.norm_eps = r.number_or("rms_norm_eps", 1e-6);
  c.rope_theta = r.number_or("rope_theta", 10000.0);
  if (r.has("rope_scaling")) c.rope_scaling = read_rope_scaling(r);
  // hidden_activation as named (exact "gelu" included); without it Gemma's MLP runs the tanh
  // form whatever hidden_act says
  c.activation = mlp_activation::gelu_tanh;
  if (r.has("hidden_activation")) {
    const std::string act = r.text_or("hidden_activation", "gelu_pytorch_tanh");
    c.activation = activation_of(r, "hidden_activation", act);
    if (c.activation != mlp_activation::gelu_tanh && c.activation != mlp_activation::gelu_erf)
      r.fail("hidden_activation", fmt::format("a GELU (Gemma's GeGLU), got '{}'", act));
  }
  c.tie_embeddings = r.flag_or("tie_word_embeddings", true);
  if (c.model_type == "gemma2") read_gemma2(r, c);
  if (c.model_type == "gemma3_text") {
    read_gemma3(r, c);
    for (std::size_t l = 0; l < c.layers; ++l) c.local_layers.push_back(gemma3_local(r, l));
  }
  c.norm = norm_kind::rms_norm;
  c.norm_weight_offset = 1.0f;
  c.gated_mlp = true;
  c.positions = position_kind::rotary;
  c.causal = true;
}

// √d as the model holds it: rounded to the embeddings' 16-bit type (8 or 11 significant bits,
// to nearest, ties to even), or a float.
double embed_scale_of(const model_config& c, weight_dtype dtype) {
  const double s = std::sqrt(static_cast<double>(c.d_model));
  if (dtype != weight_dtype::bf16 && dtype != weight_dtype::f16) return static_cast<float>(s);
  const int bits = dtype == weight_dtype::bf16 ? 8 : 11;
  int e = 0;
  const double m = std::frexp(s, &e);  // s = m · 2^e, m in [0.5, 1)
  return std::ldexp(std::nearbyint(std::ldexp(m, bits)), e - bits);
}

void bind(hf_model& m) {
  model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate), V = dim(c.vocab);
  const auto q_out = dim(c.heads * c.head_dim), kv_out = dim(c.kv_heads * c.head_dim);
  const binder b(m.weights, "model.");
  m.tokens = b.need("embed_tokens.weight", {V, d});
  // llama.cpp computes in float whatever the weights' type: a GGUF file's √d is a float
  c.embed_scale = embed_scale_of(c, m.weights.notes().float_activations ? weight_dtype::f32
                                                                         : m.tokens->dtype);
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    layer_weights w;
    w.norm1_w = b.need(p + "input_layernorm.weight", {d});
    w.self.q = b.need(p + "self_attn.q_proj.weight", {q_out, d});
    w.self.k = b.need(p + "self_attn.k_proj.weight", {kv_out, d});
    w.self.v = b.need(p + "self_attn.v_proj.weight", {kv_out, d});
    w.self.o = b.need(p + "self_attn.o_proj.weight", {d, q_out});
    w.norm2_w = b.need(p + "post_attention_layernorm.weight", {d});
    if (c.model_type != "gemma") {
      w.norm3_w = b.need(p + "pre_feedforward_layernorm.weight", {d});
      w.norm4_w = b.need(p + "post_feedforward_layernorm.weight", {d});
      w.local = c.model_type == "gemma2" ? l % 2 == 0 : c.local_layers[l];
    }
    if (c.model_type == "gemma3_text") {
      w.self.q_norm = b.need(p + "self_attn.q_norm.weight", {dim(c.head_dim)});
      w.self.k_norm = b.need(p + "self_attn.k_norm.weight", {dim(c.head_dim)});
    }
    w.gate = b.need(p + "mlp.gate_proj.weight", {I, d});
    w.up = b.need(p + "mlp.up_proj.weight", {I, d});
    w.down = b.need(p + "mlp.down_proj.weight", {d, I});
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("norm.weight", {d});
  m.lm_head = output_embeddings(m, "lm_head.weight", {V, d});
}

matrix embed(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t) {
  matrix x = token_rows(m, ids);
  const auto s = static_cast<float>(m.config.embed_scale);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] *= s;
  return x;
}

// Gemma 2's layer (above); Gemma's is the pre-norm block.
void block(layer_context& lc, const layer_weights& w, matrix& x, float* maps, layer_probe* probe,
           kv_cache* cache) {
  const model_config& c = lc.m.config;
  if (!w.norm4_w) return pre_norm_block(lc, w, x, maps, probe, cache);
  lc.score_scale = c.query_scale;
  lc.soft_cap = c.attn_soft_cap;
  const mask_set global = lc.spec.masks;
  rope_half_table global_rope;
  if (w.local) {
    add_sliding_window(lc.spec.masks, c.local_window, lc.past, lc.n);
    if (c.local_rope_theta > 0.0) {  // Gemma 3: the local base, no scaling
      std::vector<double> theta(c.head_dim / 2);
      for (std::size_t i = 0; i < theta.size(); ++i)
        theta[i] = std::pow(c.local_rope_theta, -2.0 * static_cast<double>(i) /
                                                    static_cast<double>(c.head_dim));
      global_rope = std::exchange(lc.rope, make_rope_half_table(lc.past, lc.n, theta));
    }
  }
  const matrix attention = attention_block(lc, w.self, norm_of(lc.m, x, w.norm1_w, nullptr), maps,
                                           probe, cache);
  lc.spec.masks = global;
  if (global_rope.half) lc.rope = std::move(global_rope);
  report_residual(lc, x, attention, residual_kind::add_norm_of, w.norm2_w);
  add_in_place(x, norm_of(lc.m, attention, w.norm2_w, nullptr));
  const matrix mlp = mlp_block(lc, w, norm_of(lc.m, x, w.norm3_w, nullptr));
  add_in_place(x, norm_of(lc.m, mlp, w.norm4_w, nullptr));
  lc.lap("norm");
}

}  // namespace
}  // namespace gemma_parts

const family_spec gemma_family{"gemma", {"gemma", "gemma2", "gemma3_text"},
                               gemma_parts::read_config, gemma_parts::bind, gemma_parts::embed,
                               gemma_parts::block};

}  // namespace attnviz
