#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "error.h"
#include "helpers.h"
#include "io/file_io.h"
#include "io/npy.h"

using namespace attnviz;
using attnviz::testing::temp_dir;
namespace fs = std::filesystem;

namespace {
std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
std::size_t entries(const fs::path& d) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(d), fs::directory_iterator()));
}
}  // namespace

TEST_CASE("a batch writes every file, and nothing else stays in the folder") {
  temp_dir d;
  output_batch b;
  b.add(d.path("a.json"), "{}");
  b.add(d.path("b.png"), "png");
  CHECK(b.commit() == std::vector<std::string>{d.path("a.json"), d.path("b.png")});
  CHECK(slurp(d.path("a.json")) == "{}");
  CHECK(entries(d.dir()) == 2);
}

TEST_CASE("a failing batch leaves no file and keeps existing ones untouched") {
  temp_dir d;
  const auto existing = d.file("a.json", "old");
  output_batch b;
  b.add(existing, "new");
  b.add(d.path("missing-folder/b.png"), "png");
  CHECK_THROWS_AS(b.commit(), usage_error);
  CHECK(slurp(existing) == "old");
  CHECK(entries(d.dir()) == 1);
}

TEST_CASE("check_output_path explains what is wrong") {
  temp_dir d;
  CHECK_THROWS_WITH(check_output_path(d.path("nope/x.png"), "--png"),
                    doctest::Contains("does not exist"));
  CHECK_THROWS_WITH(check_output_path(d.dir().string(), "--png"), doctest::Contains("is a folder"));
  CHECK_NOTHROW(check_output_path(d.path("x.png"), "--png"));
}

TEST_CASE("reading a missing file or a folder is an input error") {
  temp_dir d;
  CHECK_THROWS_AS(read_whole_file(d.path("none")), input_error);
  CHECK_THROWS_WITH(read_whole_file(d.dir().string()), doctest::Contains("is a folder"));
}

TEST_CASE(".npy 1.0: magic, version, padded header, little-endian float32 data") {
  const std::vector<float> v = {1.0f, -2.5f, 0.0f, 3.0f, 4.0f, 5.0f};
  const std::string a = npy_float32({2, 3}, v.data());
  REQUIRE(a.size() == 128 + 24);  // the data starts at 128, a multiple of 64
  CHECK(a.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  CHECK(static_cast<unsigned char>(a[8]) + 256 * static_cast<unsigned char>(a[9]) == 118);
  const std::string header = a.substr(10, 118);
  CHECK(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0) == 0);
  CHECK(header.back() == '\n');
  // -2.5f = 0xC0200000, stored low byte first
  CHECK(a.substr(132, 4) == std::string("\x00\x00\x20\xC0", 4));
  // a 1-tuple keeps its comma; a bigger header still aligns to 64
  const std::string b = npy_float32({5}, v.data());
  CHECK(b.find("'shape': (5,), }") != std::string::npos);
  CHECK((b.size() - 20) % 64 == 0);
}

TEST_CASE("output folders: existing, creatable, or a clear usage error") {
  temp_dir d;
  CHECK_NOTHROW(check_output_dir(d.dir().string(), "--npy"));
  CHECK_NOTHROW(check_output_dir((d.dir() / "new").string(), "--npy"));
  const auto file = d.file("f.txt", "x");
  CHECK_THROWS_WITH_AS(check_output_dir(file, "--npy"),
                       ("--npy " + file + ": exists and is not a folder").c_str(), usage_error);
  const auto deep = (d.dir() / "a" / "b").string();
  CHECK_THROWS_WITH_AS(
      check_output_dir(deep, "--out-dir"),
      ("--out-dir " + deep + ": folder '" + (d.dir() / "a").string() + "' does not exist").c_str(),
      usage_error);
  create_output_dir((d.dir() / "new").string());
  CHECK(std::filesystem::is_directory(d.dir() / "new"));
  create_output_dir((d.dir() / "new").string());  // already there: fine
}
