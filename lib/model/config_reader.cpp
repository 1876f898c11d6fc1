#include "model/config_reader.h"

#include <fmt/format.h>

#include "error.h"

namespace attnviz {

using json = nlohmann::json;

void config_reader::fail(std::string_view key, std::string_view expected) const {
  throw input_error(path_, fmt::format("key '{}': expected {}", key, expected));
}

bool config_reader::has(std::string_view key) const {
  const auto it = j_.find(std::string(key));
  return it != j_.end() && !it->is_null();
}

std::size_t config_reader::size(std::string_view key) const {
  if (!has(key)) fail(key, "a positive whole number (the key is missing)");
  const json& v = j_.at(std::string(key));
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0 ||
      v.get<std::uint64_t>() > (std::uint64_t{1} << 32))
    fail(key, fmt::format("a positive whole number, got {}", v.dump()));
  return static_cast<std::size_t>(v.get<std::uint64_t>());
}

std::size_t config_reader::size_or(std::string_view key, std::size_t fallback) const {
  return has(key) ? size(key) : fallback;
}

std::size_t config_reader::index_or(std::string_view key, std::size_t fallback) const {
  if (!has(key)) return fallback;
  const json& v = j_.at(std::string(key));
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > (std::uint64_t{1} << 32))
    fail(key, fmt::format("a whole number ≥ 0, got {}", v.dump()));
  return static_cast<std::size_t>(v.get<std::uint64_t>());
}

double config_reader::number_or(std::string_view key, double fallback) const {
  if (!has(key)) return fallback;
  const json& v = j_.at(std::string(key));
  if (!v.is_number() || !(v.get<double>() > 0.0))
    fail(key, fmt::format("a positive number, got {}", v.dump()));
  return v.get<double>();
}

std::string config_reader::text_or(std::string_view key, std::string fallback) const {
  if (!has(key)) return fallback;
  const json& v = j_.at(std::string(key));
  if (!v.is_string()) fail(key, fmt::format("a string, got {}", v.dump()));
  return v.get<std::string>();
}

bool config_reader::flag_or(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const json& v = j_.at(std::string(key));
  if (!v.is_boolean()) fail(key, fmt::format("true or false, got {}", v.dump()));
  return v.get<bool>();
}

void config_reader::require_text(std::string_view key, std::string_view fallback,
                                 std::string_view wanted, std::string_view meaning) const {
  const std::string value = text_or(key, std::string(fallback));
  if (value != wanted) fail(key, fmt::format("'{}' ({}), got '{}'", wanted, meaning, value));
}

void config_reader::require_flag(std::string_view key, bool fallback, bool wanted,
                                 std::string_view meaning) const {
  if (flag_or(key, fallback) != wanted)
    fail(key, fmt::format("{} ({}), got {}", wanted, meaning, !wanted));
}

std::size_t rotary_dims_of(const config_reader& r, std::string_view key, double fallback,
                           std::size_t head_dim) {
  const double share = r.number_or(key, fallback);
  const auto dims = static_cast<std::size_t>(static_cast<double>(head_dim) * share);
  if (share > 1.0 || dims == 0 || dims % 2 != 0)
    r.fail(key, fmt::format("a share of the {}-dimension heads giving an even number of rotated "
                            "dimensions, got {}",
                            head_dim, share));
  return dims;
}

mlp_activation activation_of(const config_reader& r, std::string_view key, const std::string& name) {
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
    return mlp_activation::gelu_tanh;
  if (name == "gelu") return mlp_activation::gelu_erf;
  if (name == "relu") return mlp_activation::relu;
  if (name == "silu" || name == "swish") return mlp_activation::silu;
  r.fail(key, fmt::format("gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu, silu or swish "
                          "(attn-viz runs these), got '{}'",
                          name));
}

rope_scaling_config read_rope_scaling(const config_reader& top) {
  const json& j = top.object().at("rope_scaling");
  const std::string& path = top.path();
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

}  // namespace attnviz
