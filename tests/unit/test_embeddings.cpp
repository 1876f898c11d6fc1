#include <doctest/doctest.h>

#include <cmath>
#include <fstream>

#include "error.h"
#include "helpers.h"
#include "text/embeddings.h"

using namespace attnviz;
using attnviz::testing::temp_dir;

namespace {
std::string error_of(const std::string& path,
                     const std::unordered_set<std::string>& wanted = {"a"}) {
  try {
    read_embeddings(path, wanted);
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("GloVe rows: only the wanted tokens are kept, every row is counted") {
  temp_dir d;
  const auto p = d.file("g.txt", "the 1 2 3\ncat 0.5 -1e-1 +2\nsat 4 5 6\n");
  const auto t = read_embeddings(p, {"cat", "dog"});
  CHECK(t.dim == 3);
  CHECK(t.rows == 3);
  CHECK(t.vectors.size() == 1);
  REQUIRE(t.find("cat"));
  CHECK(*t.find("cat") == std::vector<float>{0.5f, -0.1f, 2.0f});
  CHECK(t.find("dog") == nullptr);
  // mean norm of the sampled rows: (|[1,2,3]| + |[.5,-.1,2]| + |[4,5,6]|) / 3
  const double want = (std::sqrt(14.0) + std::sqrt(0.25 + 0.01 + 4.0) + std::sqrt(77.0)) / 3;
  CHECK(t.mean_norm == doctest::Approx(want).epsilon(1e-6));
}

TEST_CASE("word2vec / fastText header, BOM, CRLF, tabs and blank lines are accepted") {
  temp_dir d;
  const auto p = d.file("w.vec",
                        "\xEF\xBB\xBF"
                        "2 2\r\nx 1 2\r\n\r\ny\t3  4 \r\n");
  const auto t = read_embeddings(p, {"x", "y"});
  CHECK(t.dim == 2);
  CHECK(t.rows == 2);
  CHECK(*t.find("y") == std::vector<float>{3, 4});
}

TEST_CASE("a duplicated word: the first row wins") {
  temp_dir d;
  const auto t = read_embeddings(d.file("dup.txt", "a 1 1\na 2 2\n"), {"a"});
  CHECK(*t.find("a") == std::vector<float>{1, 1});
}

TEST_CASE("errors name the file, the line and what was expected") {
  temp_dir d;
  const auto ragged = d.file("ragged.txt", "a 1 2 3\nb 1 2\n");
  CHECK(error_of(ragged) == ragged + ":2: 2 values, expected 3 (the dimension set by line 1)");
  const auto header = d.file("header.txt", "3 4\na 1 2 3 4\nb 1 2 3\n");
  CHECK(error_of(header) ==
        header + ":3: 3 values, expected 4 (the dimension set by the header on line 1)");
  const auto word = d.file("word.txt", "a 1 2\nb 1 x2\n");
  CHECK(error_of(word) == word + ":2: value 2 'x2' is not a number");
  CHECK(error_of(word, {"b"}) == word + ":2: value 2 'x2' is not a number");
  const auto nan = d.file("nan.txt", "a 1 nan\n");
  CHECK(error_of(nan) == nan + ":1: value 2 is nan; expected a finite number");
  CHECK(error_of(nan, {}) == nan + ":1: value 2 is nan; expected a finite number");  // sampled row
  const auto inf = d.file("inf.txt", "a -inf 1\n");
  CHECK(error_of(inf) == inf + ":1: value 1 is -inf; expected a finite number");
  const auto bare = d.file("bare.txt", "a 1 2\nb 3 4\n" + std::string(2000, 'c') + "\n");
  CHECK(error_of(bare).find(bare + ":3: token with no values") == 0);
  const auto huge = d.file("huge.txt", "a 1 1e50\n");
  CHECK(error_of(huge) == huge + ":1: value 2 '1e50' is outside the float range");
  const auto empty = d.file("empty.txt", "");
  CHECK(error_of(empty) == empty + ": is empty: expected rows of 'token v1 v2 ...'");
  const auto lies = d.file("lies.txt", "5 2\na 1 2\n");
  CHECK(error_of(lies) == lies + ":1: header says 5 rows but the file has 1");
  CHECK(error_of(d.path("missing.txt")).find("missing.txt: cannot open") != std::string::npos);
  CHECK(error_of(d.dir().string()) == d.dir().string() + ": is a folder, expected a file");
}

TEST_CASE("rows far from the first are checked too (shape and characters)") {
  temp_dir d;
  std::string s;
  for (int i = 0; i < 3000; ++i) s += "w" + std::to_string(i) + " 0.1 0.2\n";
  s += "late 0.1 zz\n";
  const auto p = d.file("late.txt", s);
  CHECK(error_of(p) == p + ":3001: value 2 'zz' is not a number");
}

TEST_CASE("the bundled sample file is real GloVe 50d") {
  const auto t =
      read_embeddings(std::string(ATTNVIZ_SAMPLES) + "/glove.6B.50d.sample.txt", {"the", "cat"});
  CHECK(t.dim == 50);
  CHECK(t.rows > 1000);
  REQUIRE(t.find("the"));
  // first value of "the" in glove.6B.50d.txt
  CHECK((*t.find("the"))[0] == doctest::Approx(0.418));
}
