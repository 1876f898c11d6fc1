// The byte layouts of the ggml blocks that the kernels multiply as they decode them (Q8_0, Q4_0,
// Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K) and Q4_K / Q5_K's packing of 6-bit scales and
// mins. One description read by both readers of these bytes: params/ggml_blocks.inc, which decodes
// blocks into floats, and kernels/gemm.inc, which forms each weight in a register (they must agree
// to the bit: a model's numbers may not depend on which of the two ran). Offsets are bytes from a
// block's start; every f16 is little-endian IEEE half.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace attnviz::ggml_layout {

// GCC vectors the helpers below form values and scales in (byte operations with fixed shifts).
using bytes16 = unsigned char __attribute__((vector_size(16)));
using bytes32 = unsigned char __attribute__((vector_size(32)));
using ints8 = std::int32_t __attribute__((vector_size(32)));
using floats8 = float __attribute__((vector_size(32)));

// Q8_0: d (f16) | qs[32] (int8); element j = qs[j] · d.
struct q8_0 {
  static constexpr std::size_t block = 32, bytes = 34, d = 0, qs = 2;
};

// Q4_0, Q4_1, Q5_0, Q5_1: blocks of 32, d (f16), then Q4_1 / Q5_1's m (f16), Q5_0 / Q5_1's qh
// (a little-endian u32: bit j is element j's fifth bit), then qs[16]: element j < 16 is the low
// nibble of qs[j], element j + 16 its high nibble. Q4_0: (v − 8) · d; Q5_0: (v − 16) · d; Q4_1,
// Q5_1: v · d + m (v · d exact in a float: 5 + 11 significant bits, so fused or not it rounds
// once). Five: qh is there; Min: m is (else `offset` is subtracted from v).
template <bool Five, bool Min>
struct legacy {
  static constexpr bool five = Five, with_min = Min;
  static constexpr std::size_t block = 32, d = 0, m = 2, qh = Min ? 4 : 2, qs = qh + (Five ? 4 : 0),
                               bytes = qs + 16;
  static constexpr int offset = Min ? 0 : Five ? 16 : 8;
};
using q4_0 = legacy<false, false>;
using q4_1 = legacy<false, true>;
using q5_0 = legacy<true, false>;
using q5_1 = legacy<true, true>;
static_assert(q4_0::bytes == 18 && q4_1::bytes == 20 && q5_0::bytes == 22 && q5_1::bytes == 24,
              "ggml's block sizes");

// Q2_K: scales[16]: group g's scale (low nibble) and min (high nibble) | qs[64] | d, dmin (f16).
// Two halves of `half` = 128 elements, half h's bits in qs[32) at qs + h · half_qs: its element
// 32r + i (r < 4, i < 32) is v = bits 2r, 2r + 1 of that qs[i], in group e/16 = 8h + 2r + i/16
// of 16: element = (d · scale) · v − dmin · min (q2_k_group_scales).
struct q2_k {
  static constexpr std::size_t block = 256, bytes = 84, group = 16, scales = 0, qs = 16, d = 80,
                               dmin = 82, half = 128, half_qs = 32;
};

// Q3_K: hmask[32] | qs[64] | scales[12]: 16 six-bit scales (q3_k_scale) | d (f16). Element
// 32r + i of half h: v as Q2_K's, q = v − 4 unless bit 4h + r of hmask[i] is set; element =
// (d · scale_{e/16}) · q (q3_k_group_scales).
struct q3_k {
  static constexpr std::size_t block = 256, bytes = 110, group = 16, hmask = 0, qs = 32,
                               scales = 96, d = 108, half = 128, half_qs = 32;
};

// Q3_K's scale of group g < 16 from its 12 scale bytes s: the low 4 bits in nibble g/8 of
// s[g mod 8], the high 2 at bit 2 (g/4) of s[8 + g mod 4]; stored + 32.
inline int q3_k_scale(const unsigned char* s, int g) {
  const int low = (s[g % 8] >> (4 * (g / 8))) & 15;
  const int high = (s[8 + g % 4] >> (2 * (g / 4))) & 3;
  return (low | high << 4) - 32;
}

// Bytes 8H .. 8H + 7 of v as eight 32-bit ints (zero-extended) by one constant byte shuffle: GCC
// 12 converts a byte vector to ints or floats one lane at a time (scalar extractions and
// inserts), and 16 lanes at once, past the AVX2 registers' width, through scalar stores and a
// reload that stalls the store forwarding (the AVX2 decoder of Q2_K: 5.3-5.7 -> 4.3-4.6 Gelem/s
// that way).
template <int H>
inline void widen_bytes(bytes16 v, ints8& out) {
  constexpr int Z = 16, B = 8 * H;  // Z: a byte of the zero vector
  const bytes32 w =
      __builtin_shufflevector(v, bytes16{}, B, Z, Z, Z, B + 1, Z, Z, Z, B + 2, Z, Z, Z, B + 3, Z, Z,
                              Z, B + 4, Z, Z, Z, B + 5, Z, Z, Z, B + 6, Z, Z, Z, B + 7, Z, Z, Z);
  std::memcpy(&out, &w, sizeof out);
}

// d · (v_i + offset) for the 16 bytes v, each one rounded product.
inline void scaled_bytes(bytes16 v, int offset, float d, float* out) {
  ints8 low_ints, high_ints;
  widen_bytes<0>(v, low_ints);
  widen_bytes<1>(v, high_ints);
  const floats8 low = d * __builtin_convertvector(low_ints + offset, floats8);
  const floats8 high = d * __builtin_convertvector(high_ints + offset, floats8);
  std::memcpy(out, &low, sizeof low);
  std::memcpy(out + 8, &high, sizeof high);
}

// A block's sixteen d · scale_g (dl) and, for Q2_K, dmin · min_g (ml): each one rounded product,
// read by the decoders (params/ggml_blocks.inc) and the in-place kernels (kernels/gemm.inc) alike.
// d · scale has at most 11 + 6 significant bits, so (d · scale) · v is exact in a float for
// Q2_K's 2-bit v and Q3_K's 3-bit q.
inline void q2_k_group_scales(const unsigned char* s, float d, float dmin, float* dl, float* ml) {
  bytes16 scale_min;
  std::memcpy(&scale_min, s, sizeof scale_min);
  scaled_bytes(scale_min & 15, 0, d, dl);
  scaled_bytes(scale_min >> 4, 0, dmin, ml);
}

// Q3_K's sixteen scales unpacked four at a time in 32-bit words (as k_scales_mins; byte i of word
// w is group 4w + i's: the low nibbles of s[0, 8), then their high ones, and bits 2w, 2w + 1 of
// s[8 + i] above them), then converted (scaled_bytes); the values of q3_k_scale, its plain form
// (unit test). One by one, the 16 scalar extractions were the hottest part of gemv_q23_k_rows.
inline void q3_k_group_scales(const unsigned char* s, float d, float* dl) {
  std::uint32_t low[2], high;
  std::memcpy(low, s, sizeof low);
  std::memcpy(&high, s + 8, sizeof high);
  constexpr std::uint32_t nibbles = 0x0f0f0f0f, pairs = 0x03030303;
  // The words built as a vector in registers: written to memory one by one and read back as one
  // vector, they stalled the store forwarding.
  using words4 = std::uint32_t __attribute__((vector_size(16)));
  const words4 words = {(low[0] & nibbles) | (high & pairs) << 4,
                        (low[1] & nibbles) | (high >> 2 & pairs) << 4,
                        (low[0] >> 4 & nibbles) | (high >> 4 & pairs) << 4,
                        (low[1] >> 4 & nibbles) | (high >> 6 & pairs) << 4};
  bytes16 scale;
  std::memcpy(&scale, &words, sizeof scale);
  scaled_bytes(scale, -32, d, dl);
}

// A Q2_K or Q3_K block's eight runs of 32 values v, unsigned: q[4h + r][i] is bits 2r, 2r + 1 of
// qs[i] of half h, and for Q3_K bit 4h + r of hmask[i] above them (so Q3_K's q = v − 4), formed 32
// bytes at a time with fixed shifts. The decoders and the in-place kernels both form their values
// here. (Formed as 16-lane int vectors, the kernel took 11 instructions a vector of Q3_K's values;
// with this and its scales in vectors a Q3_K token took 36 ms against 48-51: bench/RESULTS.md,
// 2026-11-30, sixth session.)
template <bool Three>
inline void q23_k_run_bytes(const unsigned char* block, unsigned char (&q)[8][32]) {
  using L = std::conditional_t<Three, q3_k, q2_k>;
  bytes32 out[8], hmask{};
  if constexpr (Three) std::memcpy(&hmask, block + L::hmask, sizeof hmask);
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    bytes32 qs;
    std::memcpy(&qs, block + L::qs + h * L::half_qs, sizeof qs);
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) {
      out[4 * h + r] = qs >> (2 * r) & 3;
      if constexpr (Three) out[4 * h + r] |= (hmask >> (4 * h + r) & 1) << 2;
    }
  }
  std::memcpy(q, out, sizeof out);
}

// Q4_K: d, dmin (f16) | scales[12]: a 6-bit scale and min per group of 32 (k_scales_mins) |
// qs[128]: groups 2c and 2c + 1 are the low and the high nibbles of qs[32c, 32c + 32). Element l of
// group g = (d · scale_g) · v − dmin · min_g.
struct q4_k {
  static constexpr std::size_t block = 256, bytes = 144, group = 32, d = 0, dmin = 2, scales = 4,
                               qs = 16;
};

// Q5_K: Q4_K's fields with qh[32] before qs; group g's element l has its fifth bit (bit 4 of v)
// at bit g of qh[l].
struct q5_k {
  static constexpr std::size_t block = 256, bytes = 176, group = 32, d = 0, dmin = 2, scales = 4,
                               qh = 16, qs = 48;
};

// Q6_K: two halves of `half` = 128 elements, half h from ql[64] at ql + h · half_ql, qh[32] at
// qh + h · half_qh and 8 int8 scales at scales + h · half_scales; d (f16) at the end. In a half,
// element l + 32j (l < 32, j < 4) is q = (the low (j < 2) or high nibble of ql[l + 32 (j mod 2)])
// | (bits 2j, 2j + 1 of qh[l]) << 4, minus 32, with the half's scale scale_of(j, l):
// element = (d · scale) · q.
struct q6_k {
  static constexpr std::size_t block = 256, bytes = 210, group = 32, ql = 0, qh = 128, scales = 192,
                               d = 208;
  static constexpr std::size_t half = 128, half_ql = 64, half_qh = 32, half_scales = 8;
  static constexpr std::size_t scale_of(std::size_t j, std::size_t l) { return 2 * j + l / 16; }
};

// Q6_K's sixteen d · scale from its int8 scales s, each one rounded product, for the decoder and
// the in-place kernel alike: each int8 x taken as the unsigned byte x ^ 128, widened, minus 128
// (scaled_bytes). (As a scalar loop, or converted through a 16-lane int vector that GCC 12 built
// lane by lane, the in-place kernel was 3-8 % slower: bench/RESULTS.md, 2026-11-30, sixth
// session.)
inline void q6_k_group_scales(const unsigned char* s, float d, float* dl) {
  bytes16 v;
  std::memcpy(&v, s, sizeof v);
  scaled_bytes(v ^ 128, -128, d, dl);
}

// Half `half` of a Q6_K block's 6-bit values, unsigned (q + 32): q[j][l] is element 32j + l's,
// formed 32 bytes at a time with fixed shifts, for the decoder and the in-place kernel alike.
// (Formed as 16-lane int vectors, 11 instructions a vector of values, the kernel was bound by
// them: 45-47 -> 35-38 ms a Q6_K token this way, bench/RESULTS.md, 2026-11-30, sixth session.)
inline void q6_k_half_bytes(const unsigned char* block, std::size_t half,
                            unsigned char (&q)[4][q6_k::group]) {
  using L = q6_k;
  static_assert(L::group == sizeof(bytes32), "a run of values is a 32-byte vector");
  bytes32 ql0, ql1, qh;
  std::memcpy(&ql0, block + L::ql + half * L::half_ql, sizeof ql0);
  std::memcpy(&ql1, block + L::ql + half * L::half_ql + L::group, sizeof ql1);
  std::memcpy(&qh, block + L::qh + half * L::half_qh, sizeof qh);
  const bytes32 out[4] = {(ql0 & 15) | (qh & 3) << 4, (ql1 & 15) | (qh & 12) << 2,
                          (ql0 >> 4) | (qh & 48), (ql1 >> 4) | (qh >> 6) << 4};
  std::memcpy(q, out, sizeof out);
}

// The eight groups' 6-bit scales and mins from Q4_K / Q5_K's 12 scale bytes s. Group g < 4: the
// low six bits of s[g] (scale) and s[g + 4] (min); g ≥ 4: the low (scale) and high (min) nibble
// of s[g + 4], with the two top bits of s[g − 4] (scale) and of s[g] (min) above them. Unpacked
// four groups at a time in 32-bit words (little-endian: byte i of a word is group i's), where a
// byte's shifted-out bits land in its neighbour's masked-off bits; byte g of the results is group
// g's.
struct scales_mins {
  std::uint64_t scale, min;  // byte g: group g's
};
inline scales_mins k_scales_mins(const unsigned char* s) {
  std::uint32_t w[3];
  std::memcpy(w, s, sizeof w);
  constexpr std::uint32_t low6 = 0x3f3f3f3fu, low4 = 0x0f0f0f0fu, top2 = 0x03030303u;
  const std::uint64_t scale_hi = (w[2] & low4) | ((w[0] >> 6) & top2) << 4;
  const std::uint64_t min_hi = ((w[2] >> 4) & low4) | ((w[1] >> 6) & top2) << 4;
  return {(w[0] & low6) | scale_hi << 32, (w[1] & low6) | min_hi << 32};
}

// A Q4_K / Q5_K block's eight d · scale_g (dl) and dmin · min_g (ml) from its 12 scale bytes s,
// in one 8-lane conversion (GCC vector types: the decoders of params/ggml_blocks.inc and the
// in-place kernels of kernels/gemm.inc both take them from here, so they agree to the bit; each
// is one rounded product, whatever the file's contraction setting). Unpacked group by group these
// took about as many instructions as the kernel's products; written to memory as bytes and read
// back as a vector they stalled the store forwarding. (Widened by widen_bytes.)
inline void k_group_scales(const unsigned char* s, float d, float dmin, float* dl, float* ml) {
  const scales_mins sm = k_scales_mins(s);
  static_assert(sizeof sm == 16, "two words of eight bytes");
  bytes16 both;  // bytes 0-7 the scales, 8-15 the mins
  std::memcpy(&both, &sm, sizeof both);
  ints8 scale, min;
  widen_bytes<0>(both, scale);
  widen_bytes<1>(both, min);
  const floats8 dv = d * __builtin_convertvector(scale, floats8);
  const floats8 mv = dmin * __builtin_convertvector(min, floats8);
  std::memcpy(dl, &dv, sizeof dv);
  std::memcpy(ml, &mv, sizeof mv);
}

}  // namespace attnviz::ggml_layout
