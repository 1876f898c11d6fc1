#include <doctest/doctest.h>

#include "error.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

using namespace attnviz;
using v = std::vector<std::string>;

namespace {
v tok(const std::string& s, bool keep_case = false) {
  return tokenize(s, {keep_case}, "--text");
}
}  // namespace

TEST_CASE("whitespace and punctuation split; words are lower-cased") {
  CHECK(tok("The cat sat on the floor.") == v{"the", "cat", "sat", "on", "the", "floor", "."});
  CHECK(tok("  Hello,\tworld!\n") == v{"hello", ",", "world", "!"});
  CHECK(tok("Hello, World", true) == v{"Hello", ",", "World"});
  CHECK(tok("state-of-the-art") == v{"state", "-", "of", "-", "the", "-", "art"});
}

TEST_CASE("clitics split as in GloVe's vocabulary; numbers keep their points and commas") {
  CHECK(tok("It's here, don't go") == v{"it", "'s", "here", ",", "do", "n't", "go"});
  CHECK(tok("didn’t") == v{"did", "n't"});
  CHECK(tok("pi is 3.14, not 1,000.") == v{"pi", "is", "3.14", ",", "not", "1,000", "."});
  CHECK(tok("wait... what?!") == v{"wait", "...", "what", "?", "!"});
  CHECK(tok("'quoted'") == v{"'", "quoted", "'"});
}

TEST_CASE("UTF-8 aware: every CJK character is a token, accents and other scripts stay words") {
  CHECK(tok("机器学习很有趣") == v{"机", "器", "学", "习", "很", "有", "趣"});
  CHECK(tok("I love 机器学习!") == v{"i", "love", "机", "器", "学", "习", "!"});
}

TEST_CASE("spaced Chinese keeps the user's words, and only unspaced text warns") {
  CHECK(tok("我 爱 机器 学习") == v{"我", "爱", "机器", "学习"});
  CHECK(tok("我爱 机器学习。") == v{"我爱", "机器学习", "。"});  // punctuation still splits
  CHECK(tok("hello 机器\u3000学习") == v{"hello", "机器", "学习"});  // ideographic space
  CHECK_FALSE(attnviz::splits_cjk_runs("我 爱 机器 学习"));
  CHECK(attnviz::splits_cjk_runs("我爱机器学习"));
  CHECK(attnviz::splits_cjk_runs("I love 机器学习"));  // no space between CJK words
  CHECK_FALSE(attnviz::splits_cjk_runs("我 love 你"));  // no run of two to split
  CHECK(tok("Café ÉCOLE Straße") == v{"café", "école", "straße"});
  CHECK(tok("ΑΘΗΝΑ Москва") == v{"αθηνα", "москва"});
  CHECK(tok("東京、大阪。") == v{"東", "京", "、", "大", "阪", "。"});
  CHECK(tok("カタカナ") == v{"カ", "タ", "カ", "ナ"});
  CHECK(tok("a\u00a0b\u3000c") == v{"a", "b", "c"});  // NBSP and ideographic space
}

TEST_CASE("control characters separate and never appear in tokens") {
  CHECK(tok("a\x01"
            "b\x7f"
            "c") == v{"a", "b", "c"});
  CHECK(tok("zero\u200bwidth") == v{"zero", "width"});
  CHECK(tok(" \t\r\n").empty());
  CHECK(tok("").empty());
}

TEST_CASE("invalid UTF-8 is an input error with the byte offset") {
  CHECK_THROWS_AS(tok("ok \xff bad"), input_error);
  CHECK_THROWS_WITH(tok("ok \xff bad"),
                    "--text (byte 3): invalid UTF-8 (byte 0xff); expected UTF-8 text");
  CHECK_THROWS(tok("\xe6\x9c"));      // truncated 3-byte sequence
  CHECK_THROWS(tok("\xc0\xaf"));      // overlong '/'
  CHECK_THROWS(tok("\xed\xa0\x80"));  // surrogate
}

TEST_CASE("--tokens keeps the given tokens as they are") {
  CHECK(split_pretokenized("The  cat's ##ing 机器", "--tokens") ==
        v{"The", "cat's", "##ing", "机器"});
}

TEST_CASE("lower_case follows the tokenizer's rules") {
  CHECK(lower_case("ÀÉÎ Ŋ İ ΣΩ Ж") == "àéî ŋ i σω ж");
}
