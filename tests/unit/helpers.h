// Small helpers shared by the unit tests.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attention/pipeline.h"
#include "kernels/kernels.h"
#include "params/param_store.h"
#include "tensor.h"

namespace attnviz::testing {

inline matrix mat(std::size_t rows, std::size_t cols, std::vector<float> v) {
  return matrix(rows, cols, std::move(v));
}

// Every entry of `got` within `tol` of `want` (row-major values).
inline void check_close(const matrix& got, const std::vector<double>& want, double tol = 1e-6) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("entry " << i << " (row " << i / std::max<std::size_t>(got.cols(), 1) << ")");
    CHECK(std::fabs(static_cast<double>(got.data()[i]) - want[i]) <=
          tol * std::max(1.0, std::fabs(want[i])));
  }
}

// Entries uniform in [-1, 1) from std::mt19937(seed).
inline matrix random_matrix(std::size_t rows, std::size_t cols, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  matrix m(rows, cols);
  for (std::size_t i = 0; i < m.size(); ++i) m.data()[i] = u(gen);
  return m;
}

// Runs body once per instruction set the build and CPU have, restoring the best one afterwards.
template <class F>
void for_each_isa(F body) {
  const auto isas = kernels::available_isas();
  REQUIRE(!isas.empty());
  for (const auto& isa : isas) {
    kernels::use_isa(isa);
    INFO("isa " << isa);
    body();
  }
  kernels::use_isa(isas.back());
}

// Self-attention over the rows of x, tokens "t0", "t1", ...
inline attention_input self_input(const matrix& x) {
  attention_input in;
  for (std::size_t i = 0; i < x.rows(); ++i) in.query_tokens.push_back("t" + std::to_string(i));
  in.key_tokens = in.query_tokens;
  in.queries = in.keys = in.values = x;
  return in;
}

// A parameter store holding exactly these tensors, as if read from weights.safetensors.
inline param_store store(std::map<std::string, tensor_data> tensors) {
  safetensors_file f;
  f.tensors = std::move(tensors);
  return param_store::from_tensors(std::move(f), "weights.safetensors");
}

// A temporary folder removed at scope exit.
class temp_dir {
 public:
  temp_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "attnviz-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name, const std::string& contents) const {
    const auto p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << contents;
    return p;
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& dir() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace attnviz::testing
