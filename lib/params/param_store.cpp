#include "params/param_store.h"

#include <fmt/format.h>

#include <cmath>

#include "error.h"
#include "params/checkpoint_layer.h"
#include "params/rng.h"

namespace attnviz {

std::vector<float> xavier_uniform(std::uint64_t seed, const std::string& name,
                                  const std::vector<std::int64_t>& shape) {
  std::int64_t count = 1;
  for (auto d : shape) count *= d;
  const double fan_out = shape.size() >= 2 ? static_cast<double>(shape[0]) : 1.0;
  const double fan_in = shape.empty() ? 1.0 : static_cast<double>(shape.back());
  const double a = std::sqrt(6.0 / (fan_in + fan_out));
  splitmix64 rng(seed, name);
  std::vector<float> v(static_cast<std::size_t>(count));
  for (auto& x : v) x = static_cast<float>(rng.uniform(a));
  return v;
}

param_store param_store::seeded(std::uint64_t seed) {
  param_store s;
  s.seed_ = seed;
  s.source_ = fmt::format("--seed {}", seed);
  return s;
}

param_store param_store::from_file(const std::string& path) {
  return from_tensors(read_safetensors(path), path);
}

param_store param_store::open(const std::string& path, std::uint64_t seed,
                              const std::string& layer_prefix) {
  if (path.empty()) {
    if (!layer_prefix.empty()) throw usage_error(fmt::format("{} needs {} FILE", param("params_prefix"), param("params")));
    return seeded(seed);
  }
  if (layer_prefix.empty()) return from_file(path);
  checkpoint_layer layer = select_attention_layer(read_safetensors(path), layer_prefix, path);
  return from_tensors(std::move(layer.tensors),
                      fmt::format("{} ({} layer {})", path, layer.scheme, layer_prefix));
}

param_store param_store::from_tensors(safetensors_file tensors, std::string source) {
  param_store s;
  s.loaded_ = std::move(tensors);
  s.source_ = std::move(source);
  return s;
}

bool param_store::file_has(const std::string& name) const {
  return loaded_ && loaded_->tensors.count(prefix_ + name) != 0;
}

const tensor_data* param_store::find_used(const std::string& name) const {
  for (const auto& [n, t] : used_)
    if (n == name) return &t;
  return nullptr;
}

const tensor_data& param_store::record(const std::string& name, tensor_data t) {
  used_.emplace_back(name, std::move(t));
  return used_.back().second;
}

const tensor_data& param_store::require(const std::string& name,
                                        const std::vector<std::int64_t>& shape, param_init init) {
  return require_full(prefix_ + name, shape, init);
}

const tensor_data& param_store::require_full(const std::string& name,
                                             const std::vector<std::int64_t>& shape,
                                             param_init init) {
  if (const auto* t = find_used(name)) {
    if (t->shape != shape)
      throw std::logic_error(fmt::format("parameter {} asked for with two shapes", name));
    return *t;
  }
  if (loaded_) {
    auto it = loaded_->tensors.find(name);
    if (it == loaded_->tensors.end())
      throw input_error(source_, fmt::format("missing tensor '{}' (expected shape {})", name,
                                             shape_string(shape)));
    if (it->second.shape != shape)
      throw input_error(source_, fmt::format("tensor '{}' has shape {}, expected {}", name,
                                             shape_string(it->second.shape), shape_string(shape)));
    return record(name, it->second);
  }
  tensor_data t;
  t.shape = shape;
  if (init == param_init::zeros || init == param_init::ones) {
    std::int64_t count = 1;
    for (auto d : shape) count *= d;
    t.values.assign(static_cast<std::size_t>(count), init == param_init::ones ? 1.0f : 0.0f);
  } else {
    t.values = xavier_uniform(seed_, name, shape);
  }
  return record(name, std::move(t));
}

matrix param_store::require_matrix(const std::string& name, std::size_t rows, std::size_t cols,
                                   param_init init) {
  const float* values = require_matrix_data(name, rows, cols, init);
  return matrix(rows, cols, std::vector<float>(values, values + rows * cols));
}

const float* param_store::require_matrix_data(const std::string& name, std::size_t rows,
                                              std::size_t cols, param_init init) {
  return require(name, {static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)}, init)
      .values.data();
}

std::vector<float> param_store::require_vector(const std::string& name, std::size_t n,
                                               param_init init) {
  return require(name, {static_cast<std::int64_t>(n)}, init).values;
}

std::optional<std::vector<float>> param_store::optional_vector(const std::string& name,
                                                               std::size_t n) {
  if (!file_has(name)) return std::nullopt;
  return require_vector(name, n, param_init::zeros);
}

const tensor_data& param_store::require_rows_at_least(const std::string& short_name,
                                                      std::size_t min_rows, std::size_t cols,
                                                      std::size_t seeded_rows) {
  const std::string name = prefix_ + short_name;
  if (const auto* t = find_used(name)) return *t;
  if (loaded_) {
    auto it = loaded_->tensors.find(name);
    if (it == loaded_->tensors.end())
      throw input_error(source_, fmt::format("missing tensor '{}' (expected shape [n_max >= {}, "
                                             "{}])",
                                             name, min_rows, cols));
    const auto& s = it->second.shape;
    if (s.size() != 2 || s[1] != static_cast<std::int64_t>(cols) ||
        s[0] < static_cast<std::int64_t>(min_rows))
      throw input_error(source_, fmt::format("tensor '{}' has shape {}, expected [n_max >= {}, "
                                             "{}]",
                                             name, shape_string(s), min_rows, cols));
    return record(name, it->second);
  }
  return require_full(name,
                      {static_cast<std::int64_t>(seeded_rows), static_cast<std::int64_t>(cols)},
                      param_init::xavier_uniform);
}

std::vector<std::string> param_store::unused_file_tensors() const {
  std::vector<std::string> out;
  if (!loaded_) return out;
  for (const auto& [name, t] : loaded_->tensors)
    if (!find_used(name)) out.push_back(name);
  return out;
}

std::string param_store::serialize_used() const {
  std::map<std::string, std::string> meta{{"producer", "attn-viz"}};
  if (loaded_)
    meta["source"] = source_;
  else {
    meta["seed"] = std::to_string(seed_);
    meta["init"] = "xavier_uniform (biases zero)";
  }
  return serialize_safetensors({used_.begin(), used_.end()}, meta);
}

}  // namespace attnviz
