// A few lines that explain what one query's row of a map says, with its real numbers: the
// score that ranked the keys, the top keys and their share, how spread the row is, masked
// keys, and the context it gives. The HTML page shows it for the hovered query; it is the short
// form of `attn-viz explain`'s walk through the stages (which also lists formulas, parameters
// and nearest words).
//
//   query 2 "cat" · head 1 of 2
//   1. score scaled_dot: highest e = 3.2101 for "sat", lowest -0.4120 for "it"
//   2. align softmax: top keys sat 41.2%, the 22.0%, floor 12.5% (75.7% together);
//      entropy 2.14 bits (uniform over 10 keys: 3.32)
//   3. context soft: |c_2| = 4.1234, the weighted mean of the values
#pragma once

#include <cstddef>
#include <string>

#include "attention/pipeline.h"

namespace attnviz {

struct query_row {
  const matrix* weights = nullptr;                // n_q × n_k
  const matrix* scores = nullptr;                 // may be null (not kept)
  const matrix* context = nullptr;                // may be null (a mean over heads has none)
  const std::vector<bool>* masked = nullptr;      // n_q·n_k, may be null or empty
  const std::vector<int>* chosen_keys = nullptr;  // hard context, may be null or empty
  std::string what;  // "head 1 of 2", "mean of 2 heads"; empty for a single head
};

std::string query_story(const attention_result& r, const query_row& row, std::size_t i);

}  // namespace attnviz
