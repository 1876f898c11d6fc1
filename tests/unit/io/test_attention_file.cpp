// The pieces of the attention file reader that have rules of their own: the natural order that
// stacks arr_0 … arr_11 as layers, and the zip reader on an archive written by hand.
#include <doctest/doctest.h>

#include <zlib.h>

#include <string>

#include "error.h"
#include "io/attention_file.h"

using attnviz::natural_less;
using attnviz::read_zip;

TEST_CASE("natural order: digit runs compare as numbers") {
  CHECK(natural_less("arr_2", "arr_10"));
  CHECK_FALSE(natural_less("arr_10", "arr_2"));
  CHECK(natural_less("layer.9.attn", "layer.10.attn"));
  CHECK(natural_less("a", "b"));
  CHECK(natural_less("arr_1", "arr_01x"));
  CHECK_FALSE(natural_less("arr_3", "arr_3"));
  CHECK(natural_less("arr", "arr_0"));
}

namespace {

std::string le(unsigned long long v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
  return s;
}

// One member `name` holding `data` (stored, or already deflated with `method` 8 and declaring
// `usize` bytes uncompressed): local header, data, central directory, end record.
std::string stored_zip(const std::string& name, const std::string& data, unsigned method = 0,
                       std::size_t usize = std::string::npos) {
  if (usize == std::string::npos) usize = data.size();
  std::string local = le(0x04034b50, 4) + le(20, 2) + le(0, 2) + le(method, 2) + le(0, 4) +
                      le(0, 4) + le(data.size(), 4) + le(usize, 4) + le(name.size(), 2) +
                      le(0, 2) + name + data;
  std::string central = le(0x02014b50, 4) + le(20, 2) + le(20, 2) + le(0, 2) + le(method, 2) +
                        le(0, 4) + le(0, 4) + le(data.size(), 4) + le(usize, 4) +
                        le(name.size(), 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) +
                        le(0, 4) + name;
  std::string end = le(0x06054b50, 4) + le(0, 2) + le(0, 2) + le(1, 2) + le(1, 2) +
                    le(central.size(), 4) + le(local.size(), 4) + le(0, 2);
  return local + central + end;
}

}  // namespace

TEST_CASE("a stored member comes back as written; damage is named with its byte") {
  const std::string zip = stored_zip("a.npy", "hello");
  const auto members = read_zip(zip, "t.npz");
  REQUIRE(members.size() == 1);
  CHECK(members[0].first == "a.npy");
  CHECK(members[0].second == "hello");
  CHECK_THROWS_AS(read_zip("not a zip at all, not even close.", "t.npz"), attnviz::input_error);
  std::string cut = zip;
  cut[zip.size() - 22 + 16] = 0x7F;  // the central directory's offset points past the end
  CHECK_THROWS_WITH_AS(read_zip(cut, "t.npz"), doctest::Contains("byte"), attnviz::input_error);
}

namespace {

// Raw deflate (no zlib header), as zip members hold it.
std::string deflate_raw(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// An .npy v1 header for float32 `shape` (a Python tuple), padded to a multiple of 64 bytes as NumPy pads it.
std::string npy_header_f4(const std::string& shape) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  dict.append(63 - (10 + dict.size()) % 64, ' ');
  dict += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + le(dict.size(), 2) + dict;
}

}  // namespace

TEST_CASE("a deflated member must give exactly what it declares: more or less is damage") {
  const std::string data(100000, 'x');
  const std::string packed = deflate_raw(data);
  CHECK(read_zip(stored_zip("a.npy", packed, 8, data.size()), "t.npz")[0].second == data);
  // declares less than it holds: the inflation stops at the declared size, then says so
  CHECK_THROWS_WITH_AS(read_zip(stored_zip("a.npy", packed, 8, 1000), "t.npz"),
                       doctest::Contains("inflates to more than it declares"),
                       attnviz::input_error);
  // declares more than it holds
  CHECK_THROWS_WITH_AS(read_zip(stored_zip("a.npy", packed, 8, 100500), "t.npz"),
                       doctest::Contains("ends early"), attnviz::input_error);
  // the first bytes alone, for a header
  const std::string zip = stored_zip("a.npy", packed, 8, data.size());
  const auto members = attnviz::zip_members(zip, "t.npz");
  REQUIRE(members.size() == 1);
  CHECK(attnviz::zip_member_bytes(zip, members[0], "t.npz", 10) == std::string(10, 'x'));
}

TEST_CASE("the memory an .npz needs is read from its headers, before any array is inflated") {
  // [64, 1024, 1024] float32 zeros: 256 MiB uncompressed, a quarter of a megabyte deflated
  const std::string header = npy_header_f4("(64, 1024, 1024)");
  const std::size_t body = std::size_t(64) << 22;
  std::string npy = header;
  npy.append(body, '\0');
  const std::string zip = stored_zip("arr_0.npy", deflate_raw(npy), 8, npy.size());
  npy = std::string();
  CHECK(zip.size() < 400000);
  // the floats (4 bytes each) plus the largest member inflated
  CHECK(attnviz::attention_file_memory(zip, ".npz", "t.npz") == body + header.size() + body);
  // an .npy's floats from its header alone, the data not even present
  CHECK(attnviz::attention_file_memory(npy_header_f4("(2, 3)"), ".npy", "t.npy") == 24);
}

TEST_CASE("a member whose .npy header disagrees with the zip's size is refused before inflating") {
  // the header declares [1, 1, 1024, 1024] float32 (4 MiB), which the member holds; the zip
  // declares 88 bytes more: inflating it whole would end early, so a refusal that names the
  // sizes came from the headers alone
  const std::string header = npy_header_f4("(1, 1, 1024, 1024)");
  const std::size_t body = std::size_t(1024) * 1024 * 4;
  const std::string zip = stored_zip("arr_0.npy", deflate_raw(header + std::string(body, '\0')), 8,
                                     header.size() + body + 88);
  const std::string needs = "the data is " + std::to_string(body + 88) +
                            " bytes; shape (1, 1, 1024, 1024) of 4-byte floats needs " +
                            std::to_string(body);
  CHECK_THROWS_WITH_AS(attnviz::attention_file_memory(zip, ".npz", "t.npz"),
                       doctest::Contains(needs.c_str()), attnviz::input_error);
  CHECK_THROWS_WITH_AS(attnviz::parse_attention_file(zip, ".npz", "", "t.npz"),
                       doctest::Contains(needs.c_str()), attnviz::input_error);
}

TEST_CASE("a local header that disagrees with the central directory is damage") {
  std::string zip = stored_zip("a.npy", "hello");
  zip[22] = 9;  // the local header's uncompressed size: 9, the central directory's 5
  CHECK_THROWS_WITH_AS(read_zip(zip, "t.npz"),
                       doctest::Contains("byte 0: zip member a.npy's local header declares a size "
                                         "of 9 where the central directory declares 5"),
                       attnviz::input_error);
  zip = stored_zip("a.npy", "hello");
  zip[8] = 8;  // the local header's method: deflate, the central directory's stored
  CHECK_THROWS_WITH_AS(read_zip(zip, "t.npz"), doctest::Contains("compression method 8"),
                       attnviz::input_error);
}
