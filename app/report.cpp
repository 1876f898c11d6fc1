#include "report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "render/views.h"
#include "text/utf8.h"

namespace attnviz::cli {
namespace {

// Display columns of a UTF-8 string: 2 for CJK and fullwidth characters, 1 otherwise.
std::size_t columns(const std::string& s) {
  std::size_t w = 0;
  for (char32_t cp : decode_utf8_lossy(s))
    w += (is_cjk(cp) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xff01 && cp <= 0xff60)) ? 2 : 1;
  return w;
}

std::string pad_left(const std::string& s, std::size_t width) {
  const std::size_t w = columns(s);
  return std::string(width > w ? width - w : 0, ' ') + s;
}

std::string clip(const std::string& s, std::size_t max_cols) {
  if (columns(s) <= max_cols) return s;
  std::string out;
  std::size_t w = 0;
  for (char32_t cp : decode_utf8_lossy(s)) {
    const std::size_t cw = columns(encode_utf8(std::u32string(1, cp)));
    if (w + cw > max_cols - 1) break;
    append_utf8(out, cp);
    w += cw;
  }
  return out + "…";
}

}  // namespace

bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) != 0;
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) fmt::print(stderr, "attn-viz: warning: {}\n", w);
}

void print_written(const std::vector<std::string>& paths) {
  for (const auto& p : paths) fmt::print("wrote {}\n", p);
}

void print_weights_table(const attention_result& r) {
  const head_result& h = r.heads.front();
  fmt::print("{}\n", variant_title(r));
  constexpr std::size_t max_cols = 16;
  const std::size_t n_k = std::min(h.weights.cols(), max_cols);
  std::size_t row_w = 0;
  std::vector<std::string> qs, ks;
  for (const auto& t : r.query_tokens) qs.push_back(clip(t, 12));
  for (const auto& t : r.key_tokens) ks.push_back(clip(t, 6));
  for (const auto& q : qs) row_w = std::max(row_w, columns(q));
  fmt::print("{}", std::string(row_w, ' '));
  for (std::size_t j = 0; j < n_k; ++j) fmt::print(" {}", pad_left(ks[j], 6));
  fmt::print("{}\n", h.weights.cols() > n_k ? " …" : "");
  for (std::size_t i = 0; i < h.weights.rows(); ++i) {
    fmt::print("{}", pad_left(qs[i], row_w));
    for (std::size_t j = 0; j < n_k; ++j) fmt::print(" {:6.3f}", h.weights(i, j));
    if (!h.chosen_keys.empty())
      fmt::print("   -> {}", h.chosen_keys[i] >= 0
                                 ? r.key_tokens[static_cast<std::size_t>(h.chosen_keys[i])]
                                 : "(none)");
    fmt::print("\n");
  }
}

}  // namespace attnviz::cli
