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
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

struct npy_array {
  std::vector<std::size_t> shape;
  std::vector<float> values;  // C order
};

npy_array parse_npy(std::string_view bytes, const std::string& source);

}  // namespace attnviz
