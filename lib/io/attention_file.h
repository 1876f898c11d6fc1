// Attention maps another tool wrote, in every format `attn-viz draw` reads, as one array:
//   .npy          one array (io/npy_read.h)
//   .npz          NumPy's zip of .npy files (numpy.savez, stored; savez_compressed, deflated)
//   .safetensors  F16, BF16, F32 or F64 tensors (params/safetensors.h)
//   .json         nested lists of numbers, or an object {"attentions": [...], "tokens": [...]}
//                 ("attention" also names the maps), e.g.
//                 json.dump({"attentions": [a.tolist() for a in out.attentions], ...})
// Which array, when a file holds several: `key` names it; else the only one; else every array
// of the file, all of one shape, stacked as layers in the natural order of their names (arr_0,
// arr_1, …, arr_10; layer.0, layer.1, …) — what numpy.savez("a.npz", *out.attentions) writes.
// A batch dimension of 1 is dropped: [layers, 1, heads, n, n] (Hugging Face's output_attentions
// stacked) becomes [layers, heads, n, n]; a larger batch is refused (pick one sequence).
// Errors are input_errors naming the file (and the array), with the byte offset for damaged
// zip data.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "io/npy_read.h"

namespace attnviz {

// The most dimensions a file's maps may have: [layers, batch 1, heads, queries, keys].
inline constexpr std::size_t attention_max_dims = 5;

struct attention_file {
  npy_array array;                  // C order, the batch of 1 dropped
  std::vector<std::size_t> stored;  // the shape as stored (stacked: [arrays] + each one's shape)
  std::vector<std::string> tokens;  // a JSON object's "tokens" (else empty)
  std::string what;                 // which array: "'attention'", "arr_0 … arr_11 stacked", ""
};

attention_file read_attention_file(const std::string& path, const std::string& key = "");
// The extension that picks the reader (".npy", ".npz", ".safetensors", ".json", lower case), or
// input_error naming the formats read.
std::string attention_file_ext(const std::string& path);
// The memory reading `bytes` (the whole file, already in memory) will take at its peak, from the
// headers alone: nothing is inflated past an .npz member's .npy header. .npz: the float arrays
// of every member plus the largest member inflated; .npy: the floats; .safetensors: up to twice
// the file (float16 becomes float32); .json: about ten times the text (the parsed document).
// A zip bomb declares its size in these headers, so it is refused before it is inflated.
std::uint64_t attention_file_memory(std::string_view bytes, const std::string& ext,
                                    const std::string& path);
// The same on bytes already read; `ext` is ".npy", ".npz", ".safetensors" or ".json".
attention_file parse_attention_file(const std::string& bytes, const std::string& ext,
                                    const std::string& key, const std::string& path);

// The members of a zip archive (.npz), name -> uncompressed bytes (stored or deflated entries).
std::vector<std::pair<std::string, std::string>> read_zip(std::string_view bytes,
                                                          const std::string& source);
// One member as the central directory describes it: stored (method 0) or deflated (8).
struct zip_member {
  std::string name;
  std::uint32_t method = 0;
  std::uint64_t data = 0;          // where its bytes start in the archive
  std::uint64_t csize = 0, usize = 0;  // compressed and declared uncompressed sizes
};
std::vector<zip_member> zip_members(std::string_view bytes, const std::string& source);
// The member's first `keep` bytes (all of it by default), inflated in chunks and never past its
// declared size; input_error when the data gives more or less than it declares.
std::string zip_member_bytes(std::string_view bytes, const zip_member& member,
                             const std::string& source,
                             std::uint64_t keep = std::numeric_limits<std::uint64_t>::max());

// Natural order of names: digit runs compare as numbers ("arr_2" < "arr_10").
bool natural_less(const std::string& a, const std::string& b);

}  // namespace attnviz
