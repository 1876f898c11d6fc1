#include "model/hf_model.h"

#include <fmt/format.h>

#include <filesystem>

#include "error.h"

namespace attnviz {

namespace {

using shape = std::vector<std::int64_t>;

std::int64_t i64(std::size_t v) { return static_cast<std::int64_t>(v); }

// The tensors of one family, found under the checkpoint's prefix.
class binder {
 public:
  binder(const checkpoint& c, std::string prefix) : c_(c), prefix_(std::move(prefix)) {}
  const weight_view* need(const std::string& name, const shape& s) const {
    return &c_.require({prefix_ + name}, s);
  }
  // LayerNorm parameters under new or old names (weight/bias or gamma/beta).
  const weight_view* need_ln(const std::string& base, const char* which, const shape& s) const {
    const bool weight = std::string(which) == "weight";
    return &c_.require({prefix_ + base + "." + which, prefix_ + base + (weight ? ".gamma" : ".beta")},
                       s);
  }
  const weight_view* maybe(const std::string& name, const shape& s) const {
    return c_.find(prefix_ + name) ? need(name, s) : nullptr;
  }
  // Outside the prefix (heads of task models: lm_head, cls.predictions).
  const weight_view* maybe_top(const std::string& name, const shape& s) const {
    return c_.find(name) ? &c_.require({name}, s) : nullptr;
  }

 private:
  const checkpoint& c_;
  std::string prefix_;
};

void bind_gpt2(hf_model& m) {
  const model_config& c = m.config;
  const auto d = i64(c.d_model), I = i64(c.intermediate);
  const binder b(m.weights, m.weights.has_prefix("transformer.h.") ? "transformer." : "");
  m.conv1d = true;
  m.tokens = b.need("wte.weight", {i64(c.vocab), d});
  m.positions = b.need("wpe.weight", {i64(c.max_positions), d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string h = fmt::format("h.{}.", l);
    layer_weights w;
    w.norm1_w = b.need(h + "ln_1.weight", {d});
    w.norm1_b = b.need(h + "ln_1.bias", {d});
    w.qkv = b.need(h + "attn.c_attn.weight", {d, 3 * d});
    w.qkv_b = b.need(h + "attn.c_attn.bias", {3 * d});
    w.o = b.need(h + "attn.c_proj.weight", {d, d});
    w.o_b = b.need(h + "attn.c_proj.bias", {d});
    w.norm2_w = b.need(h + "ln_2.weight", {d});
    w.norm2_b = b.need(h + "ln_2.bias", {d});
    w.up = b.need(h + "mlp.c_fc.weight", {d, I});
    w.up_b = b.need(h + "mlp.c_fc.bias", {I});
    w.down = b.need(h + "mlp.c_proj.weight", {I, d});
    w.down_b = b.need(h + "mlp.c_proj.bias", {d});
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("ln_f.weight", {d});
  m.final_norm_b = b.need("ln_f.bias", {d});
  m.lm_head = b.maybe_top("lm_head.weight", {i64(c.vocab), d});
  if (!m.lm_head) m.lm_head = m.tokens;
}

void bind_bert(hf_model& m) {
  const model_config& c = m.config;
  const auto d = i64(c.d_model), I = i64(c.intermediate);
  const binder b(m.weights, m.weights.has_prefix("bert.embeddings.") ? "bert." : "");
  m.tokens = b.need("embeddings.word_embeddings.weight", {i64(c.vocab), d});
  m.positions = b.need("embeddings.position_embeddings.weight", {i64(c.max_positions), d});
  m.token_types = b.need("embeddings.token_type_embeddings.weight", {i64(c.type_vocab), d});
  m.embed_norm_w = b.need_ln("embeddings.LayerNorm", "weight", {d});
  m.embed_norm_b = b.need_ln("embeddings.LayerNorm", "bias", {d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string e = fmt::format("encoder.layer.{}.", l);
    layer_weights w;
    w.q = b.need(e + "attention.self.query.weight", {d, d});
    w.q_b = b.need(e + "attention.self.query.bias", {d});
    w.k = b.need(e + "attention.self.key.weight", {d, d});
    w.k_b = b.need(e + "attention.self.key.bias", {d});
    w.v = b.need(e + "attention.self.value.weight", {d, d});
    w.v_b = b.need(e + "attention.self.value.bias", {d});
    w.o = b.need(e + "attention.output.dense.weight", {d, d});
    w.o_b = b.need(e + "attention.output.dense.bias", {d});
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
  if (m.weights.find("cls.predictions.transform.dense.weight")) {
    const binder top(m.weights, "cls.predictions.");
    m.mlm_dense = top.need("transform.dense.weight", {d, d});
    m.mlm_dense_b = top.need("transform.dense.bias", {d});
    m.mlm_norm_w = top.need_ln("transform.LayerNorm", "weight", {d});
    m.mlm_norm_b = top.need_ln("transform.LayerNorm", "bias", {d});
    m.mlm_bias = top.need("bias", {i64(c.vocab)});
  }
  m.lm_head = m.tokens;  // the MLM decoder is tied to the word embeddings
}

void bind_llama(hf_model& m) {
  const model_config& c = m.config;
  const auto d = i64(c.d_model), I = i64(c.intermediate);
  const auto q_out = i64(c.heads * c.head_dim), kv_out = i64(c.kv_heads * c.head_dim);
  const binder b(m.weights, "model.");
  m.tokens = b.need("embed_tokens.weight", {i64(c.vocab), d});
  for (std::size_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("layers.{}.", l);
    layer_weights w;
    w.norm1_w = b.need(p + "input_layernorm.weight", {d});
    w.q = b.need(p + "self_attn.q_proj.weight", {q_out, d});
    w.k = b.need(p + "self_attn.k_proj.weight", {kv_out, d});
    w.v = b.need(p + "self_attn.v_proj.weight", {kv_out, d});
    w.o = b.need(p + "self_attn.o_proj.weight", {d, q_out});
    if (c.qkv_bias) {
      w.q_b = b.need(p + "self_attn.q_proj.bias", {q_out});
      w.k_b = b.need(p + "self_attn.k_proj.bias", {kv_out});
      w.v_b = b.need(p + "self_attn.v_proj.bias", {kv_out});
    }
    w.o_b = b.maybe(p + "self_attn.o_proj.bias", {d});
    w.norm2_w = b.need(p + "post_attention_layernorm.weight", {d});
    w.gate = b.need(p + "mlp.gate_proj.weight", {I, d});
    w.up = b.need(p + "mlp.up_proj.weight", {I, d});
    w.down = b.need(p + "mlp.down_proj.weight", {d, I});
    m.layers.push_back(w);
  }
  m.final_norm_w = b.need("norm.weight", {d});
  // tie_word_embeddings: no lm_head in the file, the embeddings serve; otherwise it must be there
  m.lm_head = c.tie_embeddings && !m.weights.find("lm_head.weight")
                  ? m.tokens
                  : &m.weights.require({"lm_head.weight"}, {i64(c.vocab), d});
}

}  // namespace

hf_model load_model(const std::string& dir) {
  hf_model m;
  m.dir = dir;
  const std::string config = (std::filesystem::path(dir) / "config.json").string();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw input_error(dir, "is not a folder (expected a Hugging Face model folder with "
                           "config.json and model.safetensors)");
  if (!std::filesystem::exists(config, ec))
    throw input_error(dir, "has no config.json (expected a Hugging Face model folder)");
  m.config = read_model_config(config);
  m.weights = checkpoint::open(dir);
  switch (m.config.family) {
    case model_family::gpt2: bind_gpt2(m); break;
    case model_family::bert: bind_bert(m); break;
    case model_family::llama: bind_llama(m); break;
  }
  return m;
}

}  // namespace attnviz
