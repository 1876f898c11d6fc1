#include "attention/mask.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "error.h"
#include "names.h"

namespace attnviz {
namespace {

std::size_t parse_count(std::string_view text, std::string_view what) {
  std::size_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw usage_error(fmt::format("{} {}: '{}' is not a whole number", param("mask"), what, text));
  return v;
}

}  // namespace

std::vector<mask_rule> parse_masks(std::string_view list) {
  std::vector<mask_rule> rules;
  for (const std::string_view item : split_list(list)) {
    if (item.empty()) continue;
    const auto colon = item.find(':');
    const std::string kind = normalise_name(item.substr(0, colon));
    const std::string_view arg = colon == std::string_view::npos ? "" : item.substr(colon + 1);
    mask_rule r;
    if (kind == "causal" && arg.empty()) {
      r.what = mask_rule::kind::causal;
      r.text = "causal";
    } else if (kind == "window" && !arg.empty()) {
      r.what = mask_rule::kind::window;
      r.param = parse_count(arg, "window:R");
      r.text = fmt::format("window:{}", r.param);
    } else if (kind == "dilated" && !arg.empty()) {
      r.what = mask_rule::kind::dilated;
      r.param = parse_count(arg, "dilated:K");
      if (r.param == 0) throw usage_error(param("mask") + " dilated:K needs K >= 1, got 0");
      r.text = fmt::format("dilated:{}", r.param);
    } else {
      throw_unknown_name("mask", item, {"causal", "window:R", "dilated:K"},
                         {{"causal", "causal"}, {"window", "window:R"}, {"dilated", "dilated:K"}});
    }
    rules.push_back(std::move(r));
  }
  return rules;
}

bool mask_set::visible(std::size_t i, std::size_t j) const {
  const std::size_t dist = i > j ? i - j : j - i;
  for (const auto& r : rules) {
    switch (r.what) {
      case mask_rule::kind::causal:
        if (j > i) return false;
        break;
      case mask_rule::kind::window:
        if (dist > r.param) return false;
        break;
      case mask_rule::kind::dilated:
        if (dist % r.param != 0) return false;
        break;
    }
  }
  for (std::size_t k : pad_keys)
    if (k == j) return false;
  return true;
}

std::vector<std::string> mask_set::describe() const {
  std::vector<std::string> out;
  for (const auto& r : rules) out.push_back(r.text);
  if (!pad_keys.empty()) out.push_back(fmt::format("pad:{}", fmt::join(pad_keys, ",")));
  return out;
}

void check_pad_keys(const mask_set& masks, std::size_t n_k) {
  for (std::size_t k : masks.pad_keys)
    if (k >= n_k)
      throw usage_error(
          fmt::format("{} {}: there are only {} keys (0 to {})", param("pad_keys"), k, n_k,
                      n_k - 1));
}

void mask_row(const mask_set& masks, std::size_t i, float* scores, std::size_t n_k) {
  const float hide = -std::numeric_limits<float>::infinity();
  for (const auto& r : masks.rules) {
    switch (r.what) {
      case mask_rule::kind::causal:  // hides (i, n_k)
        if (i + 1 < n_k) std::fill(scores + i + 1, scores + n_k, hide);
        break;
      case mask_rule::kind::window: {  // keeps [i − R, i + R]
        const std::size_t first = std::min(i > r.param ? i - r.param : 0, n_k);
        const std::size_t end = r.param < n_k ? std::min(i + r.param + 1, n_k) : n_k;
        std::fill(scores, scores + first, hide);
        std::fill(scores + end, scores + n_k, hide);
        break;
      }
      case mask_rule::kind::dilated: {  // keeps j = i mod K, i mod K + K, ... (K >= 1)
        std::size_t from = 0;
        for (std::size_t keep = i % r.param; keep < n_k; keep += r.param) {
          std::fill(scores + from, scores + keep, hide);
          from = keep + 1;
        }
        if (from < n_k) std::fill(scores + from, scores + n_k, hide);
        break;
      }
    }
  }
  for (std::size_t k : masks.pad_keys)
    if (k < n_k) scores[k] = hide;
}

key_span visible_span(const mask_set& masks, std::size_t i, std::size_t n_k) {
  key_span span{0, n_k};
  for (const auto& r : masks.rules) {
    if (r.what == mask_rule::kind::causal) span.end = std::min(span.end, i + 1);
    if (r.what == mask_rule::kind::window) {
      span.first = std::max(span.first, i > r.param ? i - r.param : 0);
      if (r.param < n_k) span.end = std::min(span.end, i + r.param + 1);
    }
  }
  span.first = std::min(span.first, span.end);
  return span;
}

bool spans_are_exact(const mask_set& masks) {
  return masks.pad_keys.empty() &&
         std::none_of(masks.rules.begin(), masks.rules.end(),
                      [](const mask_rule& r) { return r.what == mask_rule::kind::dilated; });
}

mask_map map_masks(const mask_set& masks, std::size_t n_q, std::size_t n_k) {
  mask_map map;
  map.full_rows.assign(n_q, false);
  if (masks.empty()) return map;
  map.hidden.assign(n_q * n_k, false);
  std::vector<float> row(n_k);
  for (std::size_t i = 0; i < n_q; ++i) {
    std::fill(row.begin(), row.end(), 0.0f);
    mask_row(masks, i, row.data(), n_k);
    bool all = true;
    for (std::size_t j = 0; j < n_k; ++j) {
      const bool hidden = row[j] != 0.0f;
      map.hidden[i * n_k + j] = hidden;
      all = all && hidden;
    }
    map.full_rows[i] = all;
  }
  return map;
}

matrix apply_masks(const matrix& scores, const mask_set& masks) {
  check_pad_keys(masks, scores.cols());
  matrix out = scores;
  if (masks.empty()) return out;
  for (std::size_t i = 0; i < out.rows(); ++i) mask_row(masks, i, out.row(i), out.cols());
  return out;
}

}  // namespace attnviz
