// io/json_file.h: the nesting bound every JSON reader gets before it parses, so that no walk of a
// parsed document (an attention file's lists, tokenizer.json's Sequences) meets a depth that
// exhausts the stack; and the readers that walk by recursion refuse such files by name.
#include <doctest/doctest.h>

#include <string>

#include "error.h"
#include "helpers.h"
#include "io/attention_file.h"
#include "io/json_file.h"
#include "tokenizers/model_tokenizer.h"

using namespace attnviz;

namespace {

std::string nested(std::size_t depth, const std::string& inner = "1") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

}  // namespace

TEST_CASE("the depth bound: 64 levels pass, the 65th bracket is named by its byte") {
  CHECK_NOTHROW(check_json_depth(nested(64), "a.json"));
  CHECK_THROWS_WITH_AS(check_json_depth(nested(65), "a.json"),
                       doctest::Contains("byte 64"), input_error);
  CHECK_THROWS_WITH_AS(check_json_depth(nested(3), "a.json", 2), doctest::Contains("byte 2"),
                       input_error);
  // brackets inside strings, escaped quotes included, are not nesting
  CHECK_NOTHROW(check_json_depth(R"(["[[[[\"[[[[", "{{{{"])", "a.json", 1));
  // the offset counts from where the text sits in its file
  CHECK_THROWS_WITH_AS(check_json_depth("[[", "t.safetensors", 1, 8),
                       doctest::Contains("byte 9"), input_error);
  // siblings do not add up
  CHECK_NOTHROW(check_json_depth("[[1],[2],[3],{\"a\":[4]}]", "a.json", 3));
}

TEST_CASE("100,000 levels are refused before parsing, quickly and without a crash") {
  const std::string deep = nested(100000);
  CHECK_THROWS_WITH_AS(parse_json_text(deep, "d.json"), doctest::Contains("nests deeper than 64"),
                       input_error);
  CHECK_THROWS_WITH_AS(parse_attention_file(deep, ".json", "", "d.json"),
                       doctest::Contains("d.json"), input_error);
}

TEST_CASE("an attention file's lists: five dimensions at most, the bad item named by its path") {
  const attention_file five = parse_attention_file(nested(5), ".json", "", "a.json");
  CHECK(five.array.shape.size() >= 4);  // [layers, 1, heads, n, n]: the batch of 1 dropped
  CHECK(five.array.values == std::vector<float>{1.0f});
  CHECK_THROWS_WITH_AS(parse_attention_file(nested(6), ".json", "", "a.json"),
                       doctest::Contains("the list[0][0][0][0][0] nests lists deeper than 5"),
                       input_error);
  const attention_file two =
      parse_attention_file(R"({"attentions": [[0.25, 0.75], [1, 0]], "tokens": ["a", "b"]})",
                           ".json", "", "a.json");
  CHECK(two.array.shape == std::vector<std::size_t>{2, 2});
  CHECK(two.array.values == std::vector<float>{0.25f, 0.75f, 1.0f, 0.0f});
  CHECK_THROWS_WITH_AS(parse_attention_file("[[0.5, 0.5], [1, \"x\"]]", ".json", "", "a.json"),
                       doctest::Contains("the list[1][1] is string"), input_error);
  CHECK_THROWS_WITH_AS(parse_attention_file("[[0.5, 0.5], [1]]", ".json", "", "a.json"),
                       doctest::Contains("the list[1] has 1 items where its neighbours have 2"),
                       input_error);
  CHECK_THROWS_WITH_AS(parse_attention_file("[[0.5, [0.5]], [1, 0]]", ".json", "", "a.json"),
                       doctest::Contains("the list[0][1] is a list where a number"),
                       input_error);
  CHECK_THROWS_WITH_AS(parse_attention_file("[[[0.5], 0.5]]", ".json", "", "a.json"),
                       doctest::Contains("the list[0][1] is a number where a list"),
                       input_error);
}

TEST_CASE("tokenizer.json: a normalizer Sequence nested 100,000 deep is refused, not recursed") {
  attnviz::testing::temp_dir dir;
  std::string normalizer = R"({"type":"NFC"})";
  std::string open, close;
  for (int i = 0; i < 100000; ++i) {
    open += R"({"type":"Sequence","normalizers":[)";
    close += "]}";
  }
  dir.file("tokenizer.json", R"({"version":"1.0","added_tokens":[],"normalizer":)" + open +
                                 normalizer + close +
                                 R"(,"pre_tokenizer":null,"model":{"type":"WordPiece",)"
                                 R"("unk_token":"[UNK]","vocab":{"[UNK]":0}}})");
  CHECK_THROWS_WITH_AS(load_model_tokenizer(dir.dir().string()),
                       doctest::Contains("nests deeper than 64"), input_error);
}
