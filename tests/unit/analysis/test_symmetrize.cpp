// Joining two directions' alignments, worked by hand (analysis/symmetrize.h).
#include <doctest/doctest.h>

#include <vector>

#include "analysis/symmetrize.h"
#include "error.h"

namespace symmetrize_cases {

using attnviz::symmetrize;
using attnviz::symmetrize_method;
using attnviz::word_pair;
using pairs = std::vector<word_pair>;

TEST_CASE("intersect and union, sorted and without repeats") {
  const pairs f{{1, 1}, {0, 0}, {2, 1}}, r{{0, 0}, {2, 2}, {1, 1}};
  CHECK(symmetrize(f, r, symmetrize_method::intersect) == pairs{{0, 0}, {1, 1}});
  CHECK(symmetrize(f, r, symmetrize_method::union_) == pairs{{0, 0}, {1, 1}, {2, 1}, {2, 2}});
}

TEST_CASE("grow-diag-final-and by hand") {
  // F = {(0,0), (1,1), (2,3)}, R = {(0,0), (1,2), (3,3)}: the intersection {(0,0)}; grow: (0,0)'s
  // neighbour (1,1) is in the union with source 1 unaligned: added; then (1,1)'s neighbour (1,2)
  // (target 2 unaligned): added; (1,2)'s diagonal (2,3): source 2 and target 3 unaligned: added;
  // (2,3)'s neighbour (3,3): source 3 unaligned: added. Nothing is left for final-and.
  const pairs f{{0, 0}, {1, 1}, {2, 3}}, r{{0, 0}, {1, 2}, {3, 3}};
  CHECK(symmetrize(f, r, symmetrize_method::grow_diag_final_and) ==
        pairs{{0, 0}, {1, 1}, {1, 2}, {2, 3}, {3, 3}});
  // a pair no neighbour reaches comes in by final-and only when both its words are unaligned:
  // (4, 0) of F (target 0 aligned) stays out; (5, 5) of R comes in
  const pairs f2{{0, 0}, {4, 0}}, r2{{0, 0}, {5, 5}};
  CHECK(symmetrize(f2, r2, symmetrize_method::grow_diag_final_and) == pairs{{0, 0}, {5, 5}});
  // F's pairs are taken before R's: (2, 2) of F first, then (2, 3) of R finds source 2 aligned
  const pairs f3{{2, 2}}, r3{{2, 3}};
  CHECK(symmetrize(f3, r3, symmetrize_method::grow_diag_final_and) == pairs{{2, 2}});
  CHECK(symmetrize({}, {}, symmetrize_method::grow_diag_final_and).empty());
}

TEST_CASE("methods by name") {
  CHECK(attnviz::symmetrize_named("union", "symmetrize") == symmetrize_method::union_);
  CHECK(attnviz::symmetrize_named("grow-diag-final-and", "symmetrize") ==
        symmetrize_method::grow_diag_final_and);
  CHECK_THROWS_AS(attnviz::symmetrize_named("gdfa", "symmetrize"), attnviz::usage_error);
}

}  // namespace symmetrize_cases
