// --merge-subwords: which pieces make a word, and the merged maps against hand-computed values.
#include <doctest/doctest.h>

#include "analysis/subwords.h"
#include "helpers.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t end = s.find(' ', pos);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::vector<std::size_t> starts(const std::string& s) {
  return group_subwords(split(s)).starts;
}
std::vector<std::string> words(const std::string& s) {
  return group_subwords(split(s)).words;
}

}  // namespace

TEST_CASE("pieces into words: WordPiece, SentencePiece, byte-level BPE, special tokens") {
  // WordPiece: ## continues; unmarked pieces are words
  CHECK(words("[CLS] the play ##ing ##s cat [SEP]") ==
        std::vector<std::string>{"[CLS]", "the", "playings", "cat", "[SEP]"});
  CHECK(starts("[CLS] the play ##ing ##s cat [SEP]") == std::vector<std::size_t>{0, 1, 2, 5, 6, 7});
  // SentencePiece: ▁ starts a word, an unmarked piece continues
  CHECK(words("▁the ▁play ing s ▁cat </s>") ==
        std::vector<std::string>{"the", "playings", "cat", "</s>"});
  // GPT-2: Ġ starts a word; the first word has no mark
  CHECK(words("The Ġplay ing Ġcat") == std::vector<std::string>{"The", "playing", "cat"});
  // a continuing piece first, or right after a special token, is a word of its own
  CHECK(words("##ing the") == std::vector<std::string>{"ing", "the"});
  CHECK(words("[CLS] ##ing") == std::vector<std::string>{"[CLS]", "ing"});
  CHECK(words("<s> ing ▁cat") == std::vector<std::string>{"<s>", "ing", "cat"});
  // no marks at all: every token stays a word (## alone is not a mark)
  CHECK(words("the cat sat") == std::vector<std::string>{"the", "cat", "sat"});
  // ▁ alone starts a word the next pieces continue, as SentencePiece writes a piece it has no
  // ▁-joined form of ("▁" "¶"); left alone at the end it stays "▁"
  CHECK(words("▁ ¶ ▁The n ▁return ▁ from ▁") ==
        std::vector<std::string>{"¶", "Then", "return", "from", "▁"});
  CHECK(words("## ▁ x") == std::vector<std::string>{"##", "x"});
  CHECK(strip_subword_mark("##ing") == "ing");
  CHECK(strip_subword_mark("▁the") == "the");
  CHECK(strip_subword_mark("Ġthe") == "the");
  CHECK(strip_subword_mark("the") == "the");
  CHECK(pieces_of_words(split("a b ##c")) ==
        std::vector<std::vector<std::string>>{{"a"}, {"b", "##c"}});
}

TEST_CASE("merged maps: sum over key pieces, mean over query pieces, by hand") {
  // self-attention over "go play ##ing": words go = {0}, playing = {1, 2}
  attention_result r;
  r.structure = attention_structure::self;
  r.query_tokens = r.key_tokens = {"go", "play", "##ing"};
  head_result h;
  h.weights = mat(3, 3,
                  {0.5f, 0.25f, 0.25f,  //
                   0.0f, 0.6f, 0.4f,    //
                   0.2f, 0.2f, 0.6f});
  h.scores = mat(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  h.context = mat(3, 2, {1, 2, 3, 4, 5, 6});
  h.masked = {false, false, false, true, false, false, false, false, false};
  h.masked_rows = {false, false, false};
  r.heads.push_back(h);
  r.output = mat(3, 1, {1, 2, 4});
  const attention_result m = merge_subwords(r);
  CHECK(m.query_tokens == std::vector<std::string>{"go", "playing"});
  CHECK(m.key_tokens == m.query_tokens);
  const head_result& w = m.heads[0];
  // row go: [0.5, 0.25 + 0.25]; row playing: mean of [0, 1.0] and [0.2, 0.8]
  check_close(w.weights, {0.5, 0.5, 0.1, 0.9});
  // scores: block means: [1, (2+3)/2; (4+7)/2, (5+6+8+9)/4]
  check_close(w.scores, {1, 2.5, 5.5, 7});
  check_close(w.context, {1, 2, 4, 5});
  check_close(m.output, {1, 3});
  // masked only where every piece cell is: (playing, go) has the unmasked (##ing, go)
  CHECK(w.masked == std::vector<bool>{false, false, false, false});
  r.heads[0].masked = {false, false, false, true, false, false, true, false, false};
  r.heads[0].weights(2, 0) = 0.0f, r.heads[0].weights(2, 1) = 0.4f;
  const attention_result m2 = merge_subwords(r);
  const head_result& w2 = m2.heads[0];
  CHECK(w2.masked == std::vector<bool>{false, false, true, false});
  CHECK(w2.weights(1, 0) == 0.0f);  // exactly 0
}

TEST_CASE("merged maps: cross attention, hard choices, rows still sum to 1") {
  attention_result r;
  r.structure = attention_structure::cross;
  r.query_tokens = {"▁wh", "at", "▁is"};
  r.key_tokens = {"▁c", "at", "▁sat", "▁on"};
  head_result h;
  h.weights = testing::random_matrix(3, 4, 3);
  for (std::size_t i = 0; i < 3; ++i) {  // make rows distributions
    double sum = 0;
    for (std::size_t j = 0; j < 4; ++j) sum += h.weights(i, j) = std::fabs(h.weights(i, j));
    for (std::size_t j = 0; j < 4; ++j) h.weights(i, j) = static_cast<float>(h.weights(i, j) / sum);
  }
  h.context = testing::random_matrix(3, 5, 4);
  h.chosen_keys = {1, 3, 2};
  r.heads = {h, h};
  const attention_result m = merge_subwords(r);
  CHECK(m.query_tokens == std::vector<std::string>{"what", "is"});
  CHECK(m.key_tokens == std::vector<std::string>{"cat", "sat", "on"});
  for (const auto& head : m.heads) {
    REQUIRE(head.weights.rows() == 2);
    REQUIRE(head.weights.cols() == 3);
    for (std::size_t I = 0; I < 2; ++I) {
      double sum = 0;
      for (std::size_t J = 0; J < 3; ++J) sum += head.weights(I, J);
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
    }
    // the first piece's choice, as a word: "at" (key 1) is in "cat" (word 0); "▁sat" -> 1
    CHECK(head.chosen_keys == std::vector<int>{0, 1});
    CHECK(head.scores.empty());
  }
}
