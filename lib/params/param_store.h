// Every learned parameter a run uses, by name: loaded from a safetensors file (--params) or
// initialised from the seed (--seed). The store records what was used, in order of first use,
// so --params-out writes exactly the tensors behind a figure.
//
// Seeded initialisation (documented in README):
//   xavier_uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out)) with fan_out, fan_in the two
//                   dimensions of a [out, in] matrix (a vector of length n counts as [1, n]);
//                   values drawn row-major from splitmix64(seed XOR fnv1a64(name)).
//   zeros:          all 0 (biases).
// So each tensor depends only on (seed, name, shape).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "params/safetensors.h"
#include "tensor.h"

namespace attnviz {

enum class param_init { xavier_uniform, zeros, ones };

class param_store {
 public:
  static param_store seeded(std::uint64_t seed);
  static param_store from_file(const std::string& path);
  // from_file(path), or seeded(seed) when path is empty (--params / --seed). With a
  // layer_prefix, only the attention layer under it, renamed (--params-prefix; see
  // params/checkpoint_layer.h); a prefix without a path is a usage_error.
  static param_store open(const std::string& path, std::uint64_t seed,
                          const std::string& layer_prefix = "");
  // Parameters already in memory (as if read from a file named `source`).
  static param_store from_tensors(safetensors_file tensors, std::string source);

  // The tensor `name` with exactly `shape`. From a file: a missing tensor or a different
  // shape is an input_error naming the tensor and the shape expected. Seeded: initialised.
  const tensor_data& require(const std::string& name, const std::vector<std::int64_t>& shape,
                             param_init init);
  matrix require_matrix(const std::string& name, std::size_t rows, std::size_t cols,
                        param_init init = param_init::xavier_uniform);
  // The same rows × cols values (row-major) without the copy: where the store keeps them, valid
  // as long as the store (for the weights a product packs straight from the store).
  const float* require_matrix_data(const std::string& name, std::size_t rows, std::size_t cols,
                                   param_init init = param_init::xavier_uniform);
  std::vector<float> require_vector(const std::string& name, std::size_t n,
                                    param_init init = param_init::xavier_uniform);

  // A tensor the file may or may not hold (e.g. a bias): its values when the file has it
  // (shape checked), nothing when it does not or when the store is seeded.
  std::optional<std::vector<float>> optional_vector(const std::string& name, std::size_t n);

  // Like require, but only the leading dimension is free: rows >= min_rows (location W).
  const tensor_data& require_rows_at_least(const std::string& name, std::size_t min_rows,
                                           std::size_t cols, std::size_t seeded_rows);

  // Names asked for are prefixed with the current scope ("heads.2.", "decoder.self_attn.");
  // see param_scope. The recorded and file names are the full ones.
  const std::string& prefix() const noexcept { return prefix_; }

  bool from_file() const noexcept { return loaded_.has_value(); }
  bool file_has(const std::string& name) const;  // name within the current scope
  const std::string& source() const noexcept { return source_; }
  std::uint64_t seed() const noexcept { return seed_; }

  // Tensors used so far, in order of first use.
  const std::deque<std::pair<std::string, tensor_data>>& used() const noexcept { return used_; }
  // Names in the file that the run never asked for (reported as a warning).
  std::vector<std::string> unused_file_tensors() const;

  // --params-out bytes: every used tensor plus metadata saying where they came from.
  std::string serialize_used() const;

 private:
  friend class param_scope;
  param_store() = default;
  // The implementations take full (prefixed) names.
  const tensor_data& require_full(const std::string& name, const std::vector<std::int64_t>& shape,
                                  param_init init);
  const tensor_data& record(const std::string& name, tensor_data t);
  const tensor_data* find_used(const std::string& name) const;

  std::uint64_t seed_ = 0;
  std::string source_;
  std::string prefix_;
  std::optional<safetensors_file> loaded_;
  // A deque: references returned by require() stay valid as more tensors are added.
  std::deque<std::pair<std::string, tensor_data>> used_;
};

// While alive, every name asked of `store` is prefixed with `prefix` (appended to any outer
// scope): a multi-head run asks head 2's score parameters as "heads.2.score.W".
class param_scope {
 public:
  param_scope(param_store& store, const std::string& prefix)
      : store_(store), saved_(store.prefix_) {
    store_.prefix_ += prefix;
  }
  ~param_scope() { store_.prefix_ = saved_; }
  param_scope(const param_scope&) = delete;
  param_scope& operator=(const param_scope&) = delete;

 private:
  param_store& store_;
  std::string saved_;
};

// Xavier-uniform values for `shape` from (seed, name); exposed for tests.
std::vector<float> xavier_uniform(std::uint64_t seed, const std::string& name,
                                  const std::vector<std::int64_t>& shape);

}  // namespace attnviz
