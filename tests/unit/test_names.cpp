// names.h: the one suggester every "did you mean" uses, and its distance.
#include <doctest/doctest.h>

#include <string_view>
#include <vector>

#include "error.h"
#include "names.h"

using namespace attnviz;

namespace {
std::string_view nearest(std::string_view word, const std::vector<std::string_view>& names) {
  const std::size_t i = nearest_name(word, names);
  return i == std::string_view::npos ? std::string_view("(none)") : names[i];
}
}  // namespace

TEST_CASE("the distance counts a swap of neighbours as one edit") {
  CHECK(edit_distance("modle", "model") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "abc") == 0);
  CHECK(edit_distance("ab", "ba") == 1);
}

TEST_CASE("one suggester: fewest edits, then the longest shared prefix, nothing far") {
  const std::vector<std::string_view> views{"heads", "mean", "max", "rollout", "flow", "model",
                                            "lines", "received", "received-rollout"};
  CHECK(nearest("modle", views) == "model");
  CHECK(nearest("recieved", views) == "received");
  CHECK(nearest("received_rolout", views) == "received-rollout");
  CHECK(nearest("zzzzzz", views) == "(none)");
  // flags: leading dashes do not count; no shared prefix, a tighter limit
  const std::vector<std::string_view> flags{"--top-p", "--text", "--cmap", "--model", "--temperature"};
  CHECK(nearest("--flow-x", flags) == "(none)");
  CHECK(nearest("--txt", flags) == "--text");
  CHECK(nearest("--colormap", flags) == "--cmap");
  CHECK(nearest("--temprature", flags) == "--temperature");
  // equal edits: the one sharing the longer prefix wins, whatever the order
  CHECK(nearest("layer-x", {"payer-x", "layer-y"}) == "layer-y");
  CHECK(nearest("layer-x", {"layer-y", "payer-x"}) == "layer-y");
  // equal edits and prefixes: the first
  CHECK(nearest("mx", {"max", "mix"}) == "max");
}

TEST_CASE("registries' refusals suggest through it") {
  CHECK_THROWS_WITH_AS(
      throw_unknown_name("view", "modle", {"model", "lines"}, {{"model", "model"}, {"lines", "lines"}}),
      "unknown view 'modle'. Did you mean 'model'? Known: model, lines", usage_error);
}
