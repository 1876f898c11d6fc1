// analysis/query_pick.h: --query as a token, its k-th occurrence, a position, by hand.
#include <doctest/doctest.h>

#include "analysis/query_pick.h"
#include "error.h"

using namespace attnviz;
using v = std::vector<std::string>;

TEST_CASE("a token, its occurrences, a position, the fallback") {
  const v t{"the", "bank", "of", "the", "bank", "7"};
  CHECK(pick_query(t, "of").index == 2);
  CHECK(pick_query(t, "of").note.empty());
  const query_pick first = pick_query(t, "bank");
  CHECK(first.index == 1);
  CHECK(first.note.find("occurs 2 times (positions 1 and 4); took the first, position 1") !=
        std::string::npos);
  CHECK(pick_query(t, "bank#2").index == 4);
  CHECK(pick_query(t, "the#1").index == 0);
  CHECK(pick_query(t, "7").index == 5);  // a token that reads as a number is the token
  CHECK(pick_query(t, "2").index == 2);
  CHECK(pick_query(t, "", 5).index == 5);
  CHECK_THROWS_WITH_AS(pick_query(t, "bank#3"), doctest::Contains("occurs 2 times"), usage_error);
  CHECK_THROWS_WITH_AS(pick_query(t, "bank#0"), doctest::Contains("bank#1 is the first"),
                       usage_error);
  CHECK_THROWS_WITH_AS(pick_query(t, "9"), doctest::Contains("positions 0 to 5"), usage_error);
  CHECK_THROWS_AS(pick_query(t, "river"), usage_error);
  CHECK_THROWS_AS(pick_query(t, ""), usage_error);
}

TEST_CASE("a model's pieces match without their sub-word marks") {
  const v t{"The", "\xC4\xA0" "bank", "\xC4\xA0" "and", "\xC4\xA0" "bank"};
  const query_pick p = pick_query(t, "bank");
  CHECK(p.index == 1);
  CHECK_FALSE(p.note.empty());
  CHECK(pick_query(t, "bank#2").index == 3);
  CHECK(pick_query(t, "\xC4\xA0" "and").index == 2);
}
