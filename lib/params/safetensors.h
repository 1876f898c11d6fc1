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

// Throws input_error naming `path`, the tensor and what was wrong.
safetensors_file read_safetensors(const std::string& path);
safetensors_file parse_safetensors(const std::string& bytes, const std::string& source);

// Serialises tensors as F32 in the order given; the header is padded with spaces to a
// multiple of 8 bytes. Same tensors and metadata => same bytes.
std::string serialize_safetensors(const std::vector<std::pair<std::string, tensor_data>>& tensors,
                                  const std::map<std::string, std::string>& metadata = {});

std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace attnviz
