// IEEE 754 half (binary16) and bfloat16 bits to float. Exact: every value of both formats is a
// float. NaNs keep their payload's top bits.
//   half:      sign | 5-bit exponent (bias 15) | 10-bit fraction; exponent 0 holds ±0 and the
//              subnormals (fraction · 2^-24), 31 holds ±inf and NaN
//   bfloat16:  the top 16 bits of a float
#pragma once

#include <cstdint>
#include <cstring>

namespace attnviz {

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  std::uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      std::uint32_t m = mant;
      do {
        ++e;
        m <<= 1;
      } while ((m & 0x400u) == 0);
      bits = sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 | (m & 0x3ffu) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | mant << 13;
  } else {
    bits = sign | (exp + 112) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline float bf16_to_float(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace attnviz
