// Numbers for JSON outputs, shared by every writer (json_result, html_page): a float as the
// double whose shortest decimal is the float's own (0.25, not 0.25000000372529), non-finite as
// null, and a matrix as an array of rows.
#pragma once

#include <nlohmann/json.hpp>

#include "tensor.h"

namespace attnviz {

nlohmann::ordered_json json_number(float v);
nlohmann::ordered_json json_rows(const matrix& m);

}  // namespace attnviz
