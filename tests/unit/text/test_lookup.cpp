#include <doctest/doctest.h>

#include <cmath>

#include "error.h"
#include "helpers.h"
#include "text/lookup.h"

using namespace attnviz;

namespace {
embedding_table table() {
  embedding_table t;
  t.source = "vec.txt";
  t.dim = 3;
  t.vectors = {{"cat", {1, 0, 0}}, {"dog", {0, 1, 0}}};
  t.mean_norm = 2.0;
  return t;
}
}  // namespace

TEST_CASE("known tokens get their vectors; upper case falls back to lower case") {
  const auto e = embed_tokens({"cat", "Dog"}, table(), oov_policy::hash);
  CHECK(e.oov_tokens.empty());
  CHECK(e.vectors(0, 0) == 1.0f);
  CHECK(e.vectors(1, 1) == 1.0f);
}

TEST_CASE("hash: the same OOV token always gets the same vector, with the file's mean norm") {
  const auto a = embed_tokens({"zebra", "cat", "zebra", "yak"}, table(), oov_policy::hash);
  CHECK(a.oov_tokens == std::vector<std::string>{"zebra", "yak"});
  for (std::size_t c = 0; c < 3; ++c) CHECK(a.vectors(0, c) == a.vectors(2, c));
  CHECK(l2_norm(a.vectors.row(0), 3) == doctest::Approx(2.0).epsilon(1e-6));
  CHECK(l2_norm(a.vectors.row(3), 3) == doctest::Approx(2.0).epsilon(1e-6));
  CHECK(a.vectors(0, 0) != a.vectors(3, 0));
  const auto b = embed_tokens({"yak"}, table(), oov_policy::hash);
  for (std::size_t c = 0; c < 3; ++c) CHECK(b.vectors(0, c) == a.vectors(3, c));
}

TEST_CASE("zero gives zero vectors; error lists every OOV token") {
  const auto z = embed_tokens({"zebra", "cat"}, table(), oov_policy::zero);
  CHECK(l2_norm(z.vectors.row(0), 3) == 0.0);
  CHECK_THROWS_WITH_AS(embed_tokens({"zebra", "cat", "yak"}, table(), oov_policy::error),
                       "vec.txt: 2 token(s) not in the vocabulary: zebra, yak (use oov hash or "
                       "oov zero to go on)",
                       input_error);
}

TEST_CASE("add_wanted asks for each token and its lower-case form") {
  std::unordered_set<std::string> w;
  add_wanted(w, {"The", "cat"});
  CHECK(w == std::unordered_set<std::string>{"The", "the", "cat"});
}
