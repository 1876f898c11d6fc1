#include <doctest/doctest.h>

#include <set>

#include "attention/registry.h"
#include "error.h"
#include "names.h"

using namespace attnviz;

TEST_CASE("the foundation's variants are registered with formula and paper") {
  std::set<std::string_view> scores, aligns, contexts;
  for (const auto& e : score_registry()) scores.insert(e.info.name);
  for (const auto& e : align_registry()) aligns.insert(e.info.name);
  for (const auto& e : context_registry()) contexts.insert(e.info.name);
  for (auto n : {"dot", "scaled_dot", "general", "additive", "concat", "cosine", "location"})
    CHECK(scores.count(n) == 1);
  for (auto n : {"softmax", "hardmax"}) CHECK(aligns.count(n) == 1);
  for (auto n : {"soft", "hard"}) CHECK(contexts.count(n) == 1);
  for (const auto& e : score_registry()) {
    CHECK_FALSE(e.info.formula.empty());
    CHECK_FALSE(e.info.paper.empty());
    CHECK_FALSE(e.info.parameters.empty());
  }
}

TEST_CASE("names resolve case-insensitively, with - or _, and through aliases") {
  CHECK(find_score("Scaled-Dot").info.name == "scaled_dot");
  CHECK(find_score("bahdanau").info.name == "additive");
  CHECK(find_score("multiplicative").info.name == "general");
  CHECK(find_score("luong-concat").info.name == "concat");
  CHECK(find_align("global").info.name == "softmax");
  CHECK(find_context("stochastic").info.name == "hard");
}

TEST_CASE("an unknown name is a usage error that suggests the nearest one") {
  CHECK_THROWS_AS(find_score("adittive"), usage_error);
  CHECK_THROWS_WITH(find_score("adittive"), doctest::Contains("Did you mean 'additive'?"));
  CHECK_THROWS_WITH(find_align("sofmax"), doctest::Contains("Did you mean 'softmax'?"));
  CHECK_THROWS_WITH(find_context("zzzzzzzz"), doctest::Contains("Known: soft, hard"));
}

TEST_CASE("no two entries share a name or alias within a stage") {
  std::set<std::string> seen;
  for (const auto& e : score_registry()) {
    CHECK(seen.insert(std::string(e.info.name)).second);
    for (auto a : e.info.aliases) CHECK(seen.insert(std::string(a)).second);
  }
}

TEST_CASE("split_list: the items as typed, empty ones kept") {
  using items = std::vector<std::string_view>;
  CHECK(split_list("causal") == items{"causal"});
  CHECK(split_list("causal,window:2") == items{"causal", "window:2"});
  CHECK(split_list("") == items{""});
  CHECK(split_list("a,,b,") == items{"a", "", "b", ""});
  CHECK(split_list("x;y", ';') == items{"x", "y"});
}
