#include "render/json_numbers.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace attnviz {

nlohmann::ordered_json json_number(float v) {
  if (!std::isfinite(v)) return nullptr;
  return std::strtod(fmt::format("{}", v).c_str(), nullptr);
}

nlohmann::ordered_json json_rows(const matrix& m) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < m.rows(); ++i) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (std::size_t j = 0; j < m.cols(); ++j) row.push_back(json_number(m(i, j)));
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace attnviz
