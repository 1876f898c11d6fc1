// GPT-2 (model_type gpt2).
//
// config.json   n_embd, n_head, n_layer, n_positions (or n_ctx), vocab_size, n_inner (4·d),
//               layer_norm_epsilon (1e-5), activation_function (gelu_new)
// tensors       wte [V, d], wpe [P, d], h.{l}.{ln_1, attn.c_attn [d, 3d], attn.c_proj [d, d],
//               ln_2, mlp.c_fc [d, I], mlp.c_proj [I, d]}, ln_f; the optional prefix
//               transformer.; Conv1D weights stored [in, out]; lm_head.weight, or tied to wte
// block         x = wte[ids] + wpe[0..n)
//               per layer: x += c_proj(attn(LN_1(x)));  x += mlp_c_proj(gelu(c_fc(LN_2(x))))
//               h = LN_f(x)                                         causal, scale 1/√d_h
#include <fmt/format.h>

#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"

namespace attnviz {

// This family's own parts, named apart from the other families' (the library
// compiles as a unity build).
namespace gpt2_parts {
namespace {

void read_config(const config_reader& r, model_config& c) {
  c.d_model = r.size("n_embd");
  c.heads = r.size("n_head");
  c.layers = r.size("n_layer");
  c.max_positions = r.has("n_positions") ? r.size("n_positions") : r.size("n_ctx");
  c.vocab = r.size("vocab_size");
  c.intermediate = r.size_or("n_inner", 4 * c.d_model);
  c.norm_eps = r.number_or("layer_norm_epsilon", 1e-5);
  c.activation =
      activation_of(r, "activation_function", r.text_or("activation_function", "gelu_new"));
  c.norm = norm_kind::layer_norm;
  c.positions = position_kind::learned;
  c.causal = true;
  c.tie_embeddings = true;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const auto d = dim(c.d_model), I = dim(c.intermediate);
  const binder b(m.weights, m.weights.has_prefix("transformer.h.") ? "transformer." : "");
  // Conv1D weights [in, out], or [out, in] as a GGUF file holds them
  m.conv1d = !m.weights.notes().dense_out_in;
  const auto io = [&](std::int64_t in, std::int64_t out) {
    return m.conv1d ? binder::shape{in, out} : binder::shape{out, in};
  };
  m.tokens = b.need("wte.weight", {dim(c.vocab), d});
  m.positions = b.need("wpe.weight", {dim(c.max_positions), d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string h = fmt::format("h.{}.", l);
    layer_weights w;
    w.norm1_w = b.need(h + "ln_1.weight", {d});
    w.norm1_b = b.need(h + "ln_1.bias", {d});
    w.self.qkv = b.need(h + "attn.c_attn.weight", io(d, 3 * d));
    w.self.qkv_b = b.need(h + "attn.c_attn.bias", {3 * d});
    w.self.o = b.need(h + "attn.c_proj.weight", io(d, d));
    w.self.o_b = b.need(h + "attn.c_proj.bias", {d});
    w.norm2_w = b.need(h + "ln_2.weight", {d});
    w.norm2_b = b.need(h + "ln_2.bias", {d});
    w.up = b.need(h + "mlp.c_fc.weight", io(d, I));
    w.up_b = b.need(h + "mlp.c_fc.bias", {I});
    w.down = b.need(h + "mlp.c_proj.weight", io(I, d));
    w.down_b = b.need(h + "mlp.c_proj.bias", {d});
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("ln_f.weight", {d});
  m.final_norm_b = b.need("ln_f.bias", {d});
  m.lm_head = b.maybe_top("lm_head.weight", {dim(c.vocab), d});
  if (!m.lm_head) m.lm_head = m.tokens;
}

matrix embed(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t first) {
  matrix x = token_rows(m, ids);
  add_table_rows(x, *m.positions, first);
  return x;
}

}  // namespace
}  // namespace gpt2_parts

const family_spec gpt2_family{"gpt2", {"gpt2"}, gpt2_parts::read_config, gpt2_parts::bind,
                              gpt2_parts::embed, pre_norm_block};

}  // namespace attnviz
