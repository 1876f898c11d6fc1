// JSON read from a file or a string, with the error every reader here gives for bad JSON: the
// source and the byte offset of the first error, and what was expected there.
//
// Nesting is bounded before parsing: no file attn-viz reads nests deeper than a few dozen
// levels (tokenizer.json's Sequences, an attention file's five dimensions), and code that walks
// a parsed document by recursion must never meet a 100,000-level one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace attnviz {

// The deepest nesting of arrays and objects any reader accepts unless it asks for less.
inline constexpr std::size_t json_max_depth = 64;

// input_error "SOURCE: byte N: nests deeper than MAX levels of lists and objects" at the first
// bracket past `max_depth` (brackets inside strings do not count; N counts from `base`, where
// the text starts in its file). Linear, no allocation.
void check_json_depth(std::string_view text, const std::string& source,
                      std::size_t max_depth = json_max_depth, std::uint64_t base = 0);

// input_error "SOURCE: byte N: is not valid JSON (expected EXPECTED)" when `text` does not
// parse (without the bracket when `expected` is empty), or nests deeper than `max_depth`.
nlohmann::json parse_json_text(std::string_view text, const std::string& source,
                               std::string_view expected = {},
                               std::size_t max_depth = json_max_depth);
// The same for the whole file at `path` (input_error when it cannot be read).
nlohmann::json parse_json_file(const std::string& path, std::string_view expected = {},
                               std::size_t max_depth = json_max_depth);

}  // namespace attnviz
