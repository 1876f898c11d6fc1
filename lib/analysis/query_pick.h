// Which token a user means by --query (explain, explain --model): the token as written, or, for
// a model's pieces, without its sub-word mark ("bank" for "Ġbank"); its k-th occurrence
// ("bank#2", counting from 1); or its position ("7", counting from 0, as every array does).
// A token that occurs more than once is taken at its first occurrence, and the pick says so
// with the way to take another.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace attnviz {

struct query_pick {
  std::size_t index = 0;
  std::string note;  // for a token that occurs more than once: which one was taken; else empty
};

// `fallback`: the position an empty query means (none: an empty query is refused).
// usage_error naming param("query") for a token that is not there, a position past the end, or
// an occurrence the text does not have.
query_pick pick_query(const std::vector<std::string>& tokens, const std::string& query,
                      std::optional<std::size_t> fallback = std::nullopt);

}  // namespace attnviz
