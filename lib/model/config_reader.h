// config.json's keys read with messages that name the file and the key ("c.json: key 'n_embd':
// expected a positive whole number, got -3"), shared by every family's config reading.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "model/hf_config.h"

namespace attnviz {

class config_reader {
 public:
  config_reader(const nlohmann::json& j, const std::string& path) : j_(j), path_(path) {}

  const std::string& path() const { return path_; }
  const nlohmann::json& object() const { return j_; }
  [[noreturn]] void fail(std::string_view key, std::string_view expected) const;
  bool has(std::string_view key) const;
  // A whole number in [1, 2^32].
  std::size_t size(std::string_view key) const;
  std::size_t size_or(std::string_view key, std::size_t fallback) const;
  // A whole number ≥ 0 (token ids).
  std::size_t index_or(std::string_view key, std::size_t fallback) const;
  double number_or(std::string_view key, double fallback) const;  // positive
  std::string text_or(std::string_view key, std::string fallback) const;
  bool flag_or(std::string_view key, bool fallback) const;
  // Refuses `key` unless its value (or `fallback` when absent) is `wanted`: a switch attn-viz
  // runs one way only; `meaning` says what that way is.
  void require_text(std::string_view key, std::string_view fallback, std::string_view wanted,
                    std::string_view meaning) const;
  void require_flag(std::string_view key, bool fallback, bool wanted,
                    std::string_view meaning) const;

 private:
  const nlohmann::json& j_;
  const std::string& path_;
};

// The MLP activations by their Hugging Face names (gelu; gelu_new, gelu_pytorch_tanh and
// gelu_fast, the tanh form; relu; silu and swish), else refused naming `key` and what attn-viz
// runs.
mlp_activation activation_of(const config_reader& r, std::string_view key, const std::string& name);

// The rotated dimensions of a head of head_dim: ⌊head_dim · share⌋ for the share `key` gives
// (`fallback` when absent), refused naming the key unless it is even and above 0.
std::size_t rotary_dims_of(const config_reader& r, std::string_view key, double fallback,
                           std::size_t head_dim);

// rope_scaling: {"rope_type" (or "type"): "default" | "linear" | "llama3", "factor", …}.
rope_scaling_config read_rope_scaling(const config_reader& r);

}  // namespace attnviz
