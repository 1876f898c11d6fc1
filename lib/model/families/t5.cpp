// T5 (model_type t5, mt5): v1.0 (ReLU, the LM head tied to the embeddings) and v1.1 / Flan-T5 /
// mT5 (feed_forward_proj gated-gelu, an untied lm_head).
//
// config.json   d_model, d_kv (the head size; H·d_kv may differ from d_model), d_ff,
//               num_layers, num_decoder_layers (= num_layers), num_heads,
//               relative_attention_num_buckets (32), relative_attention_max_distance (128),
//               layer_norm_epsilon (1e-6), feed_forward_proj (relu; gated-gelu, gated-silu, …),
//               tie_word_embeddings (true), decoder_start_token_id (0), eos_token_id (1),
//               vocab_size
// tensors       shared [V, d]; {encoder,decoder}.block.{l}.layer.0.SelfAttention.{q,k,v,o}
//               (no biases; q/k/v [H·d_kv, d], o [d, H·d_kv]), layer.0.layer_norm; block 0's
//               SelfAttention.relative_attention_bias [buckets, H]; the decoder's
//               layer.1.EncDecAttention.{q,k,v,o} and layer.1.layer_norm; the feed-forward
//               layer.{1 encoder, 2 decoder}.DenseReluDense.{wi | wi_0, wi_1, wo} and its
//               layer_norm; {encoder,decoder}.final_layer_norm; lm_head (when untied)
// block         x = shared[ids]
//               per layer (pre-norm, the norm x/√(mean(x²) + ε)·w: no mean, no bias):
//                 x += o(softmax(q kᵀ + B) v) of norm(x)        unscaled scores, B below
//                 x += o(softmax(q kᵀ) v) over the encoder       (decoder; no B)
//                 x += wo(act(wi(norm(x))))  or  wo(act(wi_0(norm(x))) ⊙ wi_1(norm(x)))
//               h = final_norm(x); logits = lm_head(h · d^−1/2 when tied)
// positions     B[h][i][j] = relative_attention_bias[bucket(j − i), h], the same table for
//               every layer of a stack. bucket(r): bidirectional (encoder) splits the buckets
//               between r > 0 and the rest and takes |r|; causal (decoder) takes max(−r, 0).
//               Within the (half) count N, |r| < N/2 is its own bucket; beyond,
//               N/2 + ⌊ln(r / (N/2)) / ln(max_distance / (N/2)) · (N − N/2)⌋, at most N − 1,
//               computed in float as Hugging Face does.
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
namespace t5_parts {
namespace {

void read_feed_forward(const config_reader& r, model_config& c) {
  const std::string proj = r.text_or("feed_forward_proj", "relu");
  const bool gated = proj.rfind("gated-", 0) == 0;
  std::string act = gated ? proj.substr(6) : proj;
  if (proj == "gated-gelu") act = "gelu_new";  // as Hugging Face's T5Config maps it
  if (act.empty() || act.find('-') != std::string::npos)
    r.fail("feed_forward_proj", fmt::format("ACT or gated-ACT, got '{}'", proj));
  c.gated_mlp = gated;
  c.activation = activation_of(r, "feed_forward_proj", act);
}

void read_config(const config_reader& r, model_config& c) {
  c.encoder_decoder = true;
  c.d_model = r.size("d_model");
  c.head_dim = c.decoder_head_dim = r.size("d_kv");
  c.intermediate = c.decoder_intermediate = r.size("d_ff");
  c.layers = r.size("num_layers");
  c.decoder_layers = r.size_or("num_decoder_layers", c.layers);
  c.heads = c.kv_heads = c.decoder_heads = r.size("num_heads");
  c.vocab = r.size("vocab_size");
  c.relative_buckets = r.size_or("relative_attention_num_buckets", 32);
  c.relative_max_distance = r.size_or("relative_attention_max_distance", 128);
  if (c.relative_buckets < 4)
    r.fail("relative_attention_num_buckets",
           fmt::format("at least 4, got {}", c.relative_buckets));
  c.norm_eps = r.number_or("layer_norm_epsilon", 1e-6);
  read_feed_forward(r, c);
  c.tie_embeddings = r.flag_or("tie_word_embeddings", true);
  c.head_input_scale = c.tie_embeddings ? 1.0 / std::sqrt(static_cast<double>(c.d_model)) : 1.0;
  c.eos_id = static_cast<std::int64_t>(r.index_or("eos_token_id", 1));
  c.decoder_start_id = static_cast<std::int64_t>(r.index_or("decoder_start_token_id", 0));
  c.max_positions = std::size_t{1} << 20;  // relative positions: no table to run out of
  c.norm = norm_kind::rms_norm;
  c.positions = position_kind::relative;
  c.causal = false;
}

void bind_attention(const binder& b, const std::string& at, std::int64_t d, std::int64_t inner,
                    attention_weights& a) {
  a.q = b.need(at + "q.weight", {inner, d});
  a.k = b.need(at + "k.weight", {inner, d});
  a.v = b.need(at + "v.weight", {inner, d});
  a.o = b.need(at + "o.weight", {d, inner});
}

layer_weights bind_layer(const hf_model& m, const binder& b, const std::string& p, bool decoder,
                         std::size_t l) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), inner = dim(c.heads * c.head_dim), I = dim(c.intermediate);
  layer_weights w;
  bind_attention(b, p + "layer.0.SelfAttention.", d, inner, w.self);
  w.norm1_w = b.need(p + "layer.0.layer_norm.weight", {d});
  if (l == 0)
    w.position_bias = b.need(p + "layer.0.SelfAttention.relative_attention_bias.weight",
                             {dim(c.relative_buckets), dim(c.heads)});
  if (decoder) {
    bind_attention(b, p + "layer.1.EncDecAttention.", d, inner, w.cross);
    w.norm_cross_w = b.need(p + "layer.1.layer_norm.weight", {d});
  }
  const std::string ff = p + (decoder ? "layer.2." : "layer.1.");
  if (c.gated_mlp) {
    w.gate = b.need(ff + "DenseReluDense.wi_0.weight", {I, d});
    w.up = b.need(ff + "DenseReluDense.wi_1.weight", {I, d});
  } else {
    w.up = b.need(ff + "DenseReluDense.wi.weight", {I, d});
  }
  w.down = b.need(ff + "DenseReluDense.wo.weight", {d, I});
  w.norm2_w = b.need(ff + "layer_norm.weight", {d});
  return w;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), V = dim(c.vocab);
  const binder b(m.weights, "");
  m.tokens = b.need("shared.weight", {V, d});
  for (std::size_t l = 0; l < c.layers; ++l)
    m.layers.push_back(bind_layer(m, b, fmt::format("encoder.block.{}.", l), false, l));
  for (std::size_t l = 0; l < c.decoder_layers; ++l)
    m.decoder_layers.push_back(bind_layer(m, b, fmt::format("decoder.block.{}.", l), true, l));
  m.final_norm_w = b.need("encoder.final_layer_norm.weight", {d});
  m.decoder_final_norm_w = b.need("decoder.final_layer_norm.weight", {d});
  m.lm_head = output_embeddings(m, "lm_head.weight", {V, d});
}

// bucket(r) as above; Hugging Face's float arithmetic for the logarithmic part.
std::size_t relative_bucket(std::int64_t r, bool bidirectional, std::size_t buckets,
                            std::size_t max_distance) {
  std::size_t base = 0;
  std::int64_t distance = 0;
  if (bidirectional) {
    buckets /= 2;
    if (r > 0) base = buckets;
    distance = r < 0 ? -r : r;
  } else {
    distance = r < 0 ? -r : 0;
  }
  const auto exact = static_cast<std::int64_t>(buckets / 2);
  if (distance < exact) return base + static_cast<std::size_t>(distance);
  const float ratio = static_cast<float>(distance) / static_cast<float>(exact);
  const auto spread = static_cast<float>(
      std::log(static_cast<double>(max_distance) / static_cast<double>(exact)));
  const float scaled = std::log(ratio) / spread * static_cast<float>(buckets - exact);
  const auto large = std::min<std::int64_t>(exact + static_cast<std::int64_t>(scaled),
                                            static_cast<std::int64_t>(buckets) - 1);
  return base + static_cast<std::size_t>(large);
}

// The context's score bias for its n queries at positions past, … over past + n keys.
void set_position_bias(layer_context& lc, const weight_view& table, bool bidirectional) {
  const model_config& c = lc.m.config;
  const std::size_t H = lc.heads, n = lc.n, n_k = lc.past + n;
  const std::vector<float> t = vector_of(table);  // [buckets, H]
  lc.score_bias.assign(H * n * n_k, 0.0f);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n_k; ++j) {
      const auto r = static_cast<std::int64_t>(j) - static_cast<std::int64_t>(lc.past + i);
      const std::size_t bucket =
          relative_bucket(r, bidirectional, c.relative_buckets, c.relative_max_distance);
      for (std::size_t h = 0; h < H; ++h) lc.score_bias[(h * n + i) * n_k + j] = t[bucket * H + h];
    }
  lc.score_scale = 1.0;
}

// x += f(norm(x)); an attention sub-layer's join reported to its measure's taps, when it has
// them.
template <class F>
void residual(layer_context& lc, matrix& x, const weight_view* norm, F f,
              map_taps* taps = nullptr) {
  const matrix in = norm_of(lc.m, x, norm, nullptr);
  lc.lap("norm");
  const matrix out = f(in);
  report_residual_to(taps, lc, x, out, residual_kind::add);
  add_in_place(x, out);
}

void block(layer_context& lc, const layer_weights& w, matrix& x, float* maps, layer_probe* probe,
           kv_cache*) {
  if (lc.score_bias.empty()) set_position_bias(lc, *lc.m.layers[0].position_bias, true);
  residual(
      lc, x, w.norm1_w,
      [&](const matrix& in) { return attention_block(lc, w.self, in, maps, probe); }, lc.taps);
  residual(lc, x, w.norm2_w, [&](const matrix& in) { return mlp_block(lc, w, in); });
}

void decoder_block(layer_context& lc, const layer_weights& w, matrix& x, const decoder_io& io) {
  if (lc.score_bias.empty()) set_position_bias(lc, *lc.m.decoder_layers[0].position_bias, false);
  residual(
      lc, x, w.norm1_w,
      [&](const matrix& in) {
        return attention_block(lc, w.self, in, io.self_maps, nullptr, io.cache);
      },
      lc.taps);
  residual(
      lc, x, w.norm_cross_w,
      [&](const matrix& in) {
        return cross_attention_block(lc, w.cross, in, *io.memory, io.cross_maps, io.cross_taps);
      },
      io.cross_taps);
  residual(lc, x, w.norm2_w, [&](const matrix& in) { return mlp_block(lc, w, in); });
}

matrix decoder_embed(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t) {
  return token_rows(m, ids);
}

}  // namespace
}  // namespace t5_parts

const family_spec t5_family{"t5", {"t5", "mt5"}, t5_parts::read_config, t5_parts::bind, token_rows,
                            t5_parts::block, nullptr, t5_parts::decoder_embed,
                            t5_parts::decoder_block};

}  // namespace attnviz
