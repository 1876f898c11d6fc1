// --cache: the cached table equals read_embeddings' for the same request; a changed, cut or
// foreign cache file is rebuilt; errors stay the source's.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

#include "error.h"
#include "helpers.h"
#include "text/embedding_cache.h"

using namespace attnviz;
using attnviz::testing::temp_dir;
namespace fs = std::filesystem;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace embedding_cache_cases {

namespace {

// 1500 rows "w<i> v v v" (a duplicate of w3 at row 1200), values from i.
std::string text_rows(float shift = 0.0f) {
  std::string s;
  for (int i = 0; i < 1500; ++i) {
    const int id = i == 1200 ? 3 : i;
    s += "w" + std::to_string(id);
    for (int k = 0; k < 3; ++k) s += " " + std::to_string(0.001f * static_cast<float>(i * 3 + k) + shift);
    s += "\n";
  }
  return s;
}

void check_same(const embedding_table& got, const embedding_table& want) {
  CHECK(got.dim == want.dim);
  CHECK(got.mean_norm == want.mean_norm);
  CHECK(got.format == want.format);
  CHECK(got.compressed == want.compressed);
  REQUIRE(got.vectors.size() == want.vectors.size());
  for (const auto& [token, v] : want.vectors) {
    INFO(token);
    REQUIRE(got.find(token));
    CHECK(*got.find(token) == v);  // bit for bit
  }
}

}  // namespace

TEST_CASE("cache: the same vectors as reading the file, then answered without reading it") {
  temp_dir d;
  const std::string src = d.file("vec.txt", text_rows());
  const std::string dir = d.path("cache");
  const std::unordered_set<std::string> wanted{"w3", "w1499", "w7", "missing"};
  cache_use use;
  const embedding_table built = read_embeddings_cached(src, wanted, 0, dir, &use);
  CHECK(use.built);
  CHECK(fs::exists(use.path));
  check_same(built, read_embeddings(src, wanted));
  CHECK((*built.find("w3"))[0] == doctest::Approx(0.009));  // the first w3 row wins
  CHECK(built.rows == 1500);

  const embedding_table again = read_embeddings_cached(src, wanted, 0, dir, &use);
  CHECK_FALSE(use.built);
  check_same(again, built);
  CHECK(again.bytes_read == 0);
  // keep_first: the first rows too, as read_embeddings keeps them
  check_same(read_embeddings_cached(src, {"w1400"}, 50, dir, &use),
             read_embeddings(src, {"w1400"}, 50));
  CHECK_FALSE(use.built);
}

TEST_CASE("cache: a changed source, a cut or a foreign cache file is rebuilt") {
  temp_dir d;
  const std::string src = d.file("vec.txt", text_rows());
  const std::string dir = d.path("c");
  cache_use use;
  read_embeddings_cached(src, {"w5"}, 0, dir, &use);
  REQUIRE(use.built);
  // the same size, new values, a later modification time
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string changed = text_rows(0.5f);
  REQUIRE(changed.size() == text_rows().size());
  d.file("vec.txt", changed);
  const embedding_table t = read_embeddings_cached(src, {"w5"}, 0, dir, &use);
  CHECK(use.built);
  check_same(t, read_embeddings(src, {"w5"}));

  for (const std::string& broken :
       {std::string("ATTNVIZC"), std::string(5000, 'x'), std::string()}) {
    std::ofstream(use.path, std::ios::binary | std::ios::trunc) << broken;
    check_same(read_embeddings_cached(src, {"w5"}, 0, dir, &use), read_embeddings(src, {"w5"}));
    CHECK(use.built);
  }
  // cut short: rebuilt, never read past its end
  const auto size = fs::file_size(use.path);
  fs::resize_file(use.path, size - 7);
  check_same(read_embeddings_cached(src, {"w5"}, 0, dir, &use), read_embeddings(src, {"w5"}));
  CHECK(use.built);
  CHECK(fs::file_size(use.path) == size);
}

TEST_CASE("cache: a hostile copy (every bucket full, a NaN vector) is rebuilt, never trusted") {
  temp_dir d;
  const std::string src = d.file("vec.txt", text_rows());
  const std::string dir = d.path("c");
  cache_use use;
  const embedding_table want = read_embeddings(src, {"w9", "absent"});
  read_embeddings_cached(src, {"w9"}, 0, dir, &use);
  const auto size = fs::file_size(use.path);
  std::string bytes(size, '\0');
  std::ifstream(use.path, std::ios::binary).read(bytes.data(), static_cast<long>(size));
  std::uint64_t buckets = 0;
  std::memcpy(&buckets, bytes.data() + 64, 8);
  // every bucket names entry 1: a missing token would be probed for ever
  std::string full = bytes;
  for (std::uint64_t b = 0; b < buckets; ++b) {
    const std::uint32_t one = 1;
    std::memcpy(full.data() + size - 4 * buckets + 4 * b, &one, 4);
  }
  std::ofstream(use.path, std::ios::binary | std::ios::trunc) << full;
  check_same(read_embeddings_cached(src, {"w9", "absent"}, 0, dir, &use), want);
  CHECK(use.built);  // no hang, and no wrong answer: rebuilt
  // a NaN in the vectors (the first entry's first value)
  std::string nan_copy = bytes;
  std::uint32_t path_len = 0;
  std::memcpy(&path_len, bytes.data() + 72, 4);
  const std::size_t vec_at = (76 + path_len + 63) / 64 * 64;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan_copy.data() + vec_at, &nan, 4);
  std::ofstream(use.path, std::ios::binary | std::ios::trunc) << nan_copy;
  check_same(read_embeddings_cached(src, {"w0"}, 0, dir, &use), read_embeddings(src, {"w0"}));
  CHECK(use.built);
}

TEST_CASE("cache: word2vec binary and gzip sources; errors stay the source's") {
  temp_dir d;
  std::string bin = "3 2\n";
  const float v[6] = {1, 2, 3, 4, 5, 6};
  const char* words[3] = {"a", "b", "c"};
  for (int i = 0; i < 3; ++i) {
    bin += std::string(words[i]) + " ";
    bin.append(reinterpret_cast<const char*>(v + 2 * i), 8);
  }
  const std::string src = d.file("v.bin", bin);
  const std::string dir = d.path("c");
  check_same(read_embeddings_cached(src, {"b", "c"}, 0, dir), read_embeddings(src, {"b", "c"}));
  CHECK(read_embeddings_cached(src, {"b"}, 0, dir).format == embedding_format::word2vec_binary);

  const std::string bad = d.file("bad.txt", "a 1 2\nb 3\n");
  CHECK_THROWS_WITH_AS(read_embeddings_cached(bad, {"a"}, 0, dir), doctest::Contains("bad.txt:2"),
                       input_error);
  CHECK_THROWS_AS(read_embeddings_cached(d.file("empty.txt", ""), {"a"}, 0, dir), input_error);
  CHECK_THROWS_AS(read_embeddings_cached(d.path("none.txt"), {"a"}, 0, dir), input_error);
  // a cache folder that cannot be made
  const std::string file = d.file("plain", "x");
  CHECK_THROWS_AS(read_embeddings_cached(src, {"a"}, 0, file + "/sub"), usage_error);
}

}  // namespace embedding_cache_cases
