// tokenizers/wordpiece.h: BERT's normalizer, pre-tokenizer and WordPiece, by hand.
#include <doctest/doctest.h>

#include "error.h"
#include "tokenizers/wordpiece.h"

using namespace attnviz;

TEST_CASE("BertNormalizer: controls dropped, CJK spaced, accents stripped, lowercased") {
  bert_normalizer_options o;
  CHECK(bert_normalize("Caf\xC3\xA9\tOK\x01", o) == "cafe ok");
  CHECK(bert_normalize("\xE4\xB8\xAD\xE6\x96\x87", o) == " \xE4\xB8\xAD  \xE6\x96\x87 ");
  o.lowercase = false;  // strip_accents follows lowercase unless set
  CHECK(bert_normalize("Caf\xC3\xA9", o) == "Caf\xC3\xA9");
  o.strip_accents = true;
  CHECK(bert_normalize("Caf\xC3\xA9", o) == "Cafe");
}

TEST_CASE("BertPreTokenizer: whitespace goes, punctuation stands alone") {
  CHECK(bert_pre_tokenize("it's ok,no?  x") ==
        std::vector<std::string>{"it", "'", "s", "ok", ",", "no", "?", "x"});
  CHECK(bert_pre_tokenize("a\xE2\x80\x94" "b") ==  // an em dash (Unicode Pd)
        std::vector<std::string>{"a", "\xE2\x80\x94", "b"});
}

TEST_CASE("WordPiece: longest match first, ## pieces, [UNK] for a word with no split") {
  const wordpiece_model m({{"[UNK]", 0}, {"un", 1}, {"##aff", 2}, {"##able", 3}, {"u", 4},
                           {"##n", 5}, {"##a", 6}},
                          "[UNK]", "##", 10);
  encoding e;
  m.encode("unaffable", e);
  CHECK(e.tokens == std::vector<std::string>{"un", "##aff", "##able"});
  CHECK(e.ids == std::vector<std::int64_t>{1, 2, 3});
  encoding u;
  m.encode("unx", u);  // no piece for "x": the whole word is unknown
  CHECK(u.tokens == std::vector<std::string>{"[UNK]"});
  encoding l;
  m.encode("unaffableun", l);  // 11 characters > 10
  CHECK(l.tokens == std::vector<std::string>{"[UNK]"});
}
