#include <doctest/doctest.h>

#include <filesystem>

#include "attention/registry.h"
#include "error.h"
#include "helpers.h"
#include "jobs/demo_job.h"

using namespace attnviz;
using attnviz::testing::temp_dir;

TEST_CASE("demo file names: ASCII slugs cut at a word boundary") {
  CHECK(slug("The cat sat.") == "the-cat-sat");
  CHECK(slug("The animal didn't cross the street because it was too tired.") ==
        "the-animal-didn-t-cross-the-street");
  CHECK(slug("机器学习") == "sentence");
}

TEST_CASE("demo on the bundled samples: every score function, PNG and JSON for each figure") {
  temp_dir d;
  const auto out = (d.dir() / "figures").string();
  std::size_t calls = 0;
  const auto report = run_demo({ATTNVIZ_SAMPLES, out, 0},
                               [&](std::size_t, std::size_t, const std::string&) { ++calls; });
  CHECK(report.warnings.empty());
  std::size_t pngs = 0, jsons = 0;
  for (const auto& p : report.written) {
    CHECK(std::filesystem::is_regular_file(p));
    pngs += p.size() > 4 && p.substr(p.size() - 4) == ".png";
    jsons += p.size() > 5 && p.substr(p.size() - 5) == ".json";
  }
  CHECK(pngs == jsons);
  CHECK(pngs >= score_registry().size() + 2);
  CHECK(calls == pngs + 1);
  CHECK(std::filesystem::exists(std::filesystem::path(out) /
                                "compare-01-the-cat-sat-on-the-floor-because-it-was.png"));
  for (const auto& s : score_registry())
    CHECK(std::filesystem::exists(
        std::filesystem::path(out) /
        ("01-the-cat-sat-on-the-floor-because-it-was-" + std::string(s.info.name) + ".png")));
}

TEST_CASE("demo refuses an output folder whose parent is missing") {
  temp_dir d;
  CHECK_THROWS_AS(run_demo({ATTNVIZ_SAMPLES, d.path("a/b/c"), 0}), usage_error);
}
