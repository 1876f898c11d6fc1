// analysis/word_alignment.h: sub-words into words, argmax, argmax-null and intersect
// alignments, Pharaoh lines and the alignment error rate, worked by hand.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/word_alignment.h"
#include "error.h"
#include "helpers.h"

using namespace attnviz;

TEST_CASE("pieces into words: target rows averaged, source columns summed, specials dropped") {
  // target pieces: ▁the ▁house s </s>  (words: the, houses); source: ▁la ▁casa s </s>
  const std::string mark = "\xe2\x96\x81";  // ▁
  const std::vector<std::string> tgt{mark + "the", mark + "house", "s", "</s>"};
  const std::vector<std::string> src{mark + "la", mark + "ca", "sas", "</s>"};
  // rows: the, house, s, </s>; columns: la, ca, sas, </s>
  const matrix a = testing::mat(4, 4, {0.7f, 0.1f, 0.1f, 0.1f,   //
                                       0.1f, 0.4f, 0.3f, 0.2f,   //
                                       0.1f, 0.2f, 0.5f, 0.2f,   //
                                       0.25f, 0.25f, 0.25f, 0.25f});
  const word_map w = cross_words(a.data(), tgt, src);
  CHECK(w.target_words == std::vector<std::string>{"the", "houses"});
  CHECK(w.source_words == std::vector<std::string>{"la", "casas"});
  CHECK(w.values(0, 0) == doctest::Approx(0.7));
  CHECK(w.values(0, 1) == doctest::Approx(0.2));               // 0.1 + 0.1
  CHECK(w.values(1, 0) == doctest::Approx((0.1 + 0.1) / 2));   // mean of two rows
  CHECK(w.values(1, 1) == doctest::Approx((0.7 + 0.7) / 2));   // (0.4+0.3 + 0.2+0.5) / 2
  CHECK(align_words(w.values, align_method::argmax) == std::vector<word_pair>{{0, 0}, {1, 1}});
}

TEST_CASE("argmax per target word; intersect keeps the pairs both directions choose") {
  // 3 target words × 3 source words; target 2 also picks source 1, whose best target is 1
  const matrix m = testing::mat(3, 3, {0.8f, 0.1f, 0.1f,   //
                                       0.1f, 0.8f, 0.1f,   //
                                       0.2f, 0.5f, 0.3f});
  CHECK(align_words(m, align_method::argmax) == std::vector<word_pair>{{0, 0}, {1, 1}, {1, 2}});
  CHECK(align_words(m, align_method::intersect) == std::vector<word_pair>{{0, 0}, {1, 1}});
  CHECK(format_pharaoh({{0, 0}, {1, 2}}) == "0-0 1-2");
}

TEST_CASE("argmax-null leaves a word whose row rests more on </s> than on its best word") {
  // rows over the words only: row 0 sums to 0.9 (0.1 on </s> < 0.6), row 1 to 0.3 (0.7 on </s>
  // > 0.2), row 2 to 0.5 (0.5 on </s> = 0.5 kept: the word must hold less to be left)
  const matrix m = testing::mat(3, 2,
                                {0.6f, 0.3f,  //
                                 0.2f, 0.1f,  //
                                 0.0f, 0.5f});
  CHECK(align_words(m, align_method::argmax) == std::vector<word_pair>{{0, 0}, {0, 1}, {1, 2}});
  CHECK(align_words(m, align_method::argmax_null) == std::vector<word_pair>{{0, 0}, {1, 2}});
  // by columns (each source word's best target word): column 0 sums to 0.8, column 1 to 0.9
  CHECK(best_links(m, false, true) == std::vector<word_pair>{{0, 0}, {1, 2}});
  CHECK(best_links(m, false, false) == best_links(m, false, true));
}

TEST_CASE("Pharaoh gold lines: sure, possible, and AER by Och & Ney") {
  const gold_alignment g = parse_pharaoh("0-0 1?1 2-2-P 3-3-S", "gold.txt", 1);
  CHECK(g.sure == std::set<word_pair>{{0, 0}, {3, 3}});
  CHECK(g.possible == std::set<word_pair>{{0, 0}, {1, 1}, {2, 2}, {3, 3}});
  alignment_counts c;
  // predicted 0-0 (sure), 1-1 (possible), 2-3 (wrong): |A| 3, |S| 2, |A∩S| 1, |A∩P| 2
  c.add({{0, 0}, {1, 1}, {2, 3}}, g);
  CHECK(c.precision() == doctest::Approx(2.0 / 3.0));
  CHECK(c.recall() == doctest::Approx(0.5));
  CHECK(c.aer() == doctest::Approx(1.0 - 3.0 / 5.0));
  // summed over sentences before dividing
  c.add({{0, 0}}, parse_pharaoh("0-0", "gold.txt", 2));
  CHECK(c.aer() == doctest::Approx(1.0 - (2.0 + 3.0) / (4.0 + 3.0)));
  CHECK(parse_pharaoh("", "gold.txt", 3).possible.empty());
  CHECK_THROWS_WITH_AS(parse_pharaoh("0-1 2x3", "gold.txt", 4),
                       doctest::Contains("gold.txt:4: '2x3' is not an alignment pair"),
                       input_error);
  CHECK_THROWS_WITH_AS(parse_pharaoh("0--1", "gold.txt", 5), doctest::Contains("'0--1'"),
                       input_error);
}
