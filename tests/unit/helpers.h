// Small helpers shared by the unit tests.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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
