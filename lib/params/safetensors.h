// safetensors: the weights format PyTorch and Hugging Face save.
//
// Layout: u64 little-endian header length N | N bytes of JSON header | raw data.
// Header: {"<name>": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
//          "__metadata__": {"key": "value"}}; offsets are relative to the end of the header.
// Reading converts F32, F64, F16 and BF16 to float; other dtypes are refused by name.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace attnviz {

struct tensor_data {
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

struct safetensors_file {
  std::map<std::string, tensor_data> tensors;
  std::map<std::string, std::string> metadata;
};

// One tensor's entry in the header, checked against the data section: dtype (F32, F64, F16 or
// BF16), shape, element count and its bytes [begin, end) relative to the data's start.
struct safetensors_entry {
  std::string name, dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t count = 0, begin = 0, end = 0;
};
struct safetensors_header {
  std::vector<safetensors_entry> entries;  // in the header's order
  std::map<std::string, std::string> metadata;
  std::uint64_t data_start = 0;  // 8 + the header's length
};
// The header of the `size` bytes at `bytes` (a mapped file: nothing is copied or decoded).
// Throws input_error naming `source`, the tensor and what was wrong: an unsupported dtype, a
// shape that does not match its byte range, a range outside the data, two ranges overlapping.
safetensors_header parse_safetensors_header(const unsigned char* bytes, std::size_t size,
                                            const std::string& source);

// Throws input_error naming `path`, the tensor and what was wrong.
safetensors_file read_safetensors(const std::string& path);
safetensors_file parse_safetensors(const std::string& bytes, const std::string& source);

// Serialises tensors as F32 in the order given; the header is padded with spaces to a
// multiple of 8 bytes. Same tensors and metadata => same bytes.
std::string serialize_safetensors(const std::vector<std::pair<std::string, tensor_data>>& tensors,
                                  const std::map<std::string, std::string>& metadata = {});

std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace attnviz
