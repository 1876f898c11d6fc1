// tokenizers/bpe.h: merges by rank, by hand.
#include <doctest/doctest.h>

#include "error.h"
#include "tokenizers/bpe.h"

using namespace attnviz;

namespace {

std::vector<std::string> tokens_of(const bpe_model& m, const std::string& word) {
  std::vector<std::int64_t> ids;
  std::vector<std::string> tokens;
  m.encode(word, ids, tokens);
  return tokens;
}

}  // namespace

TEST_CASE("the lowest-ranked pair merges first, everywhere it occurs") {
  // "aaab": rank 0 (a a) joins the first two a's, then rank 1 (aa b) does not apply (the third a
  // sits between), rank 2 (a b) joins "ab": aa + ab
  const bpe_model m({{"a", 0}, {"b", 1}, {"aa", 2}, {"ab", 3}, {"aab", 4}, {"aaab", 5}},
                    {{"a", "a"}, {"aa", "b"}, {"a", "b"}}, {});
  CHECK(tokens_of(m, "aaab") == std::vector<std::string>{"aa", "ab"});
  CHECK(tokens_of(m, "aab") == std::vector<std::string>{"aab"});  // a a -> aa, then aa b
  CHECK(tokens_of(m, "abab") == std::vector<std::string>{"ab", "ab"});
}

TEST_CASE("ignore_merges takes a word found whole; byte fallback spells the rest in bytes") {
  bpe_options o;
  o.ignore_merges = true;
  const bpe_model whole({{"x", 0}, {"y", 1}, {"xy", 2}}, {}, o);
  CHECK(tokens_of(whole, "xy") == std::vector<std::string>{"xy"});
  bpe_options f;
  f.byte_fallback = true;
  const bpe_model bytes({{"h", 0}, {"<0xC3>", 1}, {"<0xA9>", 2}}, {}, f);
  CHECK(tokens_of(bytes, "h\xC3\xA9") == std::vector<std::string>{"h", "<0xC3>", "<0xA9>"});
  const bpe_model none({{"h", 0}}, {}, {});
  CHECK_THROWS_AS(tokens_of(none, "hz"), input_error);
  bpe_options u;
  u.unk = "<unk>";
  const bpe_model unk({{"h", 0}, {"<unk>", 1}}, {}, u);
  CHECK(tokens_of(unk, "hz") == std::vector<std::string>{"h", "<unk>"});
}
