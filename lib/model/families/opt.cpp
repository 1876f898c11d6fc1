// OPT (model_type opt: facebook/opt-125m … 66b; opt-350m is post-norm with a narrower
// embedding).
//
// config.json   hidden_size, num_attention_heads, num_hidden_layers, ffn_dim,
//               max_position_embeddings, vocab_size, word_embed_proj_dim (= hidden_size),
//               do_layer_norm_before (true), activation_function (relu), enable_bias (true),
//               layer_norm_elementwise_affine (true), _remove_final_layer_norm (false),
//               tie_word_embeddings (true), eos_token_id
// tensors       model.decoder.{embed_tokens [V, e], embed_positions [P + 2, d], project_in
//               [d, e] and project_out [e, d] (when e ≠ d), final_layer_norm (pre-norm only),
//               layers.{l}.{self_attn.{q,k,v,out}_proj, self_attn_layer_norm, fc1, fc2,
//               final_layer_norm}}, lm_head [V, e] (or embed_tokens when tied)
// block         x = project_in(embed_tokens[ids]) + embed_positions[p + 2]
//               pre-norm:  x += attn(LN_a(x)); x += fc2(relu(fc1(LN_f(x))))
//               post-norm: x = LN_a(x + attn(x)); x = LN_f(x + fc2(relu(fc1(x))))
//               h = LN_final(x) (pre-norm); logits = lm_head · project_out(h)
//               (the hidden state kept is h, before project_out)
#include <fmt/format.h>

#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace opt_parts {
namespace {

bool pre_norm(const model_config& c) { return !c.post_norm; }

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.layers = r.size("num_hidden_layers");
  c.intermediate = r.size("ffn_dim");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.embed_width = r.size_or("word_embed_proj_dim", c.d_model);
  c.post_norm = !r.flag_or("do_layer_norm_before", true);
  c.activation = activation_of(r, "activation_function", r.text_or("activation_function", "relu"));
  r.require_flag("enable_bias", true, true, "linear layers with biases");
  r.require_flag("layer_norm_elementwise_affine", true, true, "LayerNorms with weight and bias");
  c.final_norm = pre_norm(c) && !r.flag_or("_remove_final_layer_norm", false);
  c.tie_embeddings = r.flag_or("tie_word_embeddings", true);
  c.position_offset = 2;
  c.norm = norm_kind::layer_norm;
  c.norm_eps = 1e-5;
  c.positions = position_kind::learned;
  c.causal = true;
}

void bind_attention(const binder& b, const std::string& p, std::int64_t d, layer_weights& w) {
  w.self.q = b.need(p + "self_attn.q_proj.weight", {d, d});
  w.self.q_b = b.need(p + "self_attn.q_proj.bias", {d});
  w.self.k = b.need(p + "self_attn.k_proj.weight", {d, d});
  w.self.k_b = b.need(p + "self_attn.k_proj.bias", {d});
  w.self.v = b.need(p + "self_attn.v_proj.weight", {d, d});
  w.self.v_b = b.need(p + "self_attn.v_proj.bias", {d});
  w.self.o = b.need(p + "self_attn.out_proj.weight", {d, d});
  w.self.o_b = b.need(p + "self_attn.out_proj.bias", {d});
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate), V = dim(c.vocab), e = dim(c.embed_width);
  const binder b(m.weights, "model.decoder.");
  m.tokens = b.need("embed_tokens.weight", {V, e});
  m.positions = b.need("embed_positions.weight", {dim(c.max_positions + 2), d});
  if (c.embed_width != c.d_model) {
    m.project_in = b.need("project_in.weight", {d, e});
    m.project_out = b.need("project_out.weight", {e, d});
  }
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    layer_weights w;
    bind_attention(b, p, d, w);
    // pre-norm reads norm1 before attention and norm2 before the MLP; post-norm norm2 after
    // attention and norm3 after the MLP (layer_ops.h)
    const weight_view* a_w = b.need(p + "self_attn_layer_norm.weight", {d});
    const weight_view* a_b = b.need(p + "self_attn_layer_norm.bias", {d});
    const weight_view* f_w = b.need(p + "final_layer_norm.weight", {d});
    const weight_view* f_b = b.need(p + "final_layer_norm.bias", {d});
    if (pre_norm(c)) {
      w.norm1_w = a_w, w.norm1_b = a_b, w.norm2_w = f_w, w.norm2_b = f_b;
    } else {
      w.norm2_w = a_w, w.norm2_b = a_b, w.norm3_w = f_w, w.norm3_b = f_b;
    }
    w.up = b.need(p + "fc1.weight", {I, d});
    w.up_b = b.need(p + "fc1.bias", {I});
    w.down = b.need(p + "fc2.weight", {d, I});
    w.down_b = b.need(p + "fc2.bias", {d});
    m.layers.push_back(w);
  }
  if (c.final_norm) {
    m.final_norm_w = b.need("final_layer_norm.weight", {d});
    m.final_norm_b = b.need("final_layer_norm.bias", {d});
  }
  m.lm_head = output_embeddings(m, "lm_head.weight", {V, e});
}

matrix embed(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t first) {
  matrix x = token_rows(m, ids);
  if (m.project_in) {
    weight_converter conv;
    x = linear(x, *m.project_in, linear_layout::out_in, nullptr, conv);
  }
  add_table_rows(x, *m.positions, first + m.config.position_offset);
  return x;
}

void block(layer_context& lc, const layer_weights& w, matrix& x, float* maps, layer_probe* probe,
           kv_cache* cache) {
  if (pre_norm(lc.m.config)) return pre_norm_block(lc, w, x, maps, probe, cache);
  post_norm_block(lc, w, x, maps, probe, cache);
}

// project_out, when the embeddings are narrower than the model.
matrix prediction_input(const hf_model& m, matrix h) {
  if (!m.project_out) return h;
  weight_converter conv;
  return linear(h, *m.project_out, linear_layout::out_in, nullptr, conv);
}

}  // namespace
}  // namespace opt_parts

const family_spec opt_family{"opt", {"opt"}, opt_parts::read_config, opt_parts::bind,
                             opt_parts::embed, opt_parts::block, opt_parts::prediction_input};

}  // namespace attnviz
