// Reading NumPy's .npy arrays of floats (what `attn-viz draw` reads from other tools):
//   "\x93NUMPY" | major, minor | header length (u16 LE for 1.x, u32 LE for 2.x and 3.x) |
//   header, a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
//   | the data, C (row-major) or Fortran (column-major) order
// descr: float16, float32 or float64, little- or big-endian ('<f2', '>f4', '<f8', '=f4', …);
// the values come back as float32 in C order. Anything else — another dtype, a truncated or
// malformed header, data shorter or longer than the shape — is an input_error naming the file
// and the byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

struct npy_array {
  std::vector<std::size_t> shape;
  std::vector<float> values;  // C order
};

// What a header declares, read from the file's first bytes alone (the data need not follow):
// the shape, its element count, the float width in bytes and where the data starts.
struct npy_header {
  std::vector<std::size_t> shape;
  std::string shape_text;  // as written, for messages
  std::uint64_t count = 0;
  std::size_t width = 4;    // 2, 4 or 8
  std::size_t data_at = 0;  // the byte where the data begins
  bool swap = false;        // big-endian
  bool fortran = false;     // column-major
};
npy_header parse_npy_header(std::string_view bytes, const std::string& source);

npy_array parse_npy(std::string_view bytes, const std::string& source);

}  // namespace attnviz
