#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "attention/pipeline.h"
#include "attention/registry.h"
#include "helpers.h"
#include "render/json_result.h"

using namespace attnviz;
using attnviz::testing::mat;

TEST_CASE("JSON result: the contract's fields, shapes and exact float values") {
  attention_input in;
  in.query_tokens = in.key_tokens = {"a", "b", "c"};
  in.queries = in.keys = in.values = mat(3, 2, {0.1f, 0, 0, 0.2f, 0.3f, 0.3f});
  attention_spec spec;
  spec.score = "cosine";
  spec.context = "hard";
  spec.hard = hard_mode::argmax;
  auto p = param_store::seeded(0);
  const auto r = run_attention(in, spec, p);
  const std::string text = result_to_json(r, {"attn-viz test", "e.txt", "--seed 0", {"c"}, "hash"});
  const auto j = nlohmann::json::parse(text);
  CHECK(j["query_tokens"] == nlohmann::json({"a", "b", "c"}));
  CHECK(j["key_tokens"] == nlohmann::json({"a", "b", "c"}));
  CHECK(j["variant"]["score"] == "cosine");
  CHECK(j["variant"]["align"] == "softmax");
  CHECK(j["variant"]["context"] == "hard");
  CHECK(j["variant"]["hard"] == "argmax");
  CHECK(j["oov_tokens"] == nlohmann::json({"c"}));
  REQUIRE(j["heads"].size() == 1);
  const auto& h = j["heads"][0];
  CHECK(h["scores"].size() == 3);
  CHECK(h["scores"][0].size() == 3);
  CHECK(h["weights"][2].size() == 3);
  CHECK(h["context"][0].size() == 2);
  CHECK(h["chosen_keys"].size() == 3);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t k = 0; k < 3; ++k) {
      CHECK(h["weights"][i][k].get<float>() == r.heads[0].weights(i, k));
      CHECK(h["scores"][i][k].get<float>() == r.heads[0].scores(i, k));
    }
  // shortest float32 text: 0.1f is written "0.1", not 0.10000000149011612
  CHECK(text.find("0.10000000149") == std::string::npos);
  CHECK(text.find("[0.1, 0.0]") != std::string::npos);
  CHECK(text.find(R"("query_tokens": ["a", "b", "c"])") != std::string::npos);
  CHECK(text == result_to_json(r, {"attn-viz test", "e.txt", "--seed 0", {"c"}, "hash"}));
}

TEST_CASE("JSON result: a token spelled like a map's placeholder does not confuse the writer") {
  attention_input in;
  // the writer's placeholder text for the first map, as a token (and an empty-rows matrix)
  in.query_tokens = in.key_tokens = {"\x01" "attn-viz matrix 0\x01", "b"};
  in.queries = in.keys = in.values = mat(2, 2, {0.5f, 0, 0, 0.25f});
  attention_spec spec;
  auto p = param_store::seeded(0);
  const auto r = run_attention(in, spec, p);
  const std::string text = result_to_json(r, {"attn-viz test", "e.txt", "--seed 0", {}, "hash"});
  const auto j = nlohmann::json::parse(text);
  CHECK(j["query_tokens"][0] == "\x01" "attn-viz matrix 0\x01");
  const auto& h = j["heads"][0];
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(h["weights"][i][k].get<float>() == r.heads[0].weights(i, k));
      CHECK(h["scores"][i][k].get<float>() == r.heads[0].scores(i, k));
    }
  // the maps laid out as every other writer lays them out: rows one per line
  CHECK(text.find("\"weights\": [\n    [") != std::string::npos);
}

TEST_CASE("JSON variant: a setting is reported exactly when the registry entry declares it") {
  const result_metadata meta{"attn-viz test", "e.txt", "--seed 0", {}, "hash"};
  auto variant_of = [&](const std::string& score, const std::string& align,
                        const std::string& context) {
    attention_result r;
    r.spec.score = score;
    r.spec.align = align;
    r.spec.context = context;
    r.d_k = 4;
    return nlohmann::json::parse(result_to_json(r, meta))["variant"];
  };
  for (const auto& s : score_registry()) {
    CAPTURE(s.info.name);
    const auto v = variant_of(std::string(s.info.name), "softmax", "soft");
    CHECK(v.contains("sharpen") == s.uses_sharpen);
    CHECK(v.contains("d_a") == s.uses_d_a);
  }
  for (const auto& a : align_registry()) {
    CAPTURE(a.info.name);
    const auto v = variant_of("dot", std::string(a.info.name), "soft");
    CHECK(v.contains("window") == a.uses_window);
    CHECK(v.contains("temperature") == a.uses_temperature);
  }
  for (const auto& c : context_registry()) {
    CAPTURE(c.info.name);
    CHECK(variant_of("dot", "softmax", std::string(c.info.name)).contains("hard") ==
          c.uses_hard_mode);
  }
  // what the fused kernel covers: q·k scores (scaled or not), softmax, soft context; no other
  std::vector<std::string_view> fused;
  for (const auto& s : score_registry())
    if (s.fused != fused_score::none) fused.push_back(s.info.name);
  for (const auto& a : align_registry())
    if (a.fused) fused.push_back(a.info.name);
  for (const auto& c : context_registry())
    if (c.fused) fused.push_back(c.info.name);
  CHECK(fused == std::vector<std::string_view>{"dot", "scaled_dot", "softmax", "soft"});
}
