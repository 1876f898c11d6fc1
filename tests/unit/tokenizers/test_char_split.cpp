// tokenizers/char_split.h: the character-class pre-tokenizers (Whitespace, WhitespaceSplit,
// Punctuation, Digits) by hand, with the Unicode meaning of Hugging Face's Rust library; and the
// same components read from a tokenizer.json.
#include <doctest/doctest.h>

#include "error.h"
#include "helpers.h"
#include "tokenizers/char_split.h"
#include "tokenizers/model_tokenizer.h"

using namespace attnviz;
using split_pieces = std::vector<std::string>;

TEST_CASE("Whitespace: word runs and symbol runs, whitespace dropped, Unicode words whole") {
  CHECK(whitespace_pieces("Hey friend!  How are you?!?") ==
        split_pieces{"Hey", "friend", "!", "How", "are", "you", "?!?"});
  CHECK(whitespace_pieces("snake_case x2 $5.00") ==
        split_pieces{"snake_case", "x2", "$", "5", ".", "00"});
  // letters with accents (precomposed and combining), CJK, and a no-break space
  CHECK(whitespace_pieces("caf\xC3\xA9 cafe\xCC\x81\xC2\xA0\xE4\xB8\xAD\xE6\x96\x87,ok") ==
        split_pieces{"caf\xC3\xA9", "cafe\xCC\x81", "\xE4\xB8\xAD\xE6\x96\x87", ",", "ok"});
  CHECK(whitespace_pieces(" \t\n ").empty());
}

TEST_CASE("WhitespaceSplit: only White_Space separates") {
  CHECK(whitespace_split("  it's  a\u3000test!\n") == split_pieces{"it's", "a", "test!"});
  CHECK(whitespace_split("").empty());
}

TEST_CASE("Punctuation: each punctuation character alone, the rest in runs") {
  CHECK(punctuation_split("Hey!! you, there\xE2\x80\x94ok") ==
        split_pieces{"Hey", "!", "!", " you", ",", " there", "\xE2\x80\x94", "ok"});
  CHECK(punctuation_split("$5") == split_pieces{"$", "5"});  // ASCII symbols count as punctuation
}

TEST_CASE("Digits: runs of numerals, or each one; Unicode digits too") {
  CHECK(digits_split("Call 911 or 1-2", false) ==
        split_pieces{"Call ", "911", " or ", "1", "-", "2"});
  CHECK(digits_split("ab123", true) == split_pieces{"ab", "1", "2", "3"});
  CHECK(digits_split("x\xD9\xA3\xD9\xA4y", false) ==
        split_pieces{"x", "\xD9\xA3\xD9\xA4", "y"});  // Arabic-Indic
}

namespace {

// A WordPiece tokenizer.json over a tiny vocabulary with this pre-tokenizer.
std::string tokenizer_json(const std::string& pre) {
  return R"({"version":"1.0","added_tokens":[],"normalizer":null,"pre_tokenizer":)" + pre +
         R"(,"post_processor":null,"decoder":null,"model":{"type":"WordPiece","unk_token":"[UNK]",)"
         R"("continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":{"[UNK]":0,)"
         R"("hello":1,"!":2,"world":3,"1":4,"2":5,"12":6,",":7,"hello,":8}}})";
}

encoding encode_with(const std::string& pre, const std::string& text) {
  attnviz::testing::temp_dir dir;
  dir.file("tokenizer.json", tokenizer_json(pre));
  return load_model_tokenizer(dir.dir().string())->encode(text);
}

}  // namespace

TEST_CASE("the character-class pre-tokenizers read from tokenizer.json, alone and in a Sequence") {
  CHECK(encode_with(R"({"type":"Whitespace"})", "hello  world!").ids ==
        std::vector<std::int64_t>{1, 3, 2});
  CHECK(encode_with(R"({"type":"WhitespaceSplit"})", "hello, world").ids ==
        std::vector<std::int64_t>{8, 3});
  CHECK(encode_with(R"({"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},)"
                    R"({"type":"Punctuation","behavior":"Isolated"}]})",
                    "hello, world!")
            .ids == std::vector<std::int64_t>{1, 7, 3, 2});
  CHECK(encode_with(R"({"type":"Digits","individual_digits":true})", "12").ids ==
        std::vector<std::int64_t>{4, 5});
  CHECK(encode_with(R"({"type":"Digits","individual_digits":false})", "12").ids ==
        std::vector<std::int64_t>{6});
  CHECK_THROWS_AS(encode_with(R"({"type":"Punctuation","behavior":"Removed"})", "x"), input_error);
}

// An empty replacement once made splitting look for "" at the same place forever (found by
// fuzz_model_files): now the file's error, naming the key.
TEST_CASE("a Metaspace whose replacement is empty is the file's error, with its JSON path") {
  try {
    encode_with(R"({"type":"Metaspace","replacement":"","split":true})", "hello world");
    FAIL("no error");
  } catch (const input_error& e) {
    const std::string what = e.what();
    CHECK(what.find("tokenizer.json") != std::string::npos);
    CHECK(what.find("pre_tokenizer.replacement") != std::string::npos);
  }
  CHECK(encode_with(R"({"type":"Metaspace","replacement":"!","split":false})", "hello").ids ==
        std::vector<std::int64_t>{0});
}

TEST_CASE("a Split regex that does not compile is the file's error, with its JSON path") {
  try {
    encode_with(R"x({"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"a)"},)x"
                R"x("behavior":"Isolated","invert":false}]})x",
                "x");
    FAIL("no error");
  } catch (const input_error& e) {
    const std::string what = e.what();
    CHECK(what.find("tokenizer.json") != std::string::npos);
    CHECK(what.find("pre_tokenizer.pretokenizers[0].pattern.Regex") != std::string::npos);
  }
}
