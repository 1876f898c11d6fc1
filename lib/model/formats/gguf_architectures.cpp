#include "model/formats/gguf_architectures.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "error.h"

namespace attnviz {

namespace {

using json = nlohmann::json;

const gguf_tensor_info* tensor(const gguf_header& h, std::string_view name) {
  for (const auto& t : h.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

// The vocabulary: the token embeddings' rows.
std::uint64_t vocabulary_size(const gguf_keys& k, const gguf_header& h) {
  const gguf_tensor_info* t = tensor(h, "token_embd.weight");
  if (!t || t->dims.size() != 2)
    throw input_error(k.source(), "has no 2-dimensional tensor 'token_embd.weight' (the token "
                                  "embeddings)");
  return t->dims[1];
}

// head_count_kv: one number, or one per layer (all equal here).
std::uint64_t kv_heads(const gguf_keys& k, const std::string& key, std::uint64_t heads) {
  const gguf_value* v = k.find(key);
  if (!v) return heads;
  if (v->type != gguf_value_type::array) return k.size(key);
  if (v->value.empty() || !v->value[0].is_number_unsigned())
    k.fail(key, "a whole number, or one per layer");
  for (const auto& n : v->value)
    if (n != v->value[0])
      k.fail(key, "the same number of key/value heads in every layer (attn-viz runs no model "
                  "whose layers differ)");
  return v->value[0].get<std::uint64_t>();
}

// The end tokens: eos, and the end-of-turn token chat models stop at.
json end_ids(const gguf_keys& k) {
  json ids = json::array();
  for (const char* key : {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id"})
    if (const auto id = k.index(key); id && std::find(ids.begin(), ids.end(), *id) == ids.end())
      ids.push_back(*id);
  return ids;
}

json rope_scaling(const gguf_keys& k, const std::string& p) {
  const std::string type = k.text_or(p + "rope.scaling.type", "none");
  if (type == "none") return nullptr;
  if (type == "linear")
    return json{{"rope_type", "linear"}, {"factor", k.number_or(p + "rope.scaling.factor", 1.0)}};
  k.fail(p + "rope.scaling.type", "none or linear (the RoPE scalings attn-viz runs)");
}

// Llama, Mistral and Qwen2: LlamaConfig's keys.
json llama_config(const gguf_keys& k, const gguf_header& h) {
  const std::string arch = k.text_or("general.architecture", "");
  const std::string p = arch + ".";
  const std::uint64_t d = k.size(p + "embedding_length"), heads = k.size(p + "attention.head_count");
  json c = {{"model_type", arch},
            {"hidden_size", d},
            {"num_hidden_layers", k.size(p + "block_count")},
            {"num_attention_heads", heads},
            {"num_key_value_heads", kv_heads(k, p + "attention.head_count_kv", heads)},
            {"intermediate_size", k.size(p + "feed_forward_length")},
            {"max_position_embeddings", k.size(p + "context_length")},
            {"vocab_size", vocabulary_size(k, h)},
            {"rms_norm_eps", k.number_or(p + "attention.layer_norm_rms_epsilon", 1e-5)},
            {"rope_theta", k.number_or(p + "rope.freq_base", 10000.0)},
            {"tie_word_embeddings", tensor(h, "output.weight") == nullptr},
            {"eos_token_id", end_ids(k)}};
  const std::uint64_t head_dim = k.size_or(p + "attention.key_length", d / heads);
  if (k.size_or(p + "attention.value_length", head_dim) != head_dim)
    k.fail(p + "attention.value_length", fmt::format("{} (the key length)", head_dim));
  c["head_dim"] = head_dim;
  if (k.size_or(p + "rope.dimension_count", head_dim) != head_dim)
    k.fail(p + "rope.dimension_count", fmt::format("{}: RoPE over whole heads", head_dim));
  if (json s = rope_scaling(k, p); !s.is_null()) c["rope_scaling"] = s;
  if (k.has(p + "attention.sliding_window")) {
    c["model_type"] = arch == "llama" ? "mistral" : arch;
    c["sliding_window"] = k.size(p + "attention.sliding_window");
    c["use_sliding_window"] = true;
  }
  return c;
}

const std::vector<std::pair<std::string_view, std::string_view>> kLlamaLayer = {
    {"attn_norm", "model.layers.{}.input_layernorm"},
    {"attn_q", "model.layers.{}.self_attn.q_proj"},
    {"attn_k", "model.layers.{}.self_attn.k_proj"},
    {"attn_v", "model.layers.{}.self_attn.v_proj"},
    {"attn_output", "model.layers.{}.self_attn.o_proj"},
    {"ffn_norm", "model.layers.{}.post_attention_layernorm"},
    {"ffn_gate", "model.layers.{}.mlp.gate_proj"},
    {"ffn_up", "model.layers.{}.mlp.up_proj"},
    {"ffn_down", "model.layers.{}.mlp.down_proj"},
};
const std::vector<std::pair<std::string_view, std::string_view>> kLlamaGlobal = {
    {"token_embd", "model.embed_tokens"},
    {"output_norm", "model.norm"},
    {"output", "lm_head"},
};

storage_notes interleaved_rope() {
  storage_notes n;
  n.rope_rows_interleaved = true;
  return n;
}

const std::vector<gguf_architecture>& architectures() {
  static const std::vector<gguf_architecture> all = {
      {"llama", llama_config, kLlamaLayer, kLlamaGlobal, interleaved_rope()},
      {"qwen2", llama_config, kLlamaLayer, kLlamaGlobal, storage_notes{}},
  };
  return all;
}

// "blk.12.attn_q.weight" → layer 12, base "attn_q", ending ".weight".
bool split_name(const std::string& name, std::string& layer, std::string& base,
                std::string& ending) {
  std::string rest = name;
  layer.clear();
  if (rest.rfind("blk.", 0) == 0) {
    const std::size_t dot = rest.find('.', 4);
    if (dot == std::string::npos || dot == 4) return false;
    layer = rest.substr(4, dot - 4);
    unsigned v = 0;
    const auto [end, ec] = std::from_chars(layer.data(), layer.data() + layer.size(), v);
    if (ec != std::errc() || end != layer.data() + layer.size()) return false;
    rest = rest.substr(dot + 1);
  }
  const std::size_t dot = rest.rfind('.');
  if (dot == std::string::npos) return false;
  base = rest.substr(0, dot);
  ending = rest.substr(dot);
  return true;
}

std::string with_layer(std::string_view pattern, const std::string& layer) {
  std::string s(pattern);
  const std::size_t at = s.find("{}");
  if (at != std::string::npos) s.replace(at, 2, layer);
  return s;
}

}  // namespace

const gguf_architecture* find_gguf_architecture(std::string_view arch) {
  for (const auto& a : architectures())
    if (a.arch == arch) return &a;
  return nullptr;
}

std::string gguf_architecture_names() {
  std::string all;
  for (const auto& a : architectures()) all += (all.empty() ? "" : ", ") + std::string(a.arch);
  return all;
}

std::string family_tensor_name(const gguf_architecture& a, const std::string& gguf_name) {
  std::string layer, base, ending;
  if (!split_name(gguf_name, layer, base, ending)) return {};
  for (const auto& [from, to] : layer.empty() ? a.global_names : a.layer_names)
    if (from == base) return with_layer(to, layer) + ending;
  return {};
}

std::string gguf_tensor_name(const gguf_architecture& a, const std::string& family_name) {
  const std::size_t dot = family_name.rfind('.');
  if (dot == std::string::npos) return family_name;
  const std::string base = family_name.substr(0, dot), ending = family_name.substr(dot);
  for (const auto& [from, to] : a.global_names)
    if (to == base) return std::string(from) + ending;
  for (const auto& [from, to] : a.layer_names) {
    const std::string pattern(to);
    const std::size_t at = pattern.find("{}");
    const std::string head = pattern.substr(0, at), tail = pattern.substr(at + 2);
    if (base.size() > head.size() + tail.size() && base.rfind(head, 0) == 0 &&
        base.compare(base.size() - tail.size(), tail.size(), tail) == 0)
      return fmt::format("blk.{}.{}{}", base.substr(head.size(), base.size() - head.size() -
                                                                      tail.size()),
                         from, ending);
  }
  return family_name;
}

}  // namespace attnviz
