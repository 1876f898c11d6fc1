// The pieces of the attention file reader that have rules of their own: the natural order that
// stacks arr_0 … arr_11 as layers, and the zip reader on an archive written by hand.
#include <doctest/doctest.h>

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

// One stored member `name` holding `data`: local header, data, central directory, end record.
std::string stored_zip(const std::string& name, const std::string& data) {
  std::string local = le(0x04034b50, 4) + le(20, 2) + le(0, 2) + le(0, 2) + le(0, 4) + le(0, 4) +
                      le(data.size(), 4) + le(data.size(), 4) + le(name.size(), 2) + le(0, 2) +
                      name + data;
  std::string central = le(0x02014b50, 4) + le(20, 2) + le(20, 2) + le(0, 2) + le(0, 2) +
                        le(0, 4) + le(0, 4) + le(data.size(), 4) + le(data.size(), 4) +
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
