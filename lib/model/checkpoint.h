// A model's weights, memory-mapped and never copied whole: each tensor is a view into its file
// (F32, F16 or BF16, little-endian); the forward pass converts a layer's matrices to float as it
// uses them. The files are read by a weight format (model/weight_format.h: one file per format,
// lib/model/formats/), which fills the checkpoint through add_file and add.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "io/mapped_file.h"

namespace attnviz {

enum class weight_dtype { f32, f16, bf16 };

struct weight_view {
  std::string name;
  weight_dtype dtype = weight_dtype::f32;
  std::vector<std::int64_t> shape;
  const unsigned char* data = nullptr;  // shape's product elements, little-endian
  const std::string* file = nullptr;    // the shard it lives in
  std::size_t count() const noexcept;
  // Elements [first, first + n) as float.
  void to_float(std::size_t first, std::size_t n, float* out) const;
  // The index of the first NaN or infinite element at or after `first` (count() when none),
  // read in chunks: only called once something computed from the tensor is not finite.
  std::size_t first_non_finite(std::size_t first = 0) const;
  // input_error naming the tensor, its file, the element `index` (as [i, j] by the shape) and
  // the value it holds.
  [[noreturn]] void refuse_non_finite(std::size_t index, float value) const;
  // Refuses the first non-finite of `n` floats converted from elements [first, first + n).
  void check_finite(const float* values, std::size_t first, std::size_t n) const;
};

std::string_view dtype_name(weight_dtype d);

class checkpoint {
 public:
  // The weights of the model folder `dir`, read by the first weight format that claims it
  // (model.safetensors, or the index and its shards). A folder with only pytorch_model.bin (a
  // pickle, never unpickled here) is refused with the conversion to run. input_error naming the
  // file for anything unreadable or inconsistent.
  static checkpoint open(const std::string& dir);

  // For the formats: keeps a mapping for the checkpoint's life (its address and path stay put)
  // and adds a tensor viewing it; a name already present is an input_error naming `file`.
  const mapped_file& add_file(mapped_file file);
  void add(weight_view view);
  void set_source(std::string source) { source_ = std::move(source); }

  const weight_view* find(const std::string& name) const;
  // The first of `names` the checkpoint holds, with exactly `shape`. Missing: an input_error
  // naming the first name and the file it was expected in; another shape or dtype: one naming
  // the tensor, its file and the shape expected.
  const weight_view& require(std::initializer_list<std::string> names,
                             const std::vector<std::int64_t>& shape) const;
  // Whether some tensor's name starts with `prefix`.
  bool has_prefix(const std::string& prefix) const;
  std::size_t size() const noexcept { return tensors_.size(); }
  // Bytes of all the mapped files.
  std::uint64_t mapped_bytes() const noexcept;
  // The weights file(s), for messages: "model.safetensors" or the index's name.
  const std::string& source() const noexcept { return source_; }

 private:
  std::deque<mapped_file> files_;  // a deque: adding never moves the mappings' paths
  std::map<std::string, weight_view> tensors_;
  std::string source_;
};

}  // namespace attnviz
