#include <doctest/doctest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "error.h"
#include "helpers.h"
#include "text/embeddings.h"

using namespace attnviz;
using attnviz::testing::temp_dir;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace embeddings_cases {

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

namespace {

// word2vec binary bytes, written here by hand: "count dim\n", then token ' ' float32 LE... '\n'.
std::string w2v_binary(const std::vector<std::pair<std::string, std::vector<float>>>& rows,
                       bool newline_after = true, std::size_t count = 0) {
  const std::size_t dim = rows.empty() ? 2 : rows[0].second.size();
  std::string s = std::to_string(count ? count : rows.size()) + " " + std::to_string(dim) + "\n";
  for (const auto& [token, v] : rows) {
    s += token + " ";
    for (float x : v) {
      std::uint32_t u;
      std::memcpy(&u, &x, 4);
      for (int b = 0; b < 4; ++b) s += static_cast<char>((u >> (8 * b)) & 0xff);
    }
    if (newline_after) s += "\n";
  }
  return s;
}

// gzip bytes of `plain`, through zlib's gz writer.
std::string gzip_file(temp_dir& d, const std::string& name, const std::string& plain) {
  const auto path = d.path(name);
  gzFile g = gzopen(path.c_str(), "wb");
  REQUIRE(g);
  REQUIRE(gzwrite(g, plain.data(), static_cast<unsigned>(plain.size())) ==
          static_cast<int>(plain.size()));
  gzclose(g);
  return path;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("word2vec binary files are detected and read, with or without newlines") {
  temp_dir d;
  const std::vector<std::pair<std::string, std::vector<float>>> rows = {
      {"the", {0.5f, -1.25f, 3.0f}}, {"cat", {-0.1f, 0.2f, 1e-3f}}, {"\xe6\x9c\xba", {7, 8, 9}}};
  for (bool nl : {true, false}) {
    INFO("newline after each vector: " << nl);
    const auto p = d.file(nl ? "a.bin" : "b.bin", w2v_binary(rows, nl));
    const auto t = read_embeddings(p, {"cat", "\xe6\x9c\xba", "dog"});
    CHECK(t.format == embedding_format::word2vec_binary);
    CHECK(t.dim == 3);
    CHECK(t.rows == 3);
    CHECK(t.complete);
    CHECK(t.vectors.size() == 2);
    CHECK(*t.find("cat") == rows[1].second);  // bit-exact: no text round trip
    CHECK(*t.find("\xe6\x9c\xba") == rows[2].second);
    const double want = (std::sqrt(0.25 + 1.5625 + 9.0) + std::sqrt(0.01 + 0.04 + 1e-6) +
                         std::sqrt(49.0 + 64.0 + 81.0)) /
                        3;
    CHECK(t.mean_norm == doctest::Approx(want).epsilon(1e-6));
  }
  // The same words as text give the same table.
  const auto text =
      read_embeddings(d.file("same.txt", "the 0.5 -1.25 3\ncat -0.1 0.2 0.001\n"), {"cat"});
  CHECK(text.format == embedding_format::text);
  const auto bin = read_embeddings(d.file("same.bin", w2v_binary({rows[0], rows[1]})), {"cat"});
  CHECK(*text.find("cat") == *bin.find("cat"));
}

TEST_CASE("a header followed by text rows is still text (fastText .vec)") {
  temp_dir d;
  const auto t = read_embeddings(d.file("f.vec", "2 3\n</s> 0.1 0.2 0.3\n, -1 -2 -3\n"), {","});
  CHECK(t.format == embedding_format::text);
  CHECK(*t.find(",") == std::vector<float>{-1, -2, -3});
}

TEST_CASE("word2vec binary errors give the byte offset and what was expected") {
  temp_dir d;
  const std::vector<std::pair<std::string, std::vector<float>>> rows = {{"a", {1, 2}},
                                                                        {"b", {-3, 4}}};
  const std::string good = w2v_binary(rows);  // "2 2\n" a ' ' 8 bytes '\n' b ' ' 8 bytes '\n'
  const auto cut = d.file("cut.bin", good.substr(0, good.size() - 4));
  CHECK(error_of(cut) == cut +
                             " (byte 17): the vector of word 2 ('b') is cut short: expected 8 "
                             "bytes (2 float32), the file ends after 5");
  const auto fewer = d.file("fewer.bin", w2v_binary(rows, true, 3));
  CHECK(error_of(fewer) ==
        fewer + " (byte 26): the header says 3 vectors but the file ends after 2");
  const auto more = d.file("more.bin", good + "c");
  CHECK(error_of(more) == more + " (byte 26): more data after the 2 vectors the header announces");
  const auto nan = d.file("nan.bin", w2v_binary({{"a", {1, std::nanf("")}}, rows[1]}));
  CHECK(error_of(nan) == nan + " (byte 10): value 2 of 'a' is NaN; expected a finite number");
  const auto bad_utf8 = d.file("utf8.bin", w2v_binary({{"\xff\xfe", {1, -2}}}));
  CHECK(error_of(bad_utf8) == bad_utf8 + " (byte 4): the token is not valid UTF-8");
  std::string no_space = w2v_binary({rows[0]}, true, 2);  // then a second "word" with no end
  for (int i = 0; i < 70000; ++i) no_space += static_cast<char>(0x80 + i % 3);
  const auto long_token = d.file("long.bin", no_space);
  CHECK(error_of(long_token).find("no space within 64 KiB") != std::string::npos);
}

TEST_CASE("gzip files are inflated while reading, text and binary alike") {
  temp_dir d;
  std::string text;
  for (int i = 0; i < 2500; ++i)
    text += "w" + std::to_string(i) + " " + std::to_string(i) + " -" + std::to_string(i) + ".5\n";
  const auto plain = read_embeddings(d.file("plain.txt", text), {"w7", "w2400"});
  const auto gz = read_embeddings(gzip_file(d, "g.txt.gz", text), {"w7", "w2400"});
  CHECK(gz.compressed);
  CHECK_FALSE(plain.compressed);
  CHECK(gz.rows == plain.rows);
  CHECK(gz.vectors == plain.vectors);
  CHECK(gz.mean_norm == plain.mean_norm);
  CHECK(*gz.find("w2400") == std::vector<float>{2400, -2400.5f});

  const std::string bin = w2v_binary({{"x", {1, 2}}, {"y", {3, -4}}});
  const auto gzbin = read_embeddings(gzip_file(d, "v.bin.gz", bin), {"y"});
  CHECK(gzbin.format == embedding_format::word2vec_binary);
  CHECK(*gzbin.find("y") == std::vector<float>{3, -4});

  // Truncated and corrupted compressed data are errors, not short tables.
  const std::string z = bytes_of(gzip_file(d, "whole.gz", text));
  const auto truncated = d.file("truncated.gz", z.substr(0, z.size() / 2));
  CHECK(error_of(truncated, {"nope"}).find("ends too early") != std::string::npos);
  std::string flipped = z;
  for (std::size_t i = 20; i < 60; ++i) flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  const auto corrupt = d.file("corrupt.gz", flipped);
  CHECK(error_of(corrupt, {"nope"}).find(corrupt) == 0);  // inflate or the parser objects
}

TEST_CASE("reading stops once every wanted token and the first 1000 rows are in") {
  temp_dir d;
  std::string s = "3002 2\n";
  for (int i = 0; i < 3000; ++i) s += "w" + std::to_string(i) + " 0.1 0.2\n";
  s += "broken 1\nlast 1 2\n";  // ragged, and the header's count is wrong: never reached
  const auto p = d.file("big.vec", s);
  const auto early = read_embeddings(p, {"w3", "w1500"});
  CHECK_FALSE(early.complete);
  CHECK(early.rows == 1501);
  CHECK(*early.find("w1500") == std::vector<float>{0.1f, 0.2f});
  const auto few = read_embeddings(p, {"w3"});
  CHECK(few.rows == 1000);  // the norm sample
  const auto vocab = read_embeddings(p, {"w3"}, 2000);
  CHECK(vocab.rows == 2000);
  CHECK(vocab.vectors.size() == 2000);
  // Past the first 1 MiB chunk, nothing more is read.
  std::string wide;
  for (int i = 0; i < 5000; ++i) {
    wide += "v" + std::to_string(i);
    for (int k = 0; k < 100; ++k) wide += " 0.25";
    wide += "\n";
  }
  const auto w = read_embeddings(d.file("wide.txt", wide), {"v10"});
  CHECK(w.rows == 1000);
  CHECK(w.bytes_read == (std::size_t{1} << 20));
  CHECK(wide.size() > w.bytes_read + 200000);
  // A token the file lacks makes it read everything, and the broken row is reported.
  CHECK(error_of(p, {"w3", "absent"}) == p + ":3002: 1 values, expected 2 (the dimension set "
                                             "by the header on line 1)");
  // Binary likewise: stopping early skips the bytes after the last needed vector.
  std::vector<std::pair<std::string, std::vector<float>>> rows;
  for (int i = 0; i < 1200; ++i)
    rows.push_back({"b" + std::to_string(i), {static_cast<float>(i), -1.0f}});
  const auto b = d.file("big.bin", w2v_binary(rows) + "trailing junk");
  const auto bin = read_embeddings(b, {"b1100"});
  CHECK_FALSE(bin.complete);
  CHECK(bin.rows == 1101);
  CHECK(*bin.find("b1100") == std::vector<float>{1100, -1});
}

TEST_CASE("a word2vec header with an absurd dimension is refused before any allocation") {
  temp_dir d;
  std::string s = "5 34444444444444\n";
  s += std::string("ab \x01\x00\x00\x01", 7);
  const auto p = d.file("absurd.bin", s);
  CHECK(error_of(p) == p + ":1: header 'count dim' has dimension 34444444444444, more than "
                           "1048576; is this a word2vec binary file?");
}

TEST_CASE("long skipped rows: fields counted and characters checked across 16-byte blocks") {
  temp_dir d;
  const auto row = [](int i, int values, const std::string& odd_value, int odd_at) {
    std::string r = "w" + std::to_string(i);
    for (int k = 0; k < values; ++k) {
      r += k % 3 == 0 ? "\t" : k % 3 == 1 ? " " : " \t  ";  // separators of 1 to 4 bytes
      r += k == odd_at ? odd_value : "-0.12345e-1";
    }
    return r + "\n";
  };
  std::string good;
  for (int i = 0; i < 1100; ++i) good += row(i, 40, "", -1);
  const auto ok = read_embeddings(d.file("ok.txt", good), {"absent"});
  CHECK(ok.rows == 1100);
  CHECK(ok.dim == 40);
  std::string bad_char = good + row(1100, 40, "0.25x", 33) + good;
  const auto p1 = d.file("bad_char.txt", bad_char);
  CHECK(error_of(p1) == p1 + ":1101: value 34 '0.25x' is not a number");
  std::string ragged = good + row(1100, 39, "", -1);
  const auto p2 = d.file("ragged_long.txt", ragged);
  CHECK(error_of(p2) == p2 + ":1101: 39 values, expected 40 (the dimension set by line 1)");
  std::string trailing = good + row(1100, 40, "", -1);
  trailing.insert(trailing.size() - 1, " \t ");  // trailing separators are not a field
  CHECK(read_embeddings(d.file("trailing.txt", trailing), {"absent"}).rows == 1101);
}

}  // namespace embeddings_cases
