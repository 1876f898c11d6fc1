#include "model/hf_config.h"

#include <fmt/format.h>

#include <cmath>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "error.h"
#include "io/file_io.h"
#include "io/json_file.h"

namespace attnviz {

namespace {

using json = nlohmann::json;

// Reads config.json's keys with messages that name the file and the key.
class config_reader {
 public:
  config_reader(const json& j, const std::string& path) : j_(j), path_(path) {}

  const std::string& path() const { return path_; }
  [[noreturn]] void fail(std::string_view key, std::string_view expected) const {
    throw input_error(path_, fmt::format("key '{}': expected {}", key, expected));
  }
  bool has(std::string_view key) const {
    const auto it = j_.find(std::string(key));
    return it != j_.end() && !it->is_null();
  }
  std::size_t size(std::string_view key) const {
    if (!has(key)) fail(key, "a positive whole number (the key is missing)");
    const json& v = j_.at(std::string(key));
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0 ||
        v.get<std::uint64_t>() > (std::uint64_t{1} << 32))
      fail(key, fmt::format("a positive whole number, got {}", v.dump()));
    return static_cast<std::size_t>(v.get<std::uint64_t>());
  }
  std::size_t size_or(std::string_view key, std::size_t fallback) const {
    return has(key) ? size(key) : fallback;
  }
  double number_or(std::string_view key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(std::string(key));
    if (!v.is_number() || !(v.get<double>() > 0.0))
      fail(key, fmt::format("a positive number, got {}", v.dump()));
    return v.get<double>();
  }
  std::string text_or(std::string_view key, std::string fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(std::string(key));
    if (!v.is_string()) fail(key, fmt::format("a string, got {}", v.dump()));
    return v.get<std::string>();
  }
  bool flag_or(std::string_view key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(std::string(key));
    if (!v.is_boolean()) fail(key, fmt::format("true or false, got {}", v.dump()));
    return v.get<bool>();
  }

 private:
  const json& j_;
  const std::string& path_;
};

mlp_activation activation_of(const config_reader& r, std::string_view key, std::string name) {
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
    return mlp_activation::gelu_tanh;
  if (name == "gelu") return mlp_activation::gelu_erf;
  r.fail(key, fmt::format("gelu, gelu_new or gelu_pytorch_tanh (attn-viz runs these), got '{}'",
                          name));
}

// rope_scaling: {"rope_type" (or "type"): "default" | "linear" | "llama3", "factor", …}.
rope_scaling_config read_rope_scaling(const json& j, const std::string& path) {
  if (!j.is_object())
    throw input_error(path, fmt::format("key 'rope_scaling': expected an object, got {}", j.dump()));
  const config_reader r(j, path);
  const std::string type = r.has("rope_type") ? r.text_or("rope_type", "") : r.text_or("type", "");
  rope_scaling_config s;
  if (type == "default") return s;
  if (type != "linear" && type != "llama3")
    throw input_error(path, fmt::format("key 'rope_scaling': attn-viz applies the rope_type "
                                        "default, linear and llama3 (running another unscaled "
                                        "would give wrong maps), got {}",
                                        j.dump()));
  s.kind = type == "linear" ? rope_scaling_kind::linear : rope_scaling_kind::llama3;
  if (!r.has("factor")) r.fail("rope_scaling.factor", "a positive number (the key is missing)");
  s.factor = r.number_or("factor", 1.0);
  if (s.kind == rope_scaling_kind::llama3) {
    s.low_freq_factor = r.number_or("low_freq_factor", 1.0);
    s.high_freq_factor = r.number_or("high_freq_factor", 4.0);
    s.original_max_positions = r.number_or("original_max_position_embeddings", 8192.0);
    if (!(s.high_freq_factor > s.low_freq_factor))
      throw input_error(path, fmt::format("key 'rope_scaling': high_freq_factor {} must be above "
                                          "low_freq_factor {}",
                                          s.high_freq_factor, s.low_freq_factor));
  }
  return s;
}

void read_gpt2(const config_reader& r, model_config& c) {
  c.family = model_family::gpt2;
  c.d_model = r.size("n_embd");
  c.heads = r.size("n_head");
  c.layers = r.size("n_layer");
  c.max_positions = r.has("n_positions") ? r.size("n_positions") : r.size("n_ctx");
  c.vocab = r.size("vocab_size");
  c.intermediate = r.size_or("n_inner", 4 * c.d_model);
  c.norm_eps = r.number_or("layer_norm_epsilon", 1e-5);
  c.activation = activation_of(r, "activation_function", r.text_or("activation_function", "gelu_new"));
  c.norm = norm_kind::layer_norm;
  c.causal = true;
  c.tie_embeddings = true;
}

void read_bert(const config_reader& r, model_config& c) {
  c.family = model_family::bert;
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.layers = r.size("num_hidden_layers");
  c.intermediate = r.size("intermediate_size");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.type_vocab = r.size_or("type_vocab_size", 2);
  c.norm_eps = r.number_or("layer_norm_eps", 1e-12);
  c.activation = activation_of(r, "hidden_act", r.text_or("hidden_act", "gelu"));
  const std::string position = r.text_or("position_embedding_type", "absolute");
  if (position != "absolute")
    r.fail("position_embedding_type",
           fmt::format("absolute (attn-viz runs learned absolute positions), got '{}'", position));
  c.norm = norm_kind::layer_norm;
  c.causal = false;
  c.tie_embeddings = true;
}

void read_llama(const config_reader& r, const json& j, model_config& c) {
  c.family = model_family::llama;
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.kv_heads = r.size_or("num_key_value_heads", c.heads);
  c.layers = r.size("num_hidden_layers");
  c.intermediate = r.size("intermediate_size");
  c.max_positions = r.size("max_position_embeddings");
  c.vocab = r.size("vocab_size");
  c.head_dim = r.size_or("head_dim", 0);
  c.norm_eps = r.number_or("rms_norm_eps", 1e-6);
  c.rope_theta = r.number_or("rope_theta", 10000.0);
  c.tie_embeddings = r.flag_or("tie_word_embeddings", false);
  const std::string act = r.text_or("hidden_act", "silu");
  if (act != "silu") r.fail("hidden_act", fmt::format("silu (SwiGLU), got '{}'", act));
  if (r.has("rope_scaling")) c.rope_scaling = read_rope_scaling(j.at("rope_scaling"), r.path());
  c.qkv_bias = c.model_type == "qwen2" || r.flag_or("attention_bias", false);
  if (c.model_type == "mistral" && r.has("sliding_window"))
    c.sliding_window = r.size("sliding_window");
  if (c.model_type == "qwen2" && r.flag_or("use_sliding_window", false) &&
      r.has("sliding_window"))
    c.sliding_window = r.size("sliding_window");
  c.norm = norm_kind::rms_norm;
  c.activation = mlp_activation::silu_gated;
  c.causal = true;
}

}  // namespace

std::vector<std::string_view> supported_model_types() {
  return {"gpt2", "bert", "llama", "mistral", "qwen2"};
}

model_config parse_model_config(const std::string& json_text, const std::string& path) {
  const json j = parse_json_text(json_text, path, "the model's config object");
  if (!j.is_object()) throw input_error(path, "must hold a JSON object (the model's config)");
  const config_reader r(j, path);
  model_config c;
  c.model_type = r.text_or("model_type", "");
  if (c.model_type.empty())
    r.fail("model_type", fmt::format("one of {} (the key is missing)",
                                     fmt::join(supported_model_types(), ", ")));
  if (c.model_type == "gpt2")
    read_gpt2(r, c);
  else if (c.model_type == "bert")
    read_bert(r, c);
  else if (c.model_type == "llama" || c.model_type == "mistral" || c.model_type == "qwen2")
    read_llama(r, j, c);
  else
    r.fail("model_type", fmt::format("one of {} (the families attn-viz runs), got '{}'",
                                     fmt::join(supported_model_types(), ", "), c.model_type));
  if (c.kv_heads == 0) c.kv_heads = c.heads;
  if (c.head_dim == 0) {
    if (c.d_model % c.heads != 0)
      throw input_error(path, fmt::format("the model size {} is not a multiple of the {} heads",
                                          c.d_model, c.heads));
    c.head_dim = c.d_model / c.heads;
  }
  if (c.heads % c.kv_heads != 0)
    throw input_error(path, fmt::format("{} query heads cannot share {} key/value heads evenly",
                                        c.heads, c.kv_heads));
  return c;
}

model_config read_model_config(const std::string& path) {
  return parse_model_config(read_whole_file(path), path);
}

std::string model_summary(const model_config& c) {
  std::string heads = fmt::format("{} heads", c.heads);
  if (c.kv_heads != c.heads) heads += fmt::format(" / {} KV", c.kv_heads);
  return fmt::format("{} · {} layers · d {} · {} ({} each)", c.model_type, c.layers, c.d_model,
                     heads, c.head_dim);
}

std::vector<double> rope_frequencies(const model_config& c) {
  const double pi = 3.14159265358979323846;
  const rope_scaling_config& s = c.rope_scaling;
  std::vector<double> theta(c.head_dim / 2);
  for (std::size_t i = 0; i < theta.size(); ++i) {
    const double t =
        std::pow(c.rope_theta, -2.0 * static_cast<double>(i) / static_cast<double>(c.head_dim));
    double scaled = t;
    if (s.kind == rope_scaling_kind::linear) {
      scaled = t / s.factor;
    } else if (s.kind == rope_scaling_kind::llama3) {
      const double wavelength = 2.0 * pi / t;
      if (wavelength > s.original_max_positions / s.low_freq_factor) {
        scaled = t / s.factor;
      } else if (wavelength >= s.original_max_positions / s.high_freq_factor) {
        const double smooth = (s.original_max_positions / wavelength - s.low_freq_factor) /
                              (s.high_freq_factor - s.low_freq_factor);
        scaled = (1.0 - smooth) * t / s.factor + smooth * t;
      }
    }
    theta[i] = scaled;
  }
  return theta;
}

}  // namespace attnviz
