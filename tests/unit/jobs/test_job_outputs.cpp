// jobs/job_outputs.h: the one place every job's outputs are checked, made and written.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "error.h"
#include "helpers.h"
#include "jobs/job_outputs.h"
#include "render/figure.h"

using namespace attnviz;
using attnviz::testing::temp_dir;
namespace fs = std::filesystem;

namespace {

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

figure small_figure() {
  figure f(40, 20);
  f.rect(0, 0, 40, 20, rgb{10, 200, 30});
  return f;
}

}  // namespace

TEST_CASE("write_outputs writes the requested kinds, in one order, and makes only those") {
  temp_dir d;
  job_outputs paths;
  paths.svg = d.path("a.svg");
  paths.json = d.path("a.json");
  paths.params = d.path("p.bin");
  int made_json = 0, made_figure = 0, made_html = 0;
  job_products made;
  made.json = [&] { ++made_json; return std::string("{\"x\": 1}\n"); };
  made.picture = [&] { ++made_figure; return small_figure(); };
  made.html = [&] { ++made_html; return std::string("<html>"); };
  made.params = [] { return std::string("PARAMS"); };
  const auto written = write_outputs(paths, made);
  CHECK(written == std::vector<std::string>{paths.json, paths.svg, paths.params});
  CHECK((made_json == 1 && made_figure == 1 && made_html == 0));
  CHECK(read(paths.json) == "{\"x\": 1}\n");
  CHECK(read(paths.params) == "PARAMS");
  CHECK(read(paths.svg).find("<svg") != std::string::npos);
  CHECK(!fs::exists(d.path("a.png")));
}

TEST_CASE("one figure serves PNG and SVG; .npy files go into their folder") {
  temp_dir d;
  job_outputs paths;
  paths.png = d.path("a.png");
  paths.svg = d.path("a.svg");
  paths.npy_dir = d.path("arrays");
  int drawn = 0;
  job_products made;
  made.picture = [&] { ++drawn; return small_figure(); };
  made.npy = [](output_batch& batch, const std::string& dir) {
    batch.add((fs::path(dir) / "w.npy").string(), "NPY");
  };
  write_outputs(paths, made);
  CHECK(drawn == 1);
  CHECK(read(paths.png).substr(1, 3) == "PNG");
  CHECK(read(d.path("arrays/w.npy")) == "NPY");
}

TEST_CASE("asking a job for a kind it cannot make is a bug, and nothing is written") {
  temp_dir d;
  job_outputs paths;
  paths.json = d.path("a.json");
  paths.html = d.path("a.html");
  job_products made;
  made.json = [] { return std::string("{}"); };
  CHECK_THROWS_AS(write_outputs(paths, made), std::logic_error);
  CHECK(!fs::exists(paths.json));
}

TEST_CASE("a failing producer leaves every existing file untouched") {
  temp_dir d;
  job_outputs paths;
  paths.json = d.path("a.json");
  paths.png = d.path("a.png");
  { std::ofstream(paths.json) << "old"; }
  job_products made;
  made.json = [] { return std::string("new"); };
  made.picture = []() -> figure { throw input_error("x.txt", 3, "bad"); };
  CHECK_THROWS_AS(write_outputs(paths, made), input_error);
  CHECK(read(paths.json) == "old");
  CHECK(!fs::exists(paths.png));
}

TEST_CASE("check_job names the parameter of a bad path or view, before any work") {
  temp_dir d;
  job_outputs paths;
  paths.png = d.path("missing/a.png");
  CHECK_THROWS_WITH_AS(check_job(paths, view_options{}), doctest::Contains("png"), usage_error);
  paths.png = d.path("a.png");
  view_options view;
  view.cell = 300;
  CHECK_THROWS_WITH_AS(check_job(paths, view), "cell must be between 1 and 256 pixels, got 300",
                       usage_error);
  view.cell = 0;
  view.cmap = "no-such-map";
  CHECK_THROWS_AS(check_job(paths, view), usage_error);
  paths.json = "-";
  paths.svg = "-";
  CHECK_THROWS_WITH_AS(check_job(paths, view_options{}),
                       "json - and svg -: only one output can go to standard output", usage_error);
}

TEST_CASE("output_size counts .npy as JSON and the figure as an image") {
  job_outputs paths;
  view_options view;
  view.cell = 12;
  run_size s = output_size(paths, view, 7, 9);
  CHECK((s.n_q == 7 && s.n_k == 9 && s.cell == 12 && !s.json && !s.image));
  paths.npy_dir = "arrays";
  paths.svg = "a.svg";
  s = output_size(paths, view, 7, 9);
  CHECK((s.json && s.image));
}
