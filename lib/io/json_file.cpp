#include "io/json_file.h"

#include <fmt/format.h>

#include "error.h"
#include "io/file_io.h"

namespace attnviz {

nlohmann::json parse_json_text(std::string_view text, const std::string& source,
                               std::string_view expected) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw input_error::at_offset(
        source, e.byte > 0 ? e.byte - 1 : 0,
        expected.empty() ? std::string("is not valid JSON")
                         : fmt::format("is not valid JSON (expected {})", expected));
  } catch (const nlohmann::json::exception& e) {  // a number too large for any type (406)
    throw input_error(source, fmt::format("is not valid JSON: {}", e.what()));
  }
}

nlohmann::json parse_json_file(const std::string& path, std::string_view expected) {
  return parse_json_text(read_whole_file(path), path, expected);
}

}  // namespace attnviz
