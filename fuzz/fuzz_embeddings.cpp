// libFuzzer target: the embedding-file reader on arbitrary bytes.
// Allowed outcome: a table, or an input_error. Checked: every kept vector has `dim` finite values.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "error.h"
#include "text/embeddings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::unordered_set<std::string> wanted = {"the", "a", "cat",
                                                         "0",   "x", "\xe6\x9c\xba"};
  try {
    const auto table = attnviz::parse_embeddings(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz", wanted);
    if (table.dim == 0 || table.rows == 0) std::abort();
    for (const auto& [token, v] : table.vectors) {
      if (!wanted.count(token) || v.size() != table.dim) std::abort();
      for (float x : v)
        if (!std::isfinite(x)) std::abort();
    }
    if (!std::isfinite(table.mean_norm) || table.mean_norm < 0) std::abort();
  } catch (const attnviz::input_error&) {
  }
  return 0;
}
