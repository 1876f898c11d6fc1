#include "io/npy.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

namespace attnviz {

namespace {

// The magic, version and header of an array of `descr` with `shape`, padded so the data starts
// at a multiple of 64 bytes; `count` gets the number of elements.
std::string npy_header_text(const char* descr, const std::vector<std::size_t>& shape,
                            std::size_t& count) {
  std::string dims;
  count = 1;
  for (std::size_t s : shape) {
    dims += fmt::format("{}, ", s);
    count *= s;
  }
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);  // (2, 3); a 1-tuple keeps its comma: (5,)
  else if (shape.size() == 1)
    dims.resize(dims.size() - 1);
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, dims);
  const std::size_t preamble = 10;  // magic (6) + version (2) + header length (2)
  const std::size_t total = (preamble + header.size() + 1 + 63) / 64 * 64;
  header.append(total - preamble - header.size() - 1, ' ');
  header += '\n';

  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  return out;
}

// Appends n values of `bytes` bytes each, little-endian.
template <class T>
void append_le(std::string& out, const T* values, std::size_t n) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the .npy writer assumes little-endian");
  const std::size_t at = out.size();
  out.resize(at + n * sizeof(T));
  if (n) std::memcpy(out.data() + at, values, n * sizeof(T));
}

}  // namespace

std::string npy_float32(const std::vector<std::size_t>& shape, const float* values) {
  std::size_t count = 0;
  std::string out = npy_header_text("<f4", shape, count);
  append_le(out, values, count);
  return out;
}

std::string npy_int64(const std::vector<std::size_t>& shape, const std::int64_t* values) {
  std::size_t count = 0;
  std::string out = npy_header_text("<i8", shape, count);
  append_le(out, values, count);
  return out;
}

std::string npy_float32_header(const std::vector<std::size_t>& shape) {
  std::size_t count = 0;
  return npy_header_text("<f4", shape, count);
}

}  // namespace attnviz
