// BERT (model_type bert) and RoBERTa (roberta, xlm-roberta: BERT's network with positions
// counted after the padding id and its own masked-LM head's names).
//
// config.json   hidden_size, num_attention_heads, num_hidden_layers, intermediate_size,
//               max_position_embeddings, vocab_size, type_vocab_size (2), layer_norm_eps
//               (1e-12), hidden_act (gelu), position_embedding_type (absolute only);
//               RoBERTa: pad_token_id (1)
// tensors       embeddings.{word, position, token_type}_embeddings, embeddings.LayerNorm,
//               encoder.layer.{l}.{attention.self.{query,key,value}, attention.output.{dense,
//               LayerNorm}, intermediate.dense, output.{dense, LayerNorm}}; the optional prefix
//               bert.; LayerNorm gamma/beta accepted for weight/bias; Linear weights [out, in];
//               the masked-LM head cls.predictions.* when present (decoder tied to the words);
//               RoBERTa: the prefix roberta., the head lm_head.{dense, layer_norm, bias}
// block         x = LN(word[ids] + position[0..n) + token_type[0])
//               (RoBERTa: the i-th token that is not padding at position pad + 1 + i, padding
//               at position pad, so a text has max_position_embeddings − pad − 1 positions)
//               per layer: x = LN(x + dense(attn(x)));  x = LN(x + output(gelu(intermediate(x))))
//               h = x                                                no mask
#include <fmt/format.h>

#include "error.h"
#include "model/blocks.h"
#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace bert_parts {
namespace {

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.layers = r.size("num_hidden_layers");
  c.intermediate = r.size("intermediate_size");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.type_vocab = r.size_or("type_vocab_size", 2);
  c.norm_eps = r.number_or("layer_norm_eps", 1e-12);
  c.activation = activation_of(r, "hidden_act", r.text_or("hidden_act", "gelu"));
  r.require_text("position_embedding_type", "absolute", "absolute",
                 "attn-viz runs learned absolute positions");
  if (c.model_type != "bert") {  // RoBERTa: positions start after the padding id
    c.pad_id = static_cast<std::int64_t>(r.index_or("pad_token_id", 1));
    if (static_cast<std::size_t>(c.pad_id) + 1 >= c.max_positions)
      r.fail("pad_token_id", fmt::format("an id below max_position_embeddings − 1 ({})",
                                         c.max_positions - 1));
    c.position_table = c.max_positions;
    c.max_positions -= static_cast<std::size_t>(c.pad_id) + 1;
  }
  c.norm = norm_kind::layer_norm;
  c.positions = position_kind::learned;
  c.causal = false;
  c.tie_embeddings = true;
}

// RoBERTa's head: lm_head.dense, lm_head.layer_norm, lm_head.bias (the decoder tied to the words).
void bind_roberta_head(hf_model& m) {
  const auto d = dim(m.config.d_model);
  const binder top(m.weights, "lm_head.");
  m.head_dense = top.need("dense.weight", {d, d});
  m.head_dense_b = top.need("dense.bias", {d});
  m.head_norm_w = top.need("layer_norm.weight", {d});
  m.head_norm_b = top.need("layer_norm.bias", {d});
  m.logits_bias = top.need("bias", {dim(m.config.vocab)});
}

void bind_mlm_head(hf_model& m) {
  const auto d = dim(m.config.d_model);
  const binder top(m.weights, "cls.predictions.");
  m.head_dense = top.need("transform.dense.weight", {d, d});
  m.head_dense_b = top.need("transform.dense.bias", {d});
  m.head_norm_w = top.need_ln("transform.LayerNorm", "weight", {d});
  m.head_norm_b = top.need_ln("transform.LayerNorm", "bias", {d});
  m.logits_bias = top.need("bias", {dim(m.config.vocab)});
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate);
  const bool roberta = c.pad_id >= 0;
  const std::string prefix = roberta ? "roberta." : "bert.";
  const binder b(m.weights, m.weights.has_prefix(prefix + "embeddings.") ? prefix : "");
  m.tokens = b.need("embeddings.word_embeddings.weight", {dim(c.vocab), d});
  m.positions = b.need("embeddings.position_embeddings.weight",
                       {dim(roberta ? c.position_table : c.max_positions), d});
  m.token_types = b.need("embeddings.token_type_embeddings.weight", {dim(c.type_vocab), d});
  m.embed_norm_w = b.need_ln("embeddings.LayerNorm", "weight", {d});
  m.embed_norm_b = b.need_ln("embeddings.LayerNorm", "bias", {d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string e = fmt::format("encoder.layer.{}.", l);
    layer_weights w;
    w.self.q = b.need(e + "attention.self.query.weight", {d, d});
    w.self.q_b = b.need(e + "attention.self.query.bias", {d});
    w.self.k = b.need(e + "attention.self.key.weight", {d, d});
    w.self.k_b = b.need(e + "attention.self.key.bias", {d});
    w.self.v = b.need(e + "attention.self.value.weight", {d, d});
    w.self.v_b = b.need(e + "attention.self.value.bias", {d});
    w.self.o = b.need(e + "attention.output.dense.weight", {d, d});
    w.self.o_b = b.need(e + "attention.output.dense.bias", {d});
    w.norm2_w = b.need_ln(e + "attention.output.LayerNorm", "weight", {d});
    w.norm2_b = b.need_ln(e + "attention.output.LayerNorm", "bias", {d});
    w.up = b.need(e + "intermediate.dense.weight", {I, d});
    w.up_b = b.need(e + "intermediate.dense.bias", {I});
    w.down = b.need(e + "output.dense.weight", {d, I});
    w.down_b = b.need(e + "output.dense.bias", {d});
    w.norm3_w = b.need_ln(e + "output.LayerNorm", "weight", {d});
    w.norm3_b = b.need_ln(e + "output.LayerNorm", "bias", {d});
    m.layers.push_back(w);
  }
  if (m.weights.find("cls.predictions.transform.dense.weight")) bind_mlm_head(m);
  if (roberta && m.weights.find("lm_head.dense.weight")) bind_roberta_head(m);
  m.lm_head = m.tokens;  // the MLM decoder is tied to the word embeddings
}

matrix embed(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t) {
  matrix x = token_rows(m, ids);
  if (m.config.pad_id < 0) {
    add_table_rows(x, *m.positions, 0);
  } else {  // RoBERTa: row r at pad + (tokens before it that are not padding) + 1, padding at pad
    const auto pad = static_cast<std::size_t>(m.config.pad_id);
    std::vector<std::size_t> rows;
    std::size_t seen = 0;
    for (const std::int64_t id : ids) rows.push_back(id == m.config.pad_id ? pad : pad + ++seen);
    add_table_rows(x, *m.positions, rows);
  }
  add_table_rows(x, *m.token_types, 0, true);
  return norm_of(m, x, m.embed_norm_w, m.embed_norm_b);
}

// The masked-LM transform: LN(gelu(dense(h))).
matrix prediction_input(const hf_model& m, matrix h) {
  if (!m.head_dense)
    throw input_error(m.weights.source(),
                      m.config.pad_id < 0 ? "has no masked-LM head (cls.predictions.*): this "
                                            "BERT checkpoint cannot fill in [MASK]"
                                          : "has no masked-LM head (lm_head.*): this RoBERTa "
                                            "checkpoint cannot fill in <mask>");
  return mlm_transform(m, std::move(h));
}

}  // namespace
}  // namespace bert_parts

const family_spec bert_family{"bert", {"bert", "roberta", "xlm-roberta"}, bert_parts::read_config,
                              bert_parts::bind, bert_parts::embed, post_norm_block,
                              bert_parts::prediction_input};

}  // namespace attnviz
