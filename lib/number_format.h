// Numbers as people read them in messages and figures: 65536 -> "65,536".
#pragma once

#include <cstdint>
#include <string>

namespace attnviz {

inline std::string grouped_number(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace attnviz
