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
  std::size_t pngs = 0, jsons = 0, lines = 0, pages = 0;
  auto ends = [](const std::string& p, const std::string& tail) {
    return p.size() > tail.size() && p.compare(p.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (const auto& p : report.written) {
    CHECK(std::filesystem::is_regular_file(p));
    pngs += ends(p, ".png");
    jsons += ends(p, ".json");
    lines += ends(p, "-lines.png");
    pages += ends(p, ".html");
  }
  // every figure has its JSON, but the trained model's head view (its maps are in the model
  // view's JSON), which comes with the model view's page
  CHECK(pngs == jsons + lines);
  CHECK(lines == pages);
  if (std::filesystem::exists(std::filesystem::path(ATTNVIZ_SAMPLES) / "kjv-gpt" / "config.json")) {
    CHECK(lines == 1);
    CHECK(std::filesystem::exists(std::filesystem::path(out) / "model-kjv-gpt.png"));
    CHECK(std::filesystem::exists(std::filesystem::path(out) / "model-kjv-gpt.html"));
  }
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
