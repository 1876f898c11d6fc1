// Deterministic random numbers: the same seed gives the same stream on every platform.
//
// Every consumer derives its own stream from (seed, name), so adding a parameter or a
// sampling step never shifts the values of another.
#pragma once

#include <cstdint>
#include <string_view>

namespace attnviz {

// FNV-1a, 64-bit: a stable hash of bytes (used to name streams and to hash OOV tokens).
constexpr std::uint64_t fnv1a64(std::string_view s) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and every 64-bit state is valid.
class splitmix64 {
 public:
  explicit constexpr splitmix64(std::uint64_t state) noexcept : state_(state) {}
  splitmix64(std::uint64_t seed, std::string_view stream) noexcept
      : state_(seed ^ fnv1a64(stream)) {}

  constexpr std::uint64_t next() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [-a, a).
  double uniform(double a) noexcept { return (2.0 * uniform() - 1.0) * a; }

 private:
  std::uint64_t state_;
};

}  // namespace attnviz
