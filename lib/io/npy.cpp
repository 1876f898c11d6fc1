#include "io/npy.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

namespace attnviz {

std::string npy_float32(const std::vector<std::size_t>& shape, const float* values) {
  std::string dims;
  std::size_t count = 1;
  for (std::size_t s : shape) {
    dims += fmt::format("{}, ", s);
    count *= s;
  }
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);  // (2, 3); a 1-tuple keeps its comma: (5,)
  else if (shape.size() == 1)
    dims.resize(dims.size() - 1);
  std::string header =
      fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}), }}", dims);
  const std::size_t preamble = 10;  // magic (6) + version (2) + header length (2)
  const std::size_t total = (preamble + header.size() + 1 + 63) / 64 * 64;
  header.append(total - preamble - header.size() - 1, ' ');
  header += '\n';

  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.reserve(out.size() + 4 * count);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t u;
    std::memcpy(&u, values + i, 4);
    for (int b = 0; b < 4; ++b) out += static_cast<char>((u >> (8 * b)) & 0xff);
  }
  return out;
}

}  // namespace attnviz
