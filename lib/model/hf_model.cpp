#include "model/hf_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "error.h"
#include "model/family.h"
#include "params/gguf.h"

namespace attnviz {

const weight_view* binder::need(const std::string& name, const shape& s) const {
  return &c_.require({prefix_ + name}, s);
}

const weight_view* binder::need_ln(const std::string& base, const char* which,
                                   const shape& s) const {
  const bool weight = std::string(which) == "weight";
  return &c_.require({prefix_ + base + "." + which, prefix_ + base + (weight ? ".gamma" : ".beta")},
                     s);
}

const weight_view* binder::maybe(const std::string& name, const shape& s) const {
  return c_.find(prefix_ + name) ? need(name, s) : nullptr;
}

const weight_view* binder::maybe_top(const std::string& name, const shape& s) const {
  return c_.find(name) ? &c_.require({name}, s) : nullptr;
}

namespace {

// What a GGUF file's storage means for the forward (checkpoint.h's storage_notes).
void apply_notes(const storage_notes& n, const std::string& file, model_config& c) {
  if (n.rope_rows_interleaved) c.rope_layout = rope_pairs::interleaved;
  if (n.norm_offset_folded) c.norm_weight_offset = 0.0f;
  if (n.qkv_blocks) c.fused_qkv = qkv_order::blocks;
  if (!n.rope_divisors.empty()) {
    const std::size_t r = c.rotary_dims ? c.rotary_dims : c.head_dim;
    if (n.rope_divisors.size() != r / 2)
      throw input_error(file, fmt::format("tensor 'rope_freqs.weight' has {} divisors, expected "
                                          "{} (one per rotary frequency)",
                                          n.rope_divisors.size(), r / 2));
    c.rope_scaling = rope_scaling_config{};
    c.rope_scaling.kind = rope_scaling_kind::divisors;
    c.rope_scaling.divisors = n.rope_divisors;
  }
}

hf_model load_single_file(const std::string& path, const std::string& file) {
  hf_model m;
  m.dir = path;
  m.weights = checkpoint::open(path);
  m.config = model_config_of(*m.weights.embedded_config(), file);
  apply_notes(m.weights.notes(), file, m.config);
  m.config.family->bind(m);
  return m;
}

// What a file given as --model that is not GGUF holds, by its first bytes.
[[noreturn]] void refuse_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char head[9] = {};  // 8 shown; a safetensors header's length, then its '{'
  in.read(reinterpret_cast<char*>(head), sizeof head);
  const auto got = static_cast<std::size_t>(in.gcount()), n = std::min<std::size_t>(got, 8);
  std::string hex, shown;
  for (std::size_t i = 0; i < n; ++i) {
    hex += fmt::format("{}{:02x}", i ? " " : "", head[i]);
    shown += head[i] >= 0x20 && head[i] < 0x7f ? static_cast<char>(head[i]) : '.';
  }
  std::string seen = n == 0 ? "it is empty"
                            : fmt::format("it starts with {} ('{}')", hex, shown);
  std::uint64_t header = 0;
  for (std::size_t i = 0; i < 8; ++i) header |= std::uint64_t{head[i]} << (8 * i);
  if (got == 9 && head[8] == '{' && header > 1 && header < (std::uint64_t{100} << 20))
    seen += ", as a .safetensors file does: give the folder that holds it and its config.json";
  throw input_error(path, fmt::format("is not a GGUF file, which starts with 'GGUF': {}. --model "
                                      "takes a Hugging Face model folder (config.json and "
                                      "model.safetensors) or a GGUF file",
                                      seen));
}

}  // namespace

hf_model load_model(const std::string& dir) {
  if (const std::string file = find_gguf(dir); !file.empty()) return load_single_file(dir, file);
  hf_model m;
  m.dir = dir;
  const std::string config = (std::filesystem::path(dir) / "config.json").string();
  std::error_code ec;
  if (std::filesystem::is_regular_file(dir, ec)) refuse_model_file(dir);
  if (!std::filesystem::is_directory(dir, ec))
    throw input_error(dir, "is not a folder (expected a Hugging Face model folder with "
                           "config.json and model.safetensors)");
  if (!std::filesystem::exists(config, ec))
    throw input_error(dir, "has no config.json (expected a Hugging Face model folder)");
  m.config = read_model_config(config);
  m.weights = checkpoint::open(dir);
  m.config.family->bind(m);
  return m;
}

const weight_view* output_embeddings(const hf_model& m, const std::string& name,
                                     const binder::shape& s) {
  if (m.config.tie_embeddings && !m.weights.find(name)) return m.tokens;
  return &m.weights.require({name}, s);
}

}  // namespace attnviz
