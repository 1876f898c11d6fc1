// GGUF: the single-file model format of llama.cpp and Ollama (ggml's documentation, docs/gguf.md).
//
// Layout (little-endian):
//   "GGUF" | version u32 (2 or 3) | tensor count u64 | metadata count u64
//   metadata × count: key (string) | value type u32 | value
//   tensor info × count: name (string) | n_dims u32 | dims u64 × n_dims (dims[0] varies
//                        fastest) | ggml type u32 | offset u64 (from the data section)
//   padding to general.alignment (u32, default 32) | the data section
// A string is a u64 length and that many bytes (UTF-8, no terminator). Value types:
//   0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool, 8 string,
//   9 array (item type u32 | count u64 | items), 10 u64, 11 i64, 12 f64.
// Version 1 (u32 counts and lengths) is refused. Nothing is copied from the tensors' data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "params/ggml_types.h"

namespace attnviz {

enum class gguf_value_type : std::uint32_t {
  u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7, string = 8,
  array = 9, u64 = 10, i64 = 11, f64 = 12
};

// A metadata value: numbers, booleans and strings as JSON scalars, arrays as JSON arrays (an
// array's items all have item_type).
struct gguf_value {
  gguf_value_type type = gguf_value_type::u32;
  gguf_value_type item_type = gguf_value_type::u32;  // arrays
  nlohmann::json value;
};

struct gguf_tensor_info {
  std::string name;
  std::vector<std::uint64_t> dims;  // as stored: dims[0] is the row length
  ggml_type type = ggml_type::f32;
  std::uint64_t offset = 0;         // from the data section's start
  std::uint64_t bytes = 0;
  std::uint64_t count() const;
};

struct gguf_header {
  std::uint32_t version = 3;
  std::map<std::string, gguf_value> metadata;
  std::vector<gguf_tensor_info> tensors;  // in the file's order
  std::uint64_t alignment = 32;
  std::uint64_t data_start = 0;           // from the file's start
};

// Whether `bytes` starts with GGUF's magic.
bool is_gguf(const unsigned char* bytes, std::size_t size);

// The header of the `size` bytes at `bytes` (a mapped file). Throws input_error naming `source`
// and the byte offset for anything unreadable: a bad magic or version, a length or count past
// the end, an unknown value type, a repeated key or tensor name, more than 4 dimensions or a
// product of them that overflows, a row that is not whole blocks, a type attn-viz does not read
// (named), an offset that is not aligned or a tensor past the end of the file, two tensors
// overlapping.
gguf_header parse_gguf_header(const unsigned char* bytes, std::size_t size,
                              const std::string& source);

// ggml's name of a value type ("u32", "string", "array of string").
std::string gguf_type_name(const gguf_value& v);

// Typed reads of a header's metadata; a missing or mistyped key is an input_error naming the
// file and the key ("m.gguf: metadata 'llama.block_count': expected a whole number ≥ 1, got
// …").
class gguf_keys {
 public:
  gguf_keys(const gguf_header& h, std::string source) : h_(h), source_(std::move(source)) {}
  const std::string& source() const { return source_; }
  bool has(const std::string& key) const { return h_.metadata.count(key) != 0; }
  const gguf_value* find(const std::string& key) const;
  [[noreturn]] void fail(const std::string& key, const std::string& expected) const;
  // An unsigned or signed integer in [1, 2^32]
  std::uint64_t size(const std::string& key) const;
  std::uint64_t size_or(const std::string& key, std::uint64_t fallback) const;
  // An integer ≥ 0 (token ids)
  std::optional<std::uint64_t> index(const std::string& key) const;
  double number_or(const std::string& key, double fallback) const;  // any number type
  std::string text_or(const std::string& key, const std::string& fallback) const;
  bool flag_or(const std::string& key, bool fallback) const;
  // An array whose items have type t (and at least `at_least` of them)
  const nlohmann::json& array(const std::string& key, gguf_value_type t) const;

 private:
  const gguf_header& h_;
  std::string source_;
};

// The GGUF file `path` names: the file itself when it starts with GGUF's magic (Ollama's blobs
// have no extension), or the one *.gguf file of a folder that has no config.json. Empty when
// neither; an input_error naming them when the folder holds several.
std::string find_gguf(const std::string& path);

}  // namespace attnviz
