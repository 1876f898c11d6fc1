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

TEST_CASE("equal ranks merge leftmost first; a pair made by a merge joins the queue") {
  // "aaaaa": (a a) joins positions 0-1, then 2-3 (never 1-2: the left a is taken), leaving a;
  // then (aa aa) at rank 1 joins the two aa's
  const bpe_model m({{"a", 0}, {"aa", 1}, {"aaaa", 2}}, {{"a", "a"}, {"aa", "aa"}}, {});
  CHECK(tokens_of(m, "aaaaa") == std::vector<std::string>{"aaaa", "a"});
  CHECK(tokens_of(m, "aaa") == std::vector<std::string>{"aa", "a"});
  // a continuation prefix is dropped from the right symbol when it joins
  bpe_options o;
  o.continuing_subword_prefix = "##";
  const bpe_model p({{"a", 0}, {"##b", 1}, {"##c", 2}, {"ab", 3}, {"abc", 4}},
                    {{"a", "##b"}, {"ab", "##c"}}, o);
  CHECK(tokens_of(p, "abc") == std::vector<std::string>{"abc"});
}

TEST_CASE("a word of 200,000 characters: every merge that applies, in a single pass of the heap") {
  // "ab" repeated: (a b) joins every pair, then (ab ab) every pair of pairs, and so on up to
  // 8 copies; the token count checks that every merge happened (200,000 / 16 = 12,500)
  std::unordered_map<std::string, std::int64_t> vocab{{"a", 0}, {"b", 1}};
  std::vector<std::pair<std::string, std::string>> merges{{"a", "b"}};
  std::string unit = "ab";
  for (int k = 0; k < 3; ++k) {
    merges.emplace_back(unit, unit);
    unit += unit;
  }
  vocab.emplace("ab", 2), vocab.emplace("abab", 3), vocab.emplace("abababab", 4);
  vocab.emplace(unit, 5);
  std::string word;
  for (int k = 0; k < 100000; ++k) word += "ab";
  const auto tokens = tokens_of(bpe_model(vocab, merges, {}), word);
  CHECK(tokens.size() == 12500);
  CHECK(tokens.front() == unit);
  CHECK(tokens.back() == unit);
}
