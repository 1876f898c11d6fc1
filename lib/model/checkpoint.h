// A model's weights, memory-mapped and never copied whole: each tensor is a view into its file
// (F32, F16, BF16 or one of ggml's quantized block types, little-endian: params/ggml_types.h);
// the forward pass converts a layer's matrices to float as it uses them. The files are read by a weight format (model/weight_format.h: one file per format,
// lib/model/formats/), which fills the checkpoint through add_file and add.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "io/mapped_file.h"
#include "params/ggml_types.h"

namespace attnviz {

// A tensor's element type: ggml's list, which holds safetensors' F32, F16 and BF16 too.
using weight_dtype = ggml_type;

struct weight_view {
  std::string name;
  weight_dtype dtype = weight_dtype::f32;
  std::vector<std::int64_t> shape;
  const unsigned char* data = nullptr;  // shape's product elements, little-endian (quantized:
                                        // whole blocks along the last dimension)
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

// How a self-contained weights file (GGUF) stores what Hugging Face's files store otherwise; the
// model's loader turns these into its config.
struct storage_notes {
  // Each query and key head's rows reordered so that rotary pairs are (2i, 2i + 1) (llama.cpp's
  // converter for Llama-family RoPE): RoPE is applied interleaved, which gives the same scores.
  bool rope_rows_interleaved = false;
  // RMSNorm weights stored with Gemma's + 1 already added.
  bool norm_offset_folded = false;
  // Dense weights stored [out, in] where the family's own files store [in, out] (GPT-2).
  bool dense_out_in = false;
  // A fused q/k/v projection stored q | k | v where the family's files group it per key/value
  // head (GPT-NeoX, Falcon).
  bool qkv_blocks = false;
  // Written for a runner that computes in float whatever the weights' type (llama.cpp): no
  // constant is rounded to the weights' 16-bit type (Gemma's √d).
  bool float_activations = false;
  // Per-frequency divisors of the rotary frequencies (llama.cpp's rope_freqs: Llama 3.1's
  // scaling as numbers), empty when none.
  std::vector<double> rope_divisors;
};

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
  // The same under `key` (the family's name for it; the view keeps the file's name).
  void add_as(const std::string& key, weight_view view);
  void set_source(std::string source) { source_ = std::move(source); }
  // A self-contained file's description of the model in config.json's terms, and how it stores
  // the weights (GGUF): the loader reads these instead of config.json.
  void set_embedded_config(nlohmann::json config, storage_notes notes);
  // For messages: the name a tensor has (or would have) in its file, when the format renames
  // tensors to the family's names.
  void set_stored_names(std::function<std::string(const std::string&)> name_in_file);

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
  // Every F16 and BF16 tensor converted to F32 once, the copies held here and the views made
  // F32 over them (the conversion is exact, so every product gives the same bytes), when the
  // copies total at most `max_bytes`; else nothing changes. For a job that runs the same
  // weights many times over short inputs (align: a forward a sentence pair), where converting
  // each panel at every product costs more than the products. Returns the bytes added.
  std::uint64_t widen_to_float(std::uint64_t max_bytes);
  // The weights file(s), for messages: "model.safetensors" or the index's name.
  const std::string& source() const noexcept { return source_; }
  const nlohmann::json* embedded_config() const noexcept { return embedded_config_.get(); }
  const storage_notes& notes() const noexcept { return notes_; }
  std::string stored_name(const std::string& name) const;

 private:
  std::deque<mapped_file> files_;  // a deque: adding never moves the mappings' paths
  std::map<std::string, weight_view> tensors_;
  std::deque<std::vector<float>> widened_;  // widen_to_float's copies (a deque: none moves)
  std::string source_;
  std::shared_ptr<const nlohmann::json> embedded_config_;
  storage_notes notes_;
  std::function<std::string(const std::string&)> stored_names_;
};

}  // namespace attnviz
