// JSON read from a file or a string, with the error every reader here gives for bad JSON: the
// source and the byte offset of the first error, and what was expected there.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace attnviz {

// input_error "SOURCE: byte N: is not valid JSON (expected EXPECTED)" when `text` does not
// parse (without the bracket when `expected` is empty).
nlohmann::json parse_json_text(std::string_view text, const std::string& source,
                               std::string_view expected = {});
// The same for the whole file at `path` (input_error when it cannot be read).
nlohmann::json parse_json_file(const std::string& path, std::string_view expected = {});

}  // namespace attnviz
