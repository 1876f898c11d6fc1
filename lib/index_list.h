// Lists of indices as users write them: "0,5-7" -> {0, 5, 6, 7} (0-based, ranges inclusive,
// in the order written, repeats dropped), each below `limit`. Anything else is a usage_error
// naming the parameter and the valid range.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

std::vector<std::size_t> parse_index_list(std::string_view text, std::size_t limit,
                                          const std::string& parameter, const char* what);

}  // namespace attnviz
