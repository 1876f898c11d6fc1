// tokenizers/token_display.h: tokens as figures show them, by hand for each tokenizer's spelling.
#include <doctest/doctest.h>

#include "tokenizers/token_display.h"

using namespace attnviz;
using v = std::vector<std::string>;

TEST_CASE("byte-level BPE: the alphabet decoded, spaces and breaks made visible") {
  // Ġ = U+0120 (space), Ċ = U+010A (line feed), ĉ = U+0109 (tab)
  const v gpt2{"And", "\xC4\xA0God", "\xC4\x8A", "\xC4\x89x", "\xC4\xA0\xC4\xA0"};
  CHECK(is_byte_level_sequence(gpt2));
  CHECK(display_tokens(gpt2) == v{"And", "\u00B7God", "\u23CE", "\u21E5x", "\u00B7\u00B7"});
  // 机 (E6 9C BA) split over two tokens: æľ (E6 9C) and º (BA) — bytes, not a wrong letter
  const v split{"\xC3\xA6\xC4\xBE", "\xC2\xBA", "\xC4\xA0" "a"};
  CHECK(display_tokens(split) == v{"<0xE6><0x9C>", "<0xBA>", "\u00B7a"});
  // the whole character in one token: "机"
  CHECK(display_tokens(v{"\xC3\xA6\xC4\xBE\xC2\xBA", "\xC4\xA0"}) == v{"\xE6\x9C\xBA", "\u00B7"});
  // special tokens are spelled in the alphabet and stay as they are
  CHECK(display_tokens(v{"<|endoftext|>", "\xC4\xA0hi"}) == v{"<|endoftext|>", "\u00B7hi"});
}

TEST_CASE("SentencePiece: the space mark and the byte fallback") {
  const v sp{"\xE2\x96\x81the", "\xE2\x96\x81", "<0x0A>", "<0x41>", "caf\xC3\xA9"};
  CHECK_FALSE(is_byte_level_sequence(sp));  // é is in the alphabet, ▁ is not
  CHECK(display_tokens(sp) == v{"\u00B7the", "\u00B7", "\u23CE", "<0x41>", "caf\xC3\xA9"});
}

TEST_CASE("WordPiece, plain words and accented text are left alone") {
  const v wp{"[CLS]", "play", "##ing", "caf\xC3\xA9", "[SEP]"};
  CHECK_FALSE(is_byte_level_sequence(wp));
  CHECK(display_tokens(wp) == wp);
  // no stand-in character anywhere: not byte-level, even though every character is in the
  // alphabet (é is byte 0xE9 there)
  CHECK_FALSE(is_byte_level_sequence(v{"caf\xC3\xA9"}));
  // Polish ł (U+0142) is a stand-in code point, but ź (U+017A) is outside the alphabet
  CHECK_FALSE(is_byte_level_sequence(v{"\xC5\x82\xC3\xB3" "d\xC5\xBA"}));
}
