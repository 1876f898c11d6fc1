// libFuzzer target: the reader of attention maps from other tools (.npy, .npz, .safetensors,
// .json) on arbitrary bytes; the first byte picks the format (and whether a key is asked for).
// The memory estimate from the headers runs first, as draw runs it, and files past 256 MiB stop
// there. Allowed outcome: an array, or an input_error / usage_error. Checked: the values fill
// the shape.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "error.h"
#include "io/attention_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const formats[] = {".npy", ".npz", ".safetensors", ".json"};
  const std::string ext = formats[data[0] % 4];
  const std::string key = (data[0] & 4) ? "arr_0" : "";
  try {
    const std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    // what draw does first: the memory from the headers alone, refused past a limit
    if (attnviz::attention_file_memory(bytes, ext, "fuzz") > (256u << 20)) return 0;
    const auto f = attnviz::parse_attention_file(bytes, ext, key, "fuzz");
    std::size_t count = 1;
    for (const std::size_t d : f.array.shape) count *= d;
    if (count != f.array.values.size()) std::abort();
  } catch (const attnviz::input_error&) {
  } catch (const attnviz::usage_error&) {
  }
  return 0;
}
