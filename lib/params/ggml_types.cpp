#include "params/ggml_types.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace attnviz {

namespace {

constexpr ggml_type_info kTypes[] = {
    {ggml_type::f32, "F32", 1, 4},      {ggml_type::f16, "F16", 1, 2},
    {ggml_type::bf16, "BF16", 1, 2},    {ggml_type::q8_0, "Q8_0", 32, 34},
    {ggml_type::q4_0, "Q4_0", 32, 18},  {ggml_type::q4_1, "Q4_1", 32, 20},
    {ggml_type::q5_0, "Q5_0", 32, 22},  {ggml_type::q5_1, "Q5_1", 32, 24},
    {ggml_type::q2_k, "Q2_K", 256, 84}, {ggml_type::q3_k, "Q3_K", 256, 110},
    {ggml_type::q4_k, "Q4_K", 256, 144}, {ggml_type::q5_k, "Q5_K", 256, 176},
    {ggml_type::q6_k, "Q6_K", 256, 210},
};

// ggml's names for the ids it defines that attn-viz does not read (for refusals).
const char* other_type_name(std::uint32_t id) {
  static const char* const names[] = {
      nullptr,   nullptr,   nullptr,   nullptr,   "Q4_2",    "Q4_3",     nullptr,   nullptr,
      nullptr,   "Q8_1",    nullptr,   nullptr,   nullptr,   nullptr,    nullptr,   "Q8_K",
      "IQ2_XXS", "IQ2_XS",  "IQ3_XXS", "IQ1_S",   "IQ4_NL",  "IQ3_S",    "IQ2_S",   "IQ4_XS",
      "I8",      "I16",     "I32",     "I64",     "F64",     "IQ1_M",    nullptr,   "Q4_0_4_4",
      "Q4_0_4_8", "Q4_0_8_8", "TQ1_0", "TQ2_0"};
  return id < sizeof names / sizeof names[0] ? names[id] : nullptr;
}

// IEEE half bits to float, exactly: the exponent and mantissa moved into a float's places and
// scaled by 2^112 (which also makes subnormal halves normal floats); exponent 31 is inf / NaN.
float half(const unsigned char* p) {
  const std::uint32_t h = static_cast<std::uint32_t>(p[0] | (p[1] << 8));
  std::uint32_t bits = (h & 0x7fffu) << 13;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  f *= 0x1p112f;
  std::memcpy(&bits, &f, sizeof f);
  if ((h & 0x7c00u) == 0x7c00u) bits |= 0x7f800000u;
  bits |= (h & 0x8000u) << 16;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float bf16(const unsigned char* p) {
  const std::uint32_t bits = static_cast<std::uint32_t>(p[0] | (p[1] << 8)) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Q8_0: d | qs[32] int8; x_j = qs_j · d.
void q8_0(const unsigned char* b, float* y) {
  const float d = half(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
}

// Q4_0 / Q4_1: element j < 16 is the low nibble of qs[j], element j + 16 its high nibble.
void q4_0(const unsigned char* b, float* y) {
  const float d = half(b);
  const unsigned char* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>((qs[j] & 15) - 8) * d;
    y[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
  }
}

void q4_1(const unsigned char* b, float* y) {
  const float d = half(b), m = half(b + 2);
  const unsigned char* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(qs[j] & 15) * d + m;
    y[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
  }
}

// Q5_0 / Q5_1: the nibbles as Q4_0, and element j's fifth bit is bit j of the u32 qh.
std::uint32_t u32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

void q5_0(const unsigned char* b, float* y) {
  const float d = half(b);
  const std::uint32_t qh = u32(b + 2);
  const unsigned char* qs = b + 6;
  for (int j = 0; j < 16; ++j) {
    const int lo = static_cast<int>((qs[j] & 15) | ((qh >> j) & 1) << 4);
    const int hi = static_cast<int>((qs[j] >> 4) | ((qh >> (j + 16)) & 1) << 4);
    y[j] = static_cast<float>(lo - 16) * d;
    y[j + 16] = static_cast<float>(hi - 16) * d;
  }
}

void q5_1(const unsigned char* b, float* y) {
  const float d = half(b), m = half(b + 2);
  const std::uint32_t qh = u32(b + 4);
  const unsigned char* qs = b + 8;
  for (int j = 0; j < 16; ++j) {
    const unsigned lo = (qs[j] & 15u) | ((qh >> j) & 1u) << 4;
    const unsigned hi = (qs[j] >> 4u) | ((qh >> (j + 16)) & 1u) << 4;
    y[j] = static_cast<float>(lo) * d + m;
    y[j + 16] = static_cast<float>(hi) * d + m;
  }
}

// Q2_K: 16 groups of 16. The 256 elements come in two halves of 128, each from 32 bytes of qs:
// in a half, shift s = 0, 2, 4, 6 takes bits s..s+1 of qs[l] for 16 elements (l < 16) and then
// of qs[16 + l] for the next 16; group g's scales byte holds its scale (low nibble) and its min
// (high nibble).
void q2_k(const unsigned char* b, float* y) {
  const unsigned char* scales = b;
  const unsigned char* qs = b + 16;
  const float d = half(b + 80), dmin = half(b + 82);
  int g = 0;
  for (int half_at = 0; half_at < 2; ++half_at, qs += 32)
    for (int shift = 0; shift < 8; shift += 2)
      for (int part = 0; part < 2; ++part, ++g) {
        const float dl = d * static_cast<float>(scales[g] & 15);
        const float ml = dmin * static_cast<float>(scales[g] >> 4);
        for (int l = 0; l < 16; ++l)
          *y++ = dl * static_cast<float>((qs[part * 16 + l] >> shift) & 3) - ml;
      }
}

// Q3_K: as Q2_K's order for the two low bits (from qs); the third bit of element e of the same
// walk is bit (half·4 + shift/2) of hmask[part·16 + l], and a clear bit subtracts 4. Group g's
// 6-bit scale: low 4 bits in the nibble g/8 of scales[g mod 8], high 2 bits at bit 2·(g/4) of
// scales[8 + g mod 4]; it is stored + 32.
int q3_scale(const unsigned char* s, int g) {
  const int low = (s[g % 8] >> (4 * (g / 8))) & 15;
  const int high = (s[8 + g % 4] >> (2 * (g / 4))) & 3;
  return (low | high << 4) - 32;
}

void q3_k(const unsigned char* b, float* y) {
  const unsigned char* hmask = b;
  const unsigned char* qs = b + 32;
  const unsigned char* scales = b + 96;
  const float d = half(b + 108);
  int g = 0, bit = 0;
  for (int half_at = 0; half_at < 2; ++half_at, qs += 32)
    for (int shift = 0; shift < 8; shift += 2, ++bit)
      for (int part = 0; part < 2; ++part, ++g) {
        const float dl = d * static_cast<float>(q3_scale(scales, g));
        for (int l = 0; l < 16; ++l) {
          const int i = part * 16 + l;
          const int q = ((qs[i] >> shift) & 3) - ((hmask[i] >> bit) & 1 ? 0 : 4);
          *y++ = dl * static_cast<float>(q);
        }
      }
}

// Q4_K / Q5_K: eight groups of 32, each with a 6-bit scale and a 6-bit min in scales[12]:
// for g < 4 scale = s[g] & 63, min = s[g + 4] & 63; else scale = (s[g + 4] & 15) |
// (s[g − 4] >> 6) << 4, min = (s[g + 4] >> 4) | (s[g] >> 6) << 4.
void k_scale_min(const unsigned char* s, int g, int& scale, int& min) {
  if (g < 4) {
    scale = s[g] & 63;
    min = s[g + 4] & 63;
  } else {
    scale = (s[g + 4] & 15) | (s[g - 4] >> 6) << 4;
    min = (s[g + 4] >> 4) | (s[g] >> 6) << 4;
  }
}

// Groups 2c and 2c + 1 take the low and the high nibbles of qs[32c .. 32c + 32); Q5_K's fifth
// bit of group g's element l is bit g of qh[l].
void q45_k(const unsigned char* b, float* y, bool five) {
  const float d = half(b), dmin = half(b + 2);
  const unsigned char* scales = b + 4;
  const unsigned char* qh = b + 16;
  const unsigned char* qs = five ? b + 48 : b + 16;
  for (int g = 0; g < 8; ++g) {
    int sc = 0, mn = 0;
    k_scale_min(scales, g, sc, mn);
    const float dl = d * static_cast<float>(sc), ml = dmin * static_cast<float>(mn);
    const unsigned char* q = qs + 32 * (g / 2);
    const int shift = 4 * (g % 2);
    for (int l = 0; l < 32; ++l) {
      int v = (q[l] >> shift) & 15;
      if (five) v |= ((qh[l] >> g) & 1) << 4;
      *y++ = dl * static_cast<float>(v) - ml;
    }
  }
}

// Q6_K: two halves of 128; in a half (ql 64 bytes, qh 32 bytes, 8 scales), element l + 32r
// (l < 32, r < 4) takes the low (r < 2) or high (r ≥ 2) nibble of ql[l + 32 (r mod 2)] and bits
// 2r, 2r + 1 of qh[l]; its scale is the half's scale 2r + l/16. Stored + 32.
void q6_k(const unsigned char* b, float* y) {
  const unsigned char* ql = b;
  const unsigned char* qh = b + 128;
  const auto* sc = reinterpret_cast<const signed char*>(b + 192);
  const float d = half(b + 208);
  for (int half_at = 0; half_at < 2; ++half_at, ql += 64, qh += 32, sc += 8, y += 128)
    for (int r = 0; r < 4; ++r)
      for (int l = 0; l < 32; ++l) {
        const int low = (ql[l + 32 * (r % 2)] >> (4 * (r / 2))) & 15;
        const int q = (low | ((qh[l] >> (2 * r)) & 3) << 4) - 32;
        y[l + 32 * r] = d * static_cast<float>(sc[2 * r + l / 16]) * static_cast<float>(q);
      }
}

void q4_k(const unsigned char* b, float* y) { q45_k(b, y, false); }
void q5_k(const unsigned char* b, float* y) { q45_k(b, y, true); }

// Elements [first, first + count) of blocks decoded by Decode: a ragged start through a block
// on the stack, then whole blocks straight into out, then a ragged end. One instantiation per
// type, so the block decoder is inlined into the loop over blocks; the sizes come from the type
// table. (The loop over whole blocks divides nothing: with the block's index and offset worked
// out by a division every block, the division was on the loop's critical path and a matrix-
// vector product over Q8_0 rows spent most of its time there.)
template <void (*Decode)(const unsigned char*, float*)>
void decode_range(const ggml_type_info& info, const unsigned char* data, std::size_t first,
                  std::size_t count, float* out) {
  const std::size_t per = info.block, bytes = info.block_bytes;
  float block[256];
  std::size_t index = first / per, at = 0;  // the next block; elements written
  if (const std::size_t offset = first % per; offset != 0 && count > 0) {
    at = std::min(per - offset, count);
    Decode(data + index++ * bytes, block);
    std::memcpy(out, block + offset, at * sizeof(float));
  }
  for (; at + per <= count; at += per) Decode(data + index++ * bytes, out + at);
  if (at < count) {
    Decode(data + index * bytes, block);
    std::memcpy(out + at, block, (count - at) * sizeof(float));
  }
}

}  // namespace

std::optional<ggml_type_info> ggml_type_of(std::uint32_t id) {
  for (const auto& info : kTypes)
    if (static_cast<std::uint32_t>(info.type) == id) return info;
  return std::nullopt;
}

const ggml_type_info& ggml_info(ggml_type t) {
  for (const auto& info : kTypes)
    if (info.type == t) return info;
  return kTypes[0];
}

std::string ggml_type_name(std::uint32_t id) {
  if (const auto info = ggml_type_of(id)) return std::string(info->name);
  if (const char* name = other_type_name(id)) return name;
  return fmt::format("type {}", id);
}

std::string ggml_supported_types() {
  std::string all;
  for (const auto& info : kTypes) all += (all.empty() ? "" : ", ") + std::string(info.name);
  return all;
}

void ggml_to_float(ggml_type t, const unsigned char* data, std::size_t first, std::size_t count,
                   float* out) {
  switch (t) {
    case ggml_type::f32:
      std::memcpy(out, data + first * 4, count * 4);  // little-endian hosts (x86-64, arm64)
      return;
    case ggml_type::f16:
      for (std::size_t i = 0; i < count; ++i) out[i] = half(data + (first + i) * 2);
      return;
    case ggml_type::bf16:
      for (std::size_t i = 0; i < count; ++i) out[i] = bf16(data + (first + i) * 2);
      return;
    default: break;
  }
  const ggml_type_info& info = ggml_info(t);
  switch (t) {
    case ggml_type::q8_0: return decode_range<q8_0>(info, data, first, count, out);
    case ggml_type::q4_0: return decode_range<q4_0>(info, data, first, count, out);
    case ggml_type::q4_1: return decode_range<q4_1>(info, data, first, count, out);
    case ggml_type::q5_0: return decode_range<q5_0>(info, data, first, count, out);
    case ggml_type::q5_1: return decode_range<q5_1>(info, data, first, count, out);
    case ggml_type::q2_k: return decode_range<q2_k>(info, data, first, count, out);
    case ggml_type::q3_k: return decode_range<q3_k>(info, data, first, count, out);
    case ggml_type::q4_k: return decode_range<q4_k>(info, data, first, count, out);
    case ggml_type::q5_k: return decode_range<q5_k>(info, data, first, count, out);
    case ggml_type::q6_k: return decode_range<q6_k>(info, data, first, count, out);
    default: return;
  }
}

}  // namespace attnviz
