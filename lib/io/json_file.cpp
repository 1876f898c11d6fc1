#include "io/json_file.h"

#include <fmt/format.h>

#include "error.h"
#include "io/file_io.h"

namespace attnviz {

void check_json_depth(std::string_view text, const std::string& source, std::size_t max_depth,
                      std::uint64_t base) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw input_error::at_offset(
            source, base + i,
            fmt::format("nests deeper than {} levels of lists and objects (no file attn-viz "
                        "reads needs more)",
                        max_depth));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

nlohmann::json parse_json_text(std::string_view text, const std::string& source,
                               std::string_view expected, std::size_t max_depth) {
  check_json_depth(text, source, max_depth);
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

nlohmann::json parse_json_file(const std::string& path, std::string_view expected,
                               std::size_t max_depth) {
  return parse_json_text(read_whole_file(path), path, expected, max_depth);
}

}  // namespace attnviz
