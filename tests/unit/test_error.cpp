// error.h: typed errors, and messages that name parameters rather than one front end's flags.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "error.h"

using namespace attnviz;

TEST_CASE("what() names parameters plainly; marked() lets a front end name them its way") {
  const usage_error e(param("window") + " must be at least 1, got 0");
  CHECK(std::string(e.what()) == "window must be at least 1, got 0");
  const auto flag = [](std::string_view name) { return "--" + std::string(name); };
  CHECK(render_params(e.marked(), flag) == "--window must be at least 1, got 0");
  CHECK(render_params("a " + param("x") + " and " + param("y_z") + ".", flag) ==
        "a --x and --y_z.");
}

TEST_CASE("input_error marks its source when the source is a parameter") {
  const input_error e(param("text"), 3, "is not UTF-8");
  CHECK(std::string(e.what()) == "text:3: is not UTF-8");
  CHECK(param_name(e.source()) == "text");
  CHECK(render_params(e.marked(), [](std::string_view n) { return "<" + std::string(n) + ">"; }) ==
        "<text>:3: is not UTF-8");
  const input_error f("vec.txt", 2, "expected 50 numbers");
  CHECK(param_name(f.source()).empty());
  CHECK(std::string(f.what()) == "vec.txt:2: expected 50 numbers");
  CHECK(f.marked() == f.what());
}

TEST_CASE("text without marks, or with a lone mark, is left as it is") {
  CHECK(plain_params("no parameters here") == "no parameters here");
  const std::string lone = "half " + param("a").substr(0, 2);
  CHECK(plain_params(lone) == lone);
  CHECK(param_name("text").empty());
  CHECK(param_name(param("a") + param("b")).empty());
}
