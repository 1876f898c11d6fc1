// ggml's tensor element types, as GGUF files store them (little-endian), and their
// dequantization to float. A quantized row is a sequence of blocks of `block` elements, each
// `block_bytes` long; every row holds whole blocks. f16 below is an IEEE half.
//
//   type  id  block bytes  layout of one block                     element x
//   F32    0      1     4
//   F16    1      1     2
//   BF16  30      1     2
//   Q4_0   2     32    18  d f16 | qs[16]                          (q − 8)·d, q = qs[j] & 15
//                                                                  for j < 16, qs[j−16] >> 4 after
//   Q4_1   3     32    20  d, m f16 | qs[16]                       q·d + m
//   Q5_0   6     32    22  d f16 | qh u32 | qs[16]                 (q − 16)·d, q = nibble as Q4_0
//                                                                  | (bit j of qh) << 4
//   Q5_1   7     32    24  d, m f16 | qh u32 | qs[16]              q·d + m
//   Q8_0   8     32    34  d f16 | qs int8[32]                     q·d
//   Q2_K  10    256    84  scales[16] | qs[64] | d, dmin f16       per 16: (d·(s & 15))·q −
//                                                                  dmin·(s >> 4), q 2 bits
//   Q3_K  11    256   110  hmask[32] | qs[64] | scales[12] | d     per 16: (d·(s − 32))·q, q 2 bits
//                                                                  − (hmask bit clear ? 4 : 0),
//                                                                  s 6 bits
//   Q4_K  12    256   144  d, dmin f16 | scales[12] | qs[128]      per 32: (d·s)·q − dmin·m, s, m
//                                                                  6 bits, q 4 bits
//   Q5_K  13    256   176  d, dmin | scales[12] | qh[32] | qs[128] as Q4_K with a 5th bit from qh
//   Q6_K  14    256   210  ql[128] | qh[64] | scales int8[16] | d  per 16: (d·s)·(q − 32), q 6 bits
//
// Where the 2-, 4- and 6-bit pieces of each element sit is spelled out above each decoder in
// ggml_types.cpp. Every product and sum is rounded to float in the order written (no fused
// multiply-add), so a dequantization is reproducible bit for bit, e.g. in NumPy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnviz {

enum class ggml_type : std::uint32_t {
  f32 = 0, f16 = 1, q4_0 = 2, q4_1 = 3, q5_0 = 6, q5_1 = 7, q8_0 = 8, q2_k = 10, q3_k = 11,
  q4_k = 12, q5_k = 13, q6_k = 14, bf16 = 30
};

struct ggml_type_info {
  ggml_type type;
  std::string_view name;  // "Q4_K"
  std::size_t block, block_bytes;
};

// The type with ggml id `id`, if attn-viz reads it.
std::optional<ggml_type_info> ggml_type_of(std::uint32_t id);
const ggml_type_info& ggml_info(ggml_type t);
// ggml's name for any id it defines ("IQ2_XXS", "Q8_K", …), or "type N" for an unknown one.
std::string ggml_type_name(std::uint32_t id);
// "F32, F16, BF16, Q8_0, …": the types attn-viz reads, for messages.
std::string ggml_supported_types();

// Elements [first, first + count) of a tensor of type t whose data starts at `data` (any
// alignment), as floats. first and count need not fall on block boundaries.
void ggml_to_float(ggml_type t, const unsigned char* data, std::size_t first, std::size_t count,
                   float* out);

}  // namespace attnviz
