#include <doctest/doctest.h>

#include <cmath>

#include "error.h"
#include "helpers.h"
#include "params/param_store.h"

using namespace attnviz;
using attnviz::testing::temp_dir;

TEST_CASE("seeded: Xavier-uniform within sqrt(6/(fan_in+fan_out)), reproducible, per name") {
  auto a = param_store::seeded(5), b = param_store::seeded(5), c = param_store::seeded(6);
  const matrix wa = a.require_matrix("score.W", 30, 20);
  const matrix wb = b.require_matrix("score.W", 30, 20);
  const matrix wc = c.require_matrix("score.W", 30, 20);
  CHECK(wa.values() == wb.values());
  CHECK(wa.values() != wc.values());
  const double bound = std::sqrt(6.0 / 50.0);
  double sum = 0, sq = 0;
  for (float x : wa.values()) {
    CHECK(std::fabs(x) <= bound);
    sum += x;
    sq += static_cast<double>(x) * x;
  }
  // U(-a, a) has variance a²/3
  CHECK(sq / 600 == doctest::Approx(bound * bound / 3).epsilon(0.15));
  CHECK(std::fabs(sum / 600) < 0.05);
  // a tensor depends only on (seed, name, shape): asking for another first changes nothing
  auto d = param_store::seeded(5);
  d.require_vector("score.v", 7);
  CHECK(d.require_matrix("score.W", 30, 20).values() == wa.values());
  CHECK(a.require_vector("score.b", 4, param_init::zeros) == std::vector<float>(4, 0.0f));
}

TEST_CASE("from a file: missing or wrongly shaped tensors are named with the expected shape") {
  safetensors_file f;
  f.tensors["score.W"] = {{2, 3}, {1, 2, 3, 4, 5, 6}};
  auto p = param_store::from_tensors(f, "w.safetensors");
  CHECK(p.require_matrix("score.W", 2, 3)(1, 2) == 6.0f);
  CHECK_THROWS_WITH_AS(p.require_vector("score.v", 3),
                       "w.safetensors: missing tensor 'score.v' (expected shape [3])", input_error);
  auto q = param_store::from_tensors(f, "w.safetensors");
  CHECK_THROWS_WITH(q.require_matrix("score.W", 3, 2),
                    "w.safetensors: tensor 'score.W' has shape [2, 3], expected [3, 2]");
}

TEST_CASE("used tensors are written back in order of use and read back equal") {
  temp_dir d;
  auto p = param_store::seeded(1);
  p.require_matrix("score.W_q", 2, 3);
  p.require_vector("score.v", 2);
  const auto path = d.file("p.safetensors", p.serialize_used());
  auto back = param_store::from_file(path);
  CHECK(back.require_matrix("score.W_q", 2, 3).to_vector() == p.used()[0].second.values);
  CHECK(back.require_vector("score.v", 2) == p.used()[1].second.values);
  CHECK(back.unused_file_tensors().empty());
  auto partial = param_store::from_file(path);
  partial.require_vector("score.v", 2);
  CHECK(partial.unused_file_tensors() == std::vector<std::string>{"score.W_q"});
}
