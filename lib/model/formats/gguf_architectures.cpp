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

// The keys every architecture has: {arch}.context_length, embedding_length, block_count,
// feed_forward_length, attention.head_count (and head_count_kv), the vocabulary and the end
// tokens, under Hugging Face's usual names.
json common_config(const gguf_keys& k, const gguf_header& h, const std::string& model_type) {
  const std::string p = k.text_or("general.architecture", "") + ".";
  const std::uint64_t heads = k.size(p + "attention.head_count");
  return {{"model_type", model_type},
          {"hidden_size", k.size(p + "embedding_length")},
          {"num_hidden_layers", k.size(p + "block_count")},
          {"num_attention_heads", heads},
          {"num_key_value_heads", kv_heads(k, p + "attention.head_count_kv", heads)},
          {"intermediate_size", k.size(p + "feed_forward_length")},
          {"max_position_embeddings", k.size(p + "context_length")},
          {"vocab_size", vocabulary_size(k, h)},
          {"tie_word_embeddings", tensor(h, "output.weight") == nullptr},
          {"eos_token_id", end_ids(k)}};
}

// GPT-2: GPT2Config's names.
json gpt2_config(const gguf_keys& k, const gguf_header& h) {
  const json c = common_config(k, h, "gpt2");
  return {{"model_type", "gpt2"},
          {"n_embd", c["hidden_size"]},
          {"n_layer", c["num_hidden_layers"]},
          {"n_head", c["num_attention_heads"]},
          {"n_inner", c["intermediate_size"]},
          {"n_positions", c["max_position_embeddings"]},
          {"vocab_size", c["vocab_size"]},
          {"layer_norm_epsilon", k.number_or("gpt2.attention.layer_norm_epsilon", 1e-5)},
          {"eos_token_id", c["eos_token_id"]}};
}

// The rotated share of a head: rope.dimension_count / head_dim.
double rotary_share(const gguf_keys& k, const std::string& p, std::uint64_t head_dim) {
  const std::uint64_t r = k.size_or(p + "rope.dimension_count", head_dim);
  if (r > head_dim || r % 2 != 0)
    k.fail(p + "rope.dimension_count", fmt::format("an even number up to the head size {}",
                                                   head_dim));
  return static_cast<double>(r) / static_cast<double>(head_dim);
}

// GPT-NeoX (Pythia): GPTNeoXConfig's names.
json gptneox_config(const gguf_keys& k, const gguf_header& h) {
  json c = common_config(k, h, "gpt_neox");
  const std::uint64_t head_dim = c["hidden_size"].get<std::uint64_t>() /
                                 c["num_attention_heads"].get<std::uint64_t>();
  c.erase("num_key_value_heads");
  c["rotary_pct"] = rotary_share(k, "gptneox.", head_dim);
  c["rotary_emb_base"] = k.number_or("gptneox.rope.freq_base", 10000.0);
  c["use_parallel_residual"] = k.flag_or("gptneox.use_parallel_residual", true);
  c["layer_norm_eps"] = k.number_or("gptneox.attention.layer_norm_epsilon", 1e-5);
  return c;
}

// Phi-3: Phi3Config's names (LongRoPE's factor tensors are refused with the file's tensors).
json phi3_config(const gguf_keys& k, const gguf_header& h) {
  json c = common_config(k, h, "phi3");
  const std::uint64_t head_dim = c["hidden_size"].get<std::uint64_t>() /
                                 c["num_attention_heads"].get<std::uint64_t>();
  c["partial_rotary_factor"] = rotary_share(k, "phi3.", head_dim);
  c["rms_norm_eps"] = k.number_or("phi3.attention.layer_norm_rms_epsilon", 1e-5);
  c["rope_theta"] = k.number_or("phi3.rope.freq_base", 10000.0);
  if (k.has("phi3.attention.sliding_window"))
    c["sliding_window"] = k.size("phi3.attention.sliding_window");
  return c;
}

// Llama, Mistral and Qwen2: LlamaConfig's names.
json llama_config(const gguf_keys& k, const gguf_header& h) {
  const std::string arch = k.text_or("general.architecture", "");
  const std::string p = arch + ".";
  json c = common_config(k, h, arch);
  const std::uint64_t head_dim = k.size_or(p + "attention.key_length",
                                           c["hidden_size"].get<std::uint64_t>() /
                                               c["num_attention_heads"].get<std::uint64_t>());
  if (k.size_or(p + "attention.value_length", head_dim) != head_dim)
    k.fail(p + "attention.value_length", fmt::format("{} (the key length)", head_dim));
  if (rotary_share(k, p, head_dim) != 1.0)
    k.fail(p + "rope.dimension_count", fmt::format("{}: RoPE over whole heads", head_dim));
  c["head_dim"] = head_dim;
  c["rms_norm_eps"] = k.number_or(p + "attention.layer_norm_rms_epsilon", 1e-5);
  c["rope_theta"] = k.number_or(p + "rope.freq_base", 10000.0);
  if (json s = rope_scaling(k, p); !s.is_null()) c["rope_scaling"] = s;
  if (k.has(p + "attention.sliding_window")) {
    c["model_type"] = arch == "llama" ? "mistral" : arch;
    c["sliding_window"] = k.size(p + "attention.sliding_window");
    c["use_sliding_window"] = true;
  }
  return c;
}

// Gemma and Gemma 2: GemmaConfig's / Gemma2Config's names. Gemma 2 scales queries by
// query_pre_attn_scalar^-1/2, which GGUF does not store: the head size, except for the 46-layer
// (27B) model, d / H, as llama.cpp rules by model size.
json gemma_config(const gguf_keys& k, const gguf_header& h) {
  const std::string arch = k.text_or("general.architecture", "");
  const std::string p = arch + ".";
  json c = common_config(k, h, arch);
  const std::uint64_t d = c["hidden_size"], heads = c["num_attention_heads"];
  const std::uint64_t head_dim = k.size_or(p + "attention.key_length", d / heads);
  c["head_dim"] = head_dim;
  c["rms_norm_eps"] = k.number_or(p + "attention.layer_norm_rms_epsilon", 1e-6);
  c["rope_theta"] = k.number_or(p + "rope.freq_base", 10000.0);
  c["hidden_activation"] = "gelu_pytorch_tanh";
  if (arch == "gemma2") {
    c["attn_logit_softcapping"] = k.number_or(p + "attn_logit_softcapping", 50.0);
    c["final_logit_softcapping"] = k.number_or(p + "final_logit_softcapping", 30.0);
    c["sliding_window"] = k.size_or(p + "attention.sliding_window", 4096);
    c["query_pre_attn_scalar"] = c["num_hidden_layers"] == 46 ? d / heads : head_dim;
  }
  return c;
}

// Falcon: FalconConfig's names; the new decoder architecture is the one with attn_norm_2
// (ln_mlp) in every layer.
json falcon_config(const gguf_keys& k, const gguf_header& h) {
  json c = common_config(k, h, "falcon");
  const bool two_norms = tensor(h, "blk.0.attn_norm_2.weight") != nullptr;
  c["ffn_hidden_size"] = c["intermediate_size"];
  c.erase("intermediate_size");
  c["num_kv_heads"] = c["num_key_value_heads"];
  c.erase("num_key_value_heads");
  c["new_decoder_architecture"] = two_norms;
  c["multi_query"] = c["num_kv_heads"] == 1;
  c["num_ln_in_parallel_attn"] = std::uint64_t{two_norms ? 2u : 1u};
  c["parallel_attn"] = true;
  c["bias"] = false;
  c["layer_norm_epsilon"] = k.number_or("falcon.attention.layer_norm_epsilon", 1e-5);
  c["rope_theta"] = k.number_or("falcon.rope.freq_base", 10000.0);
  return c;
}

using name_table = std::vector<std::pair<std::string_view, std::string_view>>;

const name_table kLlamaLayer = {
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
const name_table kLlamaGlobal = {
    {"token_embd", "model.embed_tokens"},
    {"output_norm", "model.norm"},
    {"output", "lm_head"},
};
const name_table kGemma2Layer = {
    {"attn_norm", "model.layers.{}.input_layernorm"},
    {"attn_q", "model.layers.{}.self_attn.q_proj"},
    {"attn_k", "model.layers.{}.self_attn.k_proj"},
    {"attn_v", "model.layers.{}.self_attn.v_proj"},
    {"attn_output", "model.layers.{}.self_attn.o_proj"},
    {"post_attention_norm", "model.layers.{}.post_attention_layernorm"},
    {"ffn_norm", "model.layers.{}.pre_feedforward_layernorm"},
    {"post_ffw_norm", "model.layers.{}.post_feedforward_layernorm"},
    {"ffn_gate", "model.layers.{}.mlp.gate_proj"},
    {"ffn_up", "model.layers.{}.mlp.up_proj"},
    {"ffn_down", "model.layers.{}.mlp.down_proj"},
};
const name_table kPhi3Layer = {
    {"attn_norm", "model.layers.{}.input_layernorm"},
    {"attn_qkv", "model.layers.{}.self_attn.qkv_proj"},
    {"attn_output", "model.layers.{}.self_attn.o_proj"},
    {"ffn_norm", "model.layers.{}.post_attention_layernorm"},
    {"ffn_up", "model.layers.{}.mlp.gate_up_proj"},
    {"ffn_down", "model.layers.{}.mlp.down_proj"},
};
const name_table kGpt2Layer = {
    {"attn_norm", "h.{}.ln_1"},     {"attn_qkv", "h.{}.attn.c_attn"},
    {"attn_output", "h.{}.attn.c_proj"}, {"ffn_norm", "h.{}.ln_2"},
    {"ffn_up", "h.{}.mlp.c_fc"},    {"ffn_down", "h.{}.mlp.c_proj"},
};
const name_table kGpt2Global = {
    {"token_embd", "wte"}, {"position_embd", "wpe"}, {"output_norm", "ln_f"},
    {"output", "lm_head"},
};
const name_table kNeoxLayer = {
    {"attn_norm", "gpt_neox.layers.{}.input_layernorm"},
    {"attn_qkv", "gpt_neox.layers.{}.attention.query_key_value"},
    {"attn_output", "gpt_neox.layers.{}.attention.dense"},
    {"ffn_norm", "gpt_neox.layers.{}.post_attention_layernorm"},
    {"ffn_up", "gpt_neox.layers.{}.mlp.dense_h_to_4h"},
    {"ffn_down", "gpt_neox.layers.{}.mlp.dense_4h_to_h"},
};
const name_table kNeoxGlobal = {
    {"token_embd", "gpt_neox.embed_in"},
    {"output_norm", "gpt_neox.final_layer_norm"},
    {"output", "embed_out"},
};
const name_table kFalconLayer = {
    {"attn_norm", "transformer.h.{}.ln_attn"},
    {"attn_norm_2", "transformer.h.{}.ln_mlp"},
    {"attn_qkv", "transformer.h.{}.self_attention.query_key_value"},
    {"attn_output", "transformer.h.{}.self_attention.dense"},
    {"ffn_up", "transformer.h.{}.mlp.dense_h_to_4h"},
    {"ffn_down", "transformer.h.{}.mlp.dense_4h_to_h"},
};
const name_table kFalconGlobal = {
    {"token_embd", "transformer.word_embeddings"},
    {"output_norm", "transformer.ln_f"},
    {"output", "lm_head"},
};

// Falcon with one norm a layer calls it input_layernorm.
std::string falcon_rename(const gguf_header& h, std::string name) {
  const std::size_t at = name.find(".ln_attn.");
  if (at != std::string::npos && !tensor(h, "blk.0.attn_norm_2.weight"))
    name.replace(at, 9, ".input_layernorm.");
  return name;
}

storage_notes notes(bool interleaved, bool folded, bool out_in, bool qkv_blocks) {
  storage_notes n;
  n.rope_rows_interleaved = interleaved;
  n.norm_offset_folded = folded;
  n.dense_out_in = out_in;
  n.qkv_blocks = qkv_blocks;
  n.float_activations = true;
  return n;
}

const std::vector<gguf_architecture>& architectures() {
  static const std::vector<gguf_architecture> all = {
      {"llama", llama_config, kLlamaLayer, kLlamaGlobal, notes(true, false, false, false), nullptr},
      {"qwen2", llama_config, kLlamaLayer, kLlamaGlobal, notes(false, false, false, false), nullptr},
      {"gemma", gemma_config, kLlamaLayer, kLlamaGlobal, notes(false, true, false, false), nullptr},
      {"gemma2", gemma_config, kGemma2Layer, kLlamaGlobal, notes(false, true, false, false), nullptr},
      {"phi3", phi3_config, kPhi3Layer, kLlamaGlobal, notes(false, false, false, false), nullptr},
      {"gpt2", gpt2_config, kGpt2Layer, kGpt2Global, notes(false, false, true, false), nullptr},
      {"gptneox", gptneox_config, kNeoxLayer, kNeoxGlobal, notes(false, false, false, true),
       nullptr},
      {"falcon", falcon_config, kFalconLayer, kFalconGlobal, notes(false, false, false, true), falcon_rename},
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

std::string family_tensor_name(const gguf_architecture& a, const gguf_header& h,
                               const std::string& gguf_name) {
  std::string layer, base, ending;
  if (!split_name(gguf_name, layer, base, ending)) return {};
  for (const auto& [from, to] : layer.empty() ? a.global_names : a.layer_names)
    if (from == base) {
      std::string name = with_layer(to, layer) + ending;
      return a.rename ? a.rename(h, std::move(name)) : name;
    }
  return {};
}

std::string gguf_tensor_name(const gguf_architecture& a, const std::string& family) {
  std::string family_name = family;
  if (const std::size_t at = family_name.find(".input_layernorm."); a.rename && at != std::string::npos)
    family_name.replace(at, 17, ".ln_attn.");  // Falcon's one norm
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
