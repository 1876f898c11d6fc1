// NumPy's .npy format, version 1.0, for float32 and int64 arrays (what numpy.load reads):
//   "\x93NUMPY" 0x01 0x00 | u16 LE header length | header | data
//   header: "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", padded with spaces
//           and ended by "\n" so the data starts at a multiple of 64 bytes
//   data:   the values row-major (C order), little-endian ('<i8' for int64)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnviz {

// `values` holds the product of `shape` floats, row-major. A shape of {} is a scalar.
std::string npy_float32(const std::vector<std::size_t>& shape, const float* values);
std::string npy_int64(const std::vector<std::size_t>& shape, const std::int64_t* values);
// The bytes before a float32 array's data (a multiple of 64), for a file written in pieces.
std::string npy_float32_header(const std::vector<std::size_t>& shape);

}  // namespace attnviz
