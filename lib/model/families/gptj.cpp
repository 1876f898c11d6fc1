// GPT-J (model_type gptj: EleutherAI/gpt-j-6b and its fine-tunes).
//
// config.json   n_embd, n_head, n_layer, n_positions, vocab_size, rotary_dim (64; null: the
//               whole head), n_inner (null: 4·n_embd), activation_function (gelu_new),
//               layer_norm_epsilon (1e-5), tie_word_embeddings (false), eos_token_id
// tensors       transformer.wte, transformer.h.{l}.{ln_1, attn.{q,k,v}_proj (no bias),
//               attn.out_proj (no bias), mlp.fc_in, mlp.fc_out}, transformer.ln_f, lm_head
//               (weight and bias); attn.bias / attn.masked_bias buffers are ignored
// block         x = wte[ids]
//               per layer: h = LN_1(x); x += out(attn(h)) + fc_out(gelu(fc_in(h)))  (parallel)
//               RoPE interleaved (dimension 2i with 2i + 1, θ_i = 10000^(−2i/r)) on each head's
//               first r = rotary_dim dimensions
//               h = LN_f(x), logits = lm_head h + b
#include <fmt/format.h>

#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace gptj_parts {
namespace {

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("n_embd");
  c.heads = r.size("n_head");
  c.layers = r.size("n_layer");
  c.max_positions = r.size("n_positions");
  c.vocab = r.size("vocab_size");
  c.intermediate = r.size_or("n_inner", 4 * c.d_model);  // null: 4 · n_embd
  c.norm_eps = r.number_or("layer_norm_epsilon", 1e-5);
  c.activation =
      activation_of(r, "activation_function", r.text_or("activation_function", "gelu_new"));
  c.tie_embeddings = r.flag_or("tie_word_embeddings", false);
  if (c.d_model % c.heads != 0) r.fail("n_head", "a divisor of n_embd");
  c.head_dim = c.d_model / c.heads;
  c.rotary_dims = r.size_or("rotary_dim", c.head_dim);
  if (c.rotary_dims > c.head_dim || c.rotary_dims % 2 != 0)
    r.fail("rotary_dim", fmt::format("an even number of dimensions up to the head's {}",
                                     c.head_dim));
  c.rope_theta = 10000.0;
  c.rope_layout = rope_pairs::interleaved;
  c.parallel_residual = true;
  c.norm = norm_kind::layer_norm;
  c.positions = position_kind::rotary;
  c.causal = true;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate), V = dim(c.vocab);
  const binder b(m.weights, "transformer.");
  m.tokens = b.need("wte.weight", {V, d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("h.{}.", l);
    layer_weights w;
    w.norm1_w = b.need(p + "ln_1.weight", {d});
    w.norm1_b = b.need(p + "ln_1.bias", {d});
    w.self.q = b.need(p + "attn.q_proj.weight", {d, d});
    w.self.k = b.need(p + "attn.k_proj.weight", {d, d});
    w.self.v = b.need(p + "attn.v_proj.weight", {d, d});
    w.self.o = b.need(p + "attn.out_proj.weight", {d, d});
    w.up = b.need(p + "mlp.fc_in.weight", {I, d});
    w.up_b = b.need(p + "mlp.fc_in.bias", {I});
    w.down = b.need(p + "mlp.fc_out.weight", {d, I});
    w.down_b = b.need(p + "mlp.fc_out.bias", {d});
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("ln_f.weight", {d});
  m.final_norm_b = b.need("ln_f.bias", {d});
  m.lm_head = output_embeddings(m, "lm_head.weight", {V, d});
  m.logits_bias = b.maybe_top("lm_head.bias", {V});
}

}  // namespace
}  // namespace gptj_parts

const family_spec gptj_family{"gptj", {"gptj"}, gptj_parts::read_config, gptj_parts::bind,
                              token_rows, parallel_block};

}  // namespace attnviz
