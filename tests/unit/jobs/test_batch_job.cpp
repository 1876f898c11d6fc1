// Batch runs' naming and format list (the runs themselves: tests/e2e/test_batch.py).
#include <doctest/doctest.h>

#include "error.h"
#include "jobs/batch_job.h"

using namespace attnviz;

TEST_CASE("batch file stems: number, then whole lower-case ASCII words within 40 characters") {
  CHECK(batch_file_stem(7, 4, "The cat sat.") == "0007-the-cat-sat");
  CHECK(batch_file_stem(12345, 4, "x") == "12345-x");
  CHECK(batch_file_stem(3, 5, "") == "00003");
  CHECK(batch_file_stem(3, 4, "猫が座った") == "0003");            // nothing ASCII left
  CHECK(batch_file_stem(3, 4, "naïve café") == "0003-na-ve-caf");  // non-ASCII splits words
  CHECK(batch_file_stem(1, 4, "Paris\tWhat's  up?") == "0001-paris-what-s-up");
  // 40 characters of words at most, never a cut word
  const std::string long_line = "the cat sat on the floor because it was tired and then it slept";
  CHECK(batch_file_stem(1, 4, long_line) == "0001-the-cat-sat-on-the-floor-because-it-was");
  CHECK(batch_file_stem(1, 4, "the animal didn't cross the street because it was too tired") ==
        "0001-the-animal-didn-t-cross-the-street");  // stops at the first word that does not fit
  CHECK(batch_file_stem(1, 4, std::string(60, 'a') + " b") == "0001");
  CHECK(batch_file_stem(1, 4, std::string(39, 'a')) == "0001-" + std::string(39, 'a'));
  CHECK(batch_file_stem(1, 4, std::string(40, 'a')) == "0001");
}

TEST_CASE("batch formats: a comma list, duplicates once, unknown names refused") {
  CHECK(parse_batch_formats("png") == std::vector<batch_format>{batch_format::png});
  CHECK(parse_batch_formats("json,png,json,npy,svg,html") ==
        std::vector<batch_format>{batch_format::json, batch_format::png, batch_format::npy,
                                  batch_format::svg, batch_format::html});
  CHECK_THROWS_AS(parse_batch_formats("png,gif"), usage_error);
  CHECK_THROWS_AS(parse_batch_formats(""), usage_error);
  CHECK_THROWS_AS(parse_batch_formats("png,"), usage_error);
}
