// Masks act on the scores before alignment: a masked entry becomes -inf, so every alignment
// function gives it weight exactly 0. Several masks combine: a key is visible only if every
// mask lets it through.
//
//   causal      j ≤ i                 masked decoder self-attention (Vaswani 2017)
//   window:R    |i − j| ≤ R           restricted self-attention (Vaswani 2017)
//   dilated:K   |i − j| mod K = 0     atrous / dilated self-attention
//   pad keys    j not in the list     key padding (--pad-keys 3,4)
//
// A row with every key masked gets zero weights and a zero context and is listed in the JSON's
// masked_rows; it never produces NaN.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tensor.h"

namespace attnviz {

struct mask_rule {
  enum class kind { causal, window, dilated };
  kind what = kind::causal;
  std::size_t param = 0;
  std::string text;  // as written canonically: "causal", "window:2", "dilated:3"
};

// "causal,window:2" -> rules; unknown kinds or bad numbers are usage_errors.
std::vector<mask_rule> parse_masks(std::string_view list);

struct mask_set {
  std::vector<mask_rule> rules;
  std::vector<std::size_t> pad_keys;  // key indices to hide
  bool empty() const noexcept { return rules.empty() && pad_keys.empty(); }
  bool visible(std::size_t i, std::size_t j) const;
  std::vector<std::string> describe() const;  // for titles and JSON
};

// Pad keys past n_k are a usage_error.
void check_pad_keys(const mask_set& masks, std::size_t n_k);
// Row i of the scores (n_k entries) with its hidden keys set to -inf, in place: rule by rule,
// by filling the ranges each hides (mask_set::visible is the entry-by-entry reference).
void mask_row(const mask_set& masks, std::size_t i, float* scores, std::size_t n_k);

// [first, end): the keys row i may see lie in it (first <= end <= n_k). causal and window
// narrow it to their range; dilated and pad keys do not.
struct key_span {
  std::size_t first = 0, end = 0;
};
key_span visible_span(const mask_set& masks, std::size_t i, std::size_t n_k);
// True when the masks hide exactly the keys outside visible_span (only causal and window rules).
bool spans_are_exact(const mask_set& masks);

// Which entries of an n_q × n_k map the masks hide (row-major; empty without masks) and which
// rows they hide entirely.
struct mask_map {
  std::vector<bool> hidden;
  std::vector<bool> full_rows;
};
mask_map map_masks(const mask_set& masks, std::size_t n_q, std::size_t n_k);
// Scores with masked entries set to -inf (check_pad_keys, then mask_row on every row).
matrix apply_masks(const matrix& scores, const mask_set& masks);

}  // namespace attnviz
