// tokenizers/unigram.h: the Viterbi segmentation worked by hand on tiny vocabularies.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "error.h"
#include "tokenizers/unigram.h"

using namespace attnviz;

namespace {

sp_piece normal(std::string p, float s) { return {std::move(p), s, sp_piece_type::normal}; }
sp_piece typed(std::string p, sp_piece_type t) { return {std::move(p), 0.0f, t}; }

std::vector<std::string> pieces_of(const unigram_model& m, const std::string& text,
                                   std::vector<std::int64_t>* ids = nullptr) {
  std::vector<std::int64_t> got;
  std::vector<std::string> tokens;
  m.encode(text, got, tokens);
  if (ids) *ids = got;
  return tokens;
}

}  // namespace

TEST_CASE("the best sum of scores wins, not the longest first piece") {
  // "abc": a+b+c = -3, ab+c = -1.5 - 1 = -2.5, a+bc = -1 - 1 = -2 (best), abc absent
  const unigram_model m({typed("<unk>", sp_piece_type::unknown), normal("a", -1), normal("b", -1),
                         normal("c", -1), normal("ab", -1.5f), normal("bc", -1)},
                        false, "t.model");
  std::vector<std::int64_t> ids;
  CHECK(pieces_of(m, "abc", &ids) == std::vector<std::string>{"a", "bc"});
  CHECK(ids == std::vector<std::int64_t>{1, 5});
  // equal sums (-2 each): the last piece that starts earliest wins, "bc" at 1 over "c" at 2
  const unigram_model tie({typed("<unk>", sp_piece_type::unknown), normal("a", -1),
                           normal("b", -1), normal("c", -1), normal("ab", -1), normal("bc", -1)},
                          false, "t.model");
  CHECK(pieces_of(tie, "abc") == std::vector<std::string>{"a", "bc"});
}

TEST_CASE("unknown characters: a run is one <unk> token, or bytes under byte_fallback") {
  std::vector<sp_piece> pieces{typed("<unk>", sp_piece_type::unknown), normal("a", -1)};
  const unigram_model m(pieces, false, "t.model");
  std::vector<std::int64_t> ids;
  CHECK(pieces_of(m, "a\xc3\xa9\xc3\xa9" "a", &ids) ==
        std::vector<std::string>{"a", "\xc3\xa9\xc3\xa9", "a"});
  CHECK(ids == std::vector<std::int64_t>{1, 0, 1});
  for (unsigned b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    pieces.push_back(typed(name, sp_piece_type::byte));
  }
  const unigram_model bytes(pieces, true, "t.model");
  CHECK(pieces_of(bytes, "a\xc3\xa9", &ids) == std::vector<std::string>{"a", "<0xC3>", "<0xA9>"});
  CHECK(ids == std::vector<std::int64_t>{1, 2 + 0xc3, 2 + 0xa9});
  pieces.pop_back();  // <0xFF> missing
  CHECK_THROWS_WITH_AS(unigram_model(pieces, true, "t.model"),
                       doctest::Contains("<0xFF> is missing"), input_error);
}

TEST_CASE("user-defined pieces always win; unused pieces are never chosen") {
  // "ab" user-defined scores 2 bytes × max normal (-1) - 0.1 = -2.1 > a + b = -4
  const unigram_model m({typed("<unk>", sp_piece_type::unknown), normal("a", -2), normal("b", -2),
                         typed("ab", sp_piece_type::user_defined),
                         {"ba", 5.0f, sp_piece_type::unused}, normal("x", -1)},
                        false, "t.model");
  CHECK(pieces_of(m, "abba") == std::vector<std::string>{"ab", "b", "a"});
  CHECK(m.user_defined() == std::vector<std::string>{"ab"});
}

TEST_CASE("a broken vocabulary is refused naming the file") {
  CHECK_THROWS_WITH_AS(unigram_model({normal("a", -1)}, false, "t.model"),
                       doctest::Contains("t.model: has no unknown piece"), input_error);
  CHECK_THROWS_WITH_AS(unigram_model({typed("<unk>", sp_piece_type::unknown), normal("a", -1),
                                      normal("a", -2)},
                                     false, "t.model"),
                       doctest::Contains("piece 2 'a' repeats piece 1"), input_error);
  CHECK_THROWS_WITH_AS(unigram_model({typed("<unk>", sp_piece_type::unknown),
                                      typed("<0xZZ>", sp_piece_type::byte)},
                                     false, "t.model"),
                       doctest::Contains("not <0xNN>"), input_error);
}
