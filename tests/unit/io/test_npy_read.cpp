// The .npy reader: its own writer's files back, hand-made headers of every float dtype, byte
// order and memory order, and the malformed files it must refuse with the byte offset.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "error.h"
#include "io/npy.h"
#include "io/npy_read.h"

using namespace attnviz;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace npy_read_cases {

namespace {

// A version-1.0 file with `header` (padded to 64) and `data`.
std::string npy_file(const std::string& header, const std::string& data) {
  std::string h = header;
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + data;
}

template <class T>
std::string raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::string error_of(const std::string& bytes) {
  try {
    parse_npy(bytes, "a.npy");
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the writer's float32 arrays read back exactly") {
  const std::vector<float> v{0.5f, -1.25f, 3e-8f, 7.0f, 0.0f, 1.0f};
  const npy_array a = parse_npy(npy_float32({2, 3}, v.data()), "a.npy");
  CHECK(a.shape == std::vector<std::size_t>{2, 3});
  CHECK(a.values == v);
  const npy_array s = parse_npy(npy_float32({6}, v.data()), "a.npy");
  CHECK(s.shape == std::vector<std::size_t>{6});
}

TEST_CASE("float64, big-endian float32, float16 and Fortran order") {
  const npy_array d = parse_npy(
      npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", raw(std::vector<double>{0.25, -2.0, 1e-3})),
      "a.npy");
  CHECK(d.values == std::vector<float>{0.25f, -2.0f, static_cast<float>(1e-3)});
  std::string be = raw(std::vector<float>{1.5f, -0.75f});
  for (std::size_t i = 0; i < be.size(); i += 4) std::swap(be[i], be[i + 3]), std::swap(be[i + 1], be[i + 2]);
  const npy_array b = parse_npy(npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", be), "a.npy");
  CHECK(b.values == std::vector<float>{1.5f, -0.75f});
  // float16: 1.0 = 0x3c00, -2.0 = 0xc000, 0.5 = 0x3800, the smallest subnormal 2^-24 = 0x0001
  const npy_array h = parse_npy(
      npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }",
               raw(std::vector<std::uint16_t>{0x3c00, 0xc000, 0x3800, 0x0001})),
      "a.npy");
  CHECK(h.values == std::vector<float>{1.0f, -2.0f, 0.5f, 5.9604644775390625e-8f});
  // Fortran order [[1, 2, 3], [4, 5, 6]] is stored 1 4 2 5 3 6
  const npy_array f = parse_npy(
      npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }",
               raw(std::vector<float>{1, 4, 2, 5, 3, 6})),
      "a.npy");
  CHECK(f.values == std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("malformed files are refused with the byte offset") {
  CHECK(error_of("PK\x03\x04 not npy").find("not a .npy file") != std::string::npos);
  const std::string ints = npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
                                    raw(std::vector<std::int64_t>{1}));
  CHECK(error_of(ints).find("is not a float") != std::string::npos);
  CHECK(error_of(ints).find("byte") != std::string::npos);
  const std::string shorter = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                       raw(std::vector<float>{1, 2}));
  CHECK(error_of(shorter).find("needs 12") != std::string::npos);
  CHECK(error_of(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }", ""))
            .find("whole numbers") != std::string::npos);
  CHECK(error_of(npy_file("{'descr': '<f4', 'shape': (1,), }", raw(std::vector<float>{1})))
            .find("fortran_order") != std::string::npos);
  std::string cut = npy_float32({2}, std::vector<float>{1, 2}.data());
  cut.resize(20);
  CHECK(error_of(cut).find("ends first") != std::string::npos);
}

}  // namespace npy_read_cases
