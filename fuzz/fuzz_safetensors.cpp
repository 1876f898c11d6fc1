// libFuzzer target: the safetensors reader on arbitrary bytes.
// Allowed outcome: tensors, or an input_error. Checked: what was read serialises and reads back
// to the same tensors (shapes and values).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "error.h"
#include "params/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto f =
        attnviz::parse_safetensors(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    std::vector<std::pair<std::string, attnviz::tensor_data>> list(f.tensors.begin(),
                                                                   f.tensors.end());
    const auto back =
        attnviz::parse_safetensors(attnviz::serialize_safetensors(list, f.metadata), "again");
    if (back.tensors.size() != f.tensors.size()) std::abort();
    for (const auto& [name, t] : f.tensors) {
      const auto& u = back.tensors.at(name);
      if (u.shape != t.shape || u.values != t.values) std::abort();
    }
  } catch (const attnviz::input_error&) {
  }
  return 0;
}
