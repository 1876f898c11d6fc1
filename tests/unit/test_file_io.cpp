#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "error.h"
#include "helpers.h"
#include "io/file_io.h"

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
