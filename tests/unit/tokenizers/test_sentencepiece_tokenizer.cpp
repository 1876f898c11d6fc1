// tokenizers/sentencepiece_tokenizer.h (with sentencepiece_file, sp_normalizer and unigram):
// four model files trained by Debian's python3-sentencepiece and the ids it gives for 61 texts
// each (tests/data/make_sentencepiece_fixtures.py): ids and pieces equal.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "error.h"
#include "io/file_io.h"
#include "tokenizers/model_tokenizer.h"
#include "tokenizers/sentencepiece_tokenizer.h"
#include "tokenizers/sp_normalizer.h"

using namespace attnviz;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace sentencepiece_tokenizer_cases {

namespace {

const std::string folder = std::string(ATTNVIZ_TEST_DATA) + "/tokenizers/spm/";

void check_fixture(const std::string& name) {
  const std::string path = folder + name + ".model";
  const auto expected = nlohmann::json::parse(read_whole_file(folder + name + ".ids.json"));
  const auto t = make_sentencepiece_tokenizer(read_sentencepiece_file(path), path, {});
  const auto& texts = expected["texts"];
  REQUIRE(texts.size() >= 50);
  std::size_t equal = 0;
  for (std::size_t k = 0; k < texts.size(); ++k) {
    const std::string text = texts[k].get<std::string>();
    const encoding e = t->encode(text);
    INFO(name << " text " << k << ": " << text);
    CHECK(e.ids == expected["ids"][k].get<std::vector<std::int64_t>>());
    CHECK(e.tokens == expected["pieces"][k].get<std::vector<std::string>>());
    equal += e.ids == expected["ids"][k].get<std::vector<std::int64_t>>();
  }
  MESSAGE(name << ": " << equal << " of " << texts.size() << " texts with the ids of "
               << expected["producer"].get<std::string>());
}

}  // namespace

TEST_CASE("nmt_nfkc from the file's charsmap, unknown runs as <unk>") { check_fixture("nfkc"); }

TEST_CASE("byte fallback, a user-defined symbol, no dummy prefix") { check_fixture("bytes"); }

TEST_CASE("identity normalisation with whitespace kept") { check_fixture("identity"); }

TEST_CASE("a charsmap from custom rules: the longest match wins (The -> THE over Th -> T h)") {
  check_fixture("rules");
}

TEST_CASE("the nmt_nfkc charsmap folds compatibility forms, longest prefix first") {
  const std::string path = folder + "nfkc.model";
  const sp_model_file f = read_sentencepiece_file(path);
  CHECK(f.normalizer_name == "nmt_nfkc");
  CHECK((f.add_dummy_prefix && f.remove_extra_whitespaces && f.escape_whitespaces));
  CHECK((f.unk_id == 0 && f.bos_id == 1 && f.eos_id == 2 && f.model_type == 1 && !f.byte_fallback));
  const sp_normalizer n(f.charsmap, {}, path);
  CHECK(n.normalize_prefix("\xef\xac\x81x").first == "fi");  // ﬁ ligature
  CHECK(n.normalize_prefix("\xef\xbd\x86").first == "f");    // full-width f
  CHECK(n.normalize_prefix("\xe2\x91\xa0").first == "1");    // circled 1
  CHECK(n.normalize_prefix("a").first == "a");                // no rule: the character
  CHECK(n.normalize_prefix("\xff" "a").first == "\xef\xbf\xbd");  // malformed byte: U+FFFD
  CHECK(n.normalize("  a  b\t ") == "\xe2\x96\x81" "a" "\xe2\x96\x81" "b");
  sp_normalizer_options keep;
  keep.remove_extra_whitespaces = false;
  keep.add_dummy_prefix = false;
  const sp_normalizer raw("", keep, path);
  CHECK(raw.normalize(" a  b") == "\xe2\x96\x81" "a" "\xe2\x96\x81\xe2\x96\x81" "b");
}

TEST_CASE("T5's </s> is appended when asked; other model types are refused") {
  const std::string path = folder + "nfkc.model";
  sp_model_file f = read_sentencepiece_file(path);
  sp_tokenizer_options o;
  o.append_eos = true;
  const encoding e = make_sentencepiece_tokenizer(f, path, o)->encode("the");
  CHECK(e.ids.back() == 2);
  CHECK(e.tokens.back() == "</s>");
  f.model_type = 2;
  CHECK_THROWS_WITH_AS(make_sentencepiece_tokenizer(f, path, {}),
                       doctest::Contains("model_type is 2 (BPE)"), input_error);
}

TEST_CASE("a damaged model file or charsmap is refused at its byte offset, never read past") {
  const std::string model = read_whole_file(folder + "identity.model");
  for (std::size_t cut : {std::size_t{1}, std::size_t{7}, model.size() / 2, model.size() - 1}) {
    INFO("cut at " << cut);
    try {
      const sp_model_file f = parse_sentencepiece_file(model.substr(0, cut), "cut.model");
      (void)make_sentencepiece_tokenizer(f, "cut.model", {});
    } catch (const input_error& e) {
      CHECK(std::string(e.what()).find("cut.model") != std::string::npos);
    }
  }
  CHECK_THROWS_WITH_AS(parse_sentencepiece_file(std::string("\x0a\xff\xff\xff\x0f", 5), "x.model"),
                       doctest::Contains("x.model (byte 5): expected 33554431 bytes"), input_error);
  CHECK_THROWS_WITH_AS(parse_sentencepiece_file(std::string("\x0f", 1), "x.model"),
                       doctest::Contains("wire type"), input_error);
  CHECK_THROWS_WITH_AS(parse_sentencepiece_file("", "x.model"), doctest::Contains("no pieces"),
                       input_error);
  CHECK_THROWS_WITH_AS(sp_normalizer(std::string("\x08\x00\x00\x00\x01", 5), {}, "x.model"),
                       doctest::Contains("trie size 8"), input_error);
  // a hand-made trie: the root (offset 0) leads byte 'a' to unit 97, a leaf (bit 8) whose value
  // sits at unit 97 ^ 1 = 96; first that value points past the strings, then the leaf's offset
  // points past the units
  std::vector<std::uint32_t> units(100, 0);
  units[97] = 97u | (1u << 8) | (1u << 10);
  units[96] = 1000;
  const auto charsmap = [&] {
    std::string b(4 + units.size() * 4 + 2, '\0');
    const auto put = [&](std::size_t at, std::uint32_t v) {
      for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
    };
    put(0, static_cast<std::uint32_t>(units.size() * 4));
    for (std::size_t i = 0; i < units.size(); ++i) put(4 + 4 * i, units[i]);
    b[b.size() - 2] = 'z';
    return b;
  };
  CHECK(sp_normalizer(charsmap(), {}, "x.model").normalize("bcd") == "\xe2\x96\x81" "bcd");
  CHECK_THROWS_WITH_AS(sp_normalizer(charsmap(), {}, "x.model").normalize("abc"),
                       doctest::Contains("replacement at byte 1000 is past its 2 bytes"),
                       input_error);
  units[96] = 0;  // the string "z"
  CHECK(sp_normalizer(charsmap(), {}, "x.model").normalize("ab") == "\xe2\x96\x81" "zb");
  units[97] = 97u | (1u << 8) | (4000u << 10);
  CHECK_THROWS_WITH_AS(sp_normalizer(charsmap(), {}, "x.model").normalize("abc"),
                       doctest::Contains("outside its 100 units"), input_error);
}

TEST_CASE("tokenizer.json's Unigram model with the Precompiled charsmap, a Regex Replace and "
          "Metaspace: the ids of npm's @huggingface/tokenizers") {
  const std::string dir = std::string(ATTNVIZ_TEST_DATA) + "/tokenizers/unigram_json/";
  const auto t = parse_tokenizer_json(read_whole_file(dir + "tokenizer.json"), "tokenizer.json");
  const auto expected = nlohmann::json::parse(read_whole_file(dir + "ids.json"));
  const auto spm = nlohmann::json::parse(read_whole_file(dir + "texts.json"));
  // The JavaScript port applies Precompiled as NFKC plus a fixed list of replacements (zero-width
  // characters to spaces), not the charsmap; on the one text where that differs, the charsmap's
  // result is python3-sentencepiece's (whose whitespace rules agree on that text).
  const std::size_t approximated = 23;
  std::size_t equal = 0;
  for (std::size_t k = 0; k < expected["texts"].size(); ++k) {
    const std::string text = expected["texts"][k].get<std::string>();
    INFO("text " << k << ": " << text);
    const encoding e = t->encode(text);
    if (k == approximated) {
      CHECK(e.ids != expected["ids"][k].get<std::vector<std::int64_t>>());
      CHECK(e.ids == spm["spm_ids"][k].get<std::vector<std::int64_t>>());
      continue;
    }
    CHECK(e.ids == expected["ids"][k].get<std::vector<std::int64_t>>());
    CHECK(e.tokens == expected["tokens"][k].get<std::vector<std::string>>());
    equal += e.ids == expected["ids"][k].get<std::vector<std::int64_t>>();
  }
  MESSAGE(equal << " of " << expected["texts"].size() << " texts with the ids of "
                << expected["producer"].get<std::string>());
}

TEST_CASE("a Unigram tokenizer.json it cannot run is refused with the JSON path") {
  const std::string vocab = R"("vocab": [["<unk>", 0.0], ["a", -1.0]])";
  CHECK_THROWS_WITH_AS(parse_tokenizer_json(R"({"model": {"type": "Unigram", )" + vocab + "}}",
                                            "t.json"),
                       doctest::Contains("model.unk_id"), input_error);
  CHECK_THROWS_WITH_AS(
      parse_tokenizer_json(R"({"model": {"type": "Unigram", "unk_id": 5, )" + vocab + "}}", "t.json"),
      doctest::Contains("an id of the vocabulary"), input_error);
  CHECK_THROWS_WITH_AS(
      parse_tokenizer_json(R"({"model": {"type": "Unigram", "unk_id": 0, "vocab": [["a"]]}})",
                           "t.json"),
      doctest::Contains("model.vocab[0]"), input_error);
  CHECK_THROWS_WITH_AS(
      parse_tokenizer_json(R"({"model": {"type": "Unigram", "unk_id": 0, )" + vocab +
                               R"(}, "normalizer": {"type": "Replace", "pattern": {"Regex": "(("},
                                  "content": " "}})",
                           "t.json"),
      doctest::Contains("normalizer.pattern.Regex"), input_error);
  CHECK_THROWS_WITH_AS(
      parse_tokenizer_json(R"({"model": {"type": "Unigram", "unk_id": 0, )" + vocab +
                               R"(}, "normalizer": {"type": "Precompiled",
                                  "precompiled_charsmap": "not*base64"}})",
                           "t.json"),
      doctest::Contains("precompiled_charsmap"), input_error);
  // a working one: the unknown run fused, the rest by the pieces
  const auto t = parse_tokenizer_json(
      R"({"model": {"type": "Unigram", "unk_id": 0, )" + vocab + "}}", "t.json");
  const encoding e = t->encode("aaxya");
  CHECK(e.ids == std::vector<std::int64_t>{1, 1, 0, 1});
  CHECK(e.tokens == std::vector<std::string>{"a", "a", "xy", "a"});
}

}  // namespace sentencepiece_tokenizer_cases
