// The BART layout (model_type bart, mbart, marian): an encoder and a decoder of the same width,
// the decoder's layers adding cross attention over the encoder's output.
//
// config.json   d_model, encoder_layers, decoder_layers, encoder_attention_heads,
//               decoder_attention_heads, encoder_ffn_dim, decoder_ffn_dim,
//               max_position_embeddings, vocab_size, activation_function (gelu; Marian swish),
//               scale_embedding (false; Marian, mBART true), decoder_start_token_id,
//               eos_token_id, forced_bos_token_id, pad_token_id, tie_word_embeddings (true),
//               share_encoder_decoder_embeddings (Marian, true)
// tensors       [model.]shared [V, d] (the token embeddings of both stacks, and of lm_head when
//               tied; Marian with unshared embeddings: encoder.embed_tokens, decoder.embed_tokens),
//               [model.]{encoder,decoder}.embed_positions [P + 2, d] (Marian: [P, d] or absent),
//               {encoder,decoder}.layernorm_embedding (not Marian),
//               {encoder,decoder}.layer_norm (mBART), {encoder,decoder}.layers.{l}.{self_attn.
//               {q,k,v,out}_proj, self_attn_layer_norm, fc1, fc2, final_layer_norm}, decoder
//               layers also encoder_attn.{q,k,v,out}_proj and encoder_attn_layer_norm (Linear
//               [out, in] with biases), final_logits_bias [1, V], lm_head.weight (when untied)
// block         x = embed_scale · tokens[ids] + positions[p + 2]  (Marian: sinusoids at p)
//               x = LN_embedding(x)                               (BART, mBART)
//               post-norm (BART, Marian): x = LN(x + attn(x)); [x = LN(x + cross(x, enc))];
//                                         x = LN(x + fc2(act(fc1(x))))
//               pre-norm (mBART):         x += attn(LN(x)); [x += cross(LN(x), enc)];
//                                         x += fc2(act(fc1(LN(x)))); LN_final at each stack's end
//               attention scaled 1/√d_h; the decoder's self-attention causal; logits =
//               lm_head(h) + final_logits_bias
#include <fmt/format.h>

#include <cmath>

#include "error.h"
#include "model/blocks.h"
#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace bart_parts {
namespace {

bool is_marian(const model_config& c) { return c.model_type == "marian"; }
bool pre_norm(const model_config& c) { return c.model_type == "mbart"; }

std::int64_t token_id(const config_reader& r, std::string_view key, std::int64_t fallback) {
  return r.has(key) ? static_cast<std::int64_t>(r.index_or(key, 0)) : fallback;
}

// bad_words_ids: [[id], …] (Marian bans its pad token); longer sequences are refused.
void read_banned(const config_reader& r, model_config& c) {
  if (!r.has("bad_words_ids")) return;
  const nlohmann::json& list = r.object().at("bad_words_ids");
  if (!list.is_array()) r.fail("bad_words_ids", "a list of token id lists");
  for (const auto& item : list) {
    if (!item.is_array() || item.size() != 1 || !item[0].is_number_unsigned())
      r.fail("bad_words_ids", fmt::format("lists of one token id (attn-viz bans single tokens), "
                                          "got {}",
                                          item.dump()));
    c.banned_ids.push_back(item[0].get<std::int64_t>());
  }
}

void read_config(const config_reader& r, model_config& c) {
  c.encoder_decoder = true;
  read_banned(r, c);
  c.d_model = r.size("d_model");
  c.layers = r.size("encoder_layers");
  c.decoder_layers = r.size("decoder_layers");
  c.heads = r.size("encoder_attention_heads");
  c.decoder_heads = r.size("decoder_attention_heads");
  c.intermediate = r.size("encoder_ffn_dim");
  c.decoder_intermediate = r.size("decoder_ffn_dim");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.activation = activation_of(r, "activation_function",
                               r.text_or("activation_function", is_marian(c) ? "swish" : "gelu"));
  c.scale_embedding = r.flag_or("scale_embedding", false);
  c.tie_embeddings = r.flag_or("tie_word_embeddings", true);
  const std::int64_t pad = token_id(r, "pad_token_id", 1);
  c.eos_id = token_id(r, "eos_token_id", 2);
  c.decoder_start_id = token_id(r, "decoder_start_token_id", is_marian(c) ? pad : c.eos_id);
  c.forced_bos_id = token_id(r, "forced_bos_token_id", -1);
  if (is_marian(c))
    r.require_flag("share_encoder_decoder_embeddings", true, true,
                   "one token embedding table for both stacks, as attn-viz binds Marian");
  if (c.d_model % c.decoder_heads != 0)
    r.fail("decoder_attention_heads",
           fmt::format("a divisor of d_model {}, got {}", c.d_model, c.decoder_heads));
  c.decoder_head_dim = c.d_model / c.decoder_heads;
  c.norm = norm_kind::layer_norm;
  c.norm_eps = 1e-5;
  c.positions = is_marian(c) ? position_kind::sinusoidal : position_kind::learned;
  c.position_offset = is_marian(c) ? 0 : 2;
  c.causal = false;  // the encoder's; the decoder's self-attention is causal
}

void bind_attention(const binder& b, const std::string& at, std::int64_t d, attention_weights& a) {
  a.q = b.need(at + "q_proj.weight", {d, d});
  a.q_b = b.need(at + "q_proj.bias", {d});
  a.k = b.need(at + "k_proj.weight", {d, d});
  a.k_b = b.need(at + "k_proj.bias", {d});
  a.v = b.need(at + "v_proj.weight", {d, d});
  a.v_b = b.need(at + "v_proj.bias", {d});
  a.o = b.need(at + "out_proj.weight", {d, d});
  a.o_b = b.need(at + "out_proj.bias", {d});
}

// One layer of a stack; `cross` for the decoder's.
layer_weights bind_layer(const binder& b, const std::string& p, std::int64_t d, std::int64_t I,
                         bool cross) {
  layer_weights w;
  bind_attention(b, p + "self_attn.", d, w.self);
  w.norm1_w = b.need(p + "self_attn_layer_norm.weight", {d});
  w.norm1_b = b.need(p + "self_attn_layer_norm.bias", {d});
  if (cross) {
    bind_attention(b, p + "encoder_attn.", d, w.cross);
    w.norm_cross_w = b.need(p + "encoder_attn_layer_norm.weight", {d});
    w.norm_cross_b = b.need(p + "encoder_attn_layer_norm.bias", {d});
  }
  w.up = b.need(p + "fc1.weight", {I, d});
  w.up_b = b.need(p + "fc1.bias", {I});
  w.down = b.need(p + "fc2.weight", {d, I});
  w.down_b = b.need(p + "fc2.bias", {d});
  w.norm2_w = b.need(p + "final_layer_norm.weight", {d});
  w.norm2_b = b.need(p + "final_layer_norm.bias", {d});
  return w;
}

// Marian's sinusoids: the file's table when it has one (checked against the formula), else
// computed and owned by the model.
const weight_view* sinusoids(hf_model& m, const binder& b, const std::string& name) {
  const model_config& c = m.config;
  const std::size_t rows = c.max_positions, d = c.d_model;
  auto table = std::make_unique<std::vector<float>>(sinusoid_table(rows, d));
  if (const weight_view* stored = b.maybe(name, {dim(rows), dim(d)})) {
    std::vector<float> row(d);
    for (std::size_t p = 0; p < rows; ++p) {
      stored->to_float(p * d, d, row.data());
      for (std::size_t j = 0; j < d; ++j)
        if (!(std::fabs(row[j] - (*table)[p * d + j]) <= 1e-3f))
          throw input_error(*stored->file,
                            fmt::format("tensor '{}' holds {} at [{}, {}] where Marian's "
                                        "sinusoid is {}: the positions are not the ones the "
                                        "model was trained with",
                                        stored->name, row[j], p, j, (*table)[p * d + j]));
    }
    return stored;
  }
  auto view = std::make_unique<weight_view>();
  view->name = name + " (computed)";
  view->shape = {dim(rows), dim(d)};
  view->data = reinterpret_cast<const unsigned char*>(table->data());
  view->file = &m.dir;
  m.computed_data.push_back(std::move(table));
  m.computed_views.push_back(std::move(view));
  return m.computed_views.back().get();
}

const weight_view* positions(hf_model& m, const binder& b, const std::string& stack) {
  const model_config& c = m.config;
  if (c.positions == position_kind::sinusoidal)
    return sinusoids(m, b, stack + ".embed_positions.weight");
  return b.need(stack + ".embed_positions.weight",
                {dim(c.max_positions + c.position_offset), dim(c.d_model)});
}

void bind_stack(hf_model& m, const binder& b, bool decoder) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model);
  const std::string stack = decoder ? "decoder" : "encoder";
  const weight_view *norm_w = nullptr, *norm_b = nullptr, *final_w = nullptr, *final_b = nullptr;
  if (!is_marian(c)) {
    norm_w = b.need(stack + ".layernorm_embedding.weight", {d});
    norm_b = b.need(stack + ".layernorm_embedding.bias", {d});
  }
  if (pre_norm(c)) {
    final_w = b.need(stack + ".layer_norm.weight", {d});
    final_b = b.need(stack + ".layer_norm.bias", {d});
  }
  const std::size_t layers = decoder ? c.decoder_layers : c.layers;
  const auto I = dim(decoder ? c.decoder_intermediate : c.intermediate);
  std::vector<layer_weights>& into = decoder ? m.decoder_layers : m.layers;
  for (std::size_t l = 0; l < layers; ++l)
    into.push_back(bind_layer(b, fmt::format("{}.layers.{}.", stack, l), d, I, decoder));
  (decoder ? m.decoder_positions : m.positions) = positions(m, b, stack);
  (decoder ? m.decoder_embed_norm_w : m.embed_norm_w) = norm_w;
  (decoder ? m.decoder_embed_norm_b : m.embed_norm_b) = norm_b;
  (decoder ? m.decoder_final_norm_w : m.final_norm_w) = final_w;
  (decoder ? m.decoder_final_norm_b : m.final_norm_b) = final_b;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), V = dim(c.vocab);
  const binder b(m.weights, m.weights.has_prefix("model.encoder.") ? "model." : "");
  m.tokens = b.need("shared.weight", {V, d});
  bind_stack(m, b, false);
  bind_stack(m, b, true);
  m.logits_bias = m.weights.find("final_logits_bias")
                      ? &m.weights.require({"final_logits_bias"}, {1, V})
                      : nullptr;
  m.lm_head = output_embeddings(m, "lm_head.weight", {V, d});
}

matrix embed_stack(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t first,
                   bool decoder) {
  const model_config& c = m.config;
  matrix x = token_rows(m, ids);
  if (c.scale_embedding) {
    const auto s = static_cast<float>(std::sqrt(static_cast<double>(c.d_model)));
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] *= s;
  }
  add_table_rows(x, *(decoder ? m.decoder_positions : m.positions), first + c.position_offset);
  const weight_view* norm_w = decoder ? m.decoder_embed_norm_w : m.embed_norm_w;
  if (norm_w) x = norm_of(m, x, norm_w, decoder ? m.decoder_embed_norm_b : m.embed_norm_b);
  return x;
}

matrix embed(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t first) {
  return embed_stack(m, ids, first, false);
}

matrix decoder_embed(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t first) {
  return embed_stack(m, ids, first, true);
}

// x = LN(x + f(x)) (post-norm) or x += f(LN(x)) (pre-norm), for a sub-layer f; an attention
// sub-layer's join is reported to its measure's taps, when it has them.
template <class F>
void residual(layer_context& lc, matrix& x, const weight_view* nw, const weight_view* nb, F f,
              map_taps* taps = nullptr) {
  if (pre_norm(lc.m.config)) {
    const matrix in = norm_of(lc.m, x, nw, nb);
    lc.lap("norm");
    const matrix out = f(in);
    report_residual_to(taps, lc, x, out, residual_kind::add);
    add_in_place(x, out);
    return;
  }
  matrix y = f(x);
  report_residual_to(taps, lc, x, y, residual_kind::norm_of_sum, nw, nb);
  add_in_place(y, x);
  x = norm_of(lc.m, y, nw, nb);
  lc.lap("norm");
}

void block(layer_context& lc, const layer_weights& w, matrix& x, float* maps, layer_probe* probe,
           kv_cache*) {
  residual(
      lc, x, w.norm1_w, w.norm1_b,
      [&](const matrix& in) { return attention_block(lc, w.self, in, maps, probe); }, lc.taps);
  residual(lc, x, w.norm2_w, w.norm2_b, [&](const matrix& in) { return mlp_block(lc, w, in); });
}

void decoder_block(layer_context& lc, const layer_weights& w, matrix& x, const decoder_io& io) {
  residual(
      lc, x, w.norm1_w, w.norm1_b,
      [&](const matrix& in) {
        return attention_block(lc, w.self, in, io.self_maps, nullptr, io.cache);
      },
      lc.taps);
  residual(
      lc, x, w.norm_cross_w, w.norm_cross_b,
      [&](const matrix& in) {
        return cross_attention_block(lc, w.cross, in, *io.memory, io.cross_maps, io.cross_taps);
      },
      io.cross_taps);
  residual(lc, x, w.norm2_w, w.norm2_b, [&](const matrix& in) { return mlp_block(lc, w, in); });
}

}  // namespace
}  // namespace bart_parts

const family_spec bart_family{"bart", {"bart", "mbart", "marian"}, bart_parts::read_config,
                              bart_parts::bind, bart_parts::embed, bart_parts::block, nullptr,
                              bart_parts::decoder_embed, bart_parts::decoder_block};

}  // namespace attnviz
