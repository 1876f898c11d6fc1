// DistilBERT (model_type distilbert).
//
// config.json   dim, n_heads, n_layers, hidden_dim, max_position_embeddings, vocab_size,
//               activation (gelu), sinusoidal_pos_embds (false only); LayerNorm ε 1e-12
// tensors       distilbert.embeddings.{word_embeddings, position_embeddings, LayerNorm},
//               distilbert.transformer.layer.{l}.{attention.{q_lin,k_lin,v_lin,out_lin},
//               sa_layer_norm, ffn.lin1, ffn.lin2, output_layer_norm} (the prefix optional);
//               the masked-LM head vocab_transform, vocab_layer_norm, vocab_projector (bias;
//               the weight tied to the words) when present
// block         x = LN(word[ids] + position[0..n))                       (no token types)
//               per layer: x = LN_sa(x + out_lin(attn(x)));  x = LN_out(x + lin2(gelu(lin1(x))))
//               no mask
#include <fmt/format.h>

#include "error.h"
#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace distilbert_parts {
namespace {

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("dim");
  c.heads = r.size("n_heads");
  c.layers = r.size("n_layers");
  c.intermediate = r.size("hidden_dim");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.activation = activation_of(r, "activation", r.text_or("activation", "gelu"));
  r.require_flag("sinusoidal_pos_embds", false, false, "learned positions");
  c.norm_eps = 1e-12;
  c.norm = norm_kind::layer_norm;
  c.positions = position_kind::learned;
  c.causal = false;
  c.tie_embeddings = true;
}

void bind_head(hf_model& m) {
  const auto d = dim(m.config.d_model);
  const binder top(m.weights, "");
  m.head_dense = top.need("vocab_transform.weight", {d, d});
  m.head_dense_b = top.need("vocab_transform.bias", {d});
  m.head_norm_w = top.need("vocab_layer_norm.weight", {d});
  m.head_norm_b = top.need("vocab_layer_norm.bias", {d});
  m.logits_bias = top.need("vocab_projector.bias", {dim(m.config.vocab)});
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate);
  const binder b(m.weights, m.weights.has_prefix("distilbert.embeddings.") ? "distilbert." : "");
  m.tokens = b.need("embeddings.word_embeddings.weight", {dim(c.vocab), d});
  m.positions = b.need("embeddings.position_embeddings.weight", {dim(c.max_positions), d});
  m.embed_norm_w = b.need("embeddings.LayerNorm.weight", {d});
  m.embed_norm_b = b.need("embeddings.LayerNorm.bias", {d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("transformer.layer.{}.", l);
    layer_weights w;
    const weight_view** slots[4][2] = {{&w.self.q, &w.self.q_b}, {&w.self.k, &w.self.k_b},
                                       {&w.self.v, &w.self.v_b}, {&w.self.o, &w.self.o_b}};
    const char* names[4] = {"q_lin", "k_lin", "v_lin", "out_lin"};
    for (int i = 0; i < 4; ++i) {
      *slots[i][0] = b.need(p + "attention." + names[i] + ".weight", {d, d});
      *slots[i][1] = b.need(p + "attention." + names[i] + ".bias", {d});
    }
    w.norm2_w = b.need(p + "sa_layer_norm.weight", {d});
    w.norm2_b = b.need(p + "sa_layer_norm.bias", {d});
    w.up = b.need(p + "ffn.lin1.weight", {I, d});
    w.up_b = b.need(p + "ffn.lin1.bias", {I});
    w.down = b.need(p + "ffn.lin2.weight", {d, I});
    w.down_b = b.need(p + "ffn.lin2.bias", {d});
    w.norm3_w = b.need(p + "output_layer_norm.weight", {d});
    w.norm3_b = b.need(p + "output_layer_norm.bias", {d});
    m.layers.push_back(w);
  }
  if (m.weights.find("vocab_transform.weight")) bind_head(m);
  m.lm_head = m.tokens;  // vocab_projector is tied to the word embeddings
}

matrix embed(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t) {
  matrix x = token_rows(m, ids);
  add_table_rows(x, *m.positions, 0);
  return norm_of(m, x, m.embed_norm_w, m.embed_norm_b);
}

matrix prediction_input(const hf_model& m, matrix h) {
  if (!m.head_dense)
    throw input_error(m.weights.source(),
                      "has no masked-LM head (vocab_transform, vocab_layer_norm, "
                      "vocab_projector): this DistilBERT checkpoint cannot fill in [MASK]");
  return mlm_transform(m, std::move(h));
}

}  // namespace
}  // namespace distilbert_parts

const family_spec distilbert_family{"distilbert", {"distilbert"}, distilbert_parts::read_config,
                                    distilbert_parts::bind, distilbert_parts::embed,
                                    post_norm_block, distilbert_parts::prediction_input};

}  // namespace attnviz
