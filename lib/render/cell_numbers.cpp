#include "render/cell_numbers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace attnviz {
namespace {

// In order of preference: 0.01 steps, then 0.1 steps, then one significant digit.
constexpr number_style every_style[] = {number_style::fixed2, number_style::bare2,
                                        number_style::percent, number_style::fixed1,
                                        number_style::bare1,  number_style::sci};

// Formats coarser than 0.01 leave a non-zero value that reads as zero blank.
bool coarse(number_style s) {
  return s == number_style::fixed1 || s == number_style::bare1 || s == number_style::percent;
}

bool reads_zero(const std::string& t) {
  return std::none_of(t.begin(), t.end(), [](char c) { return c >= '1' && c <= '9'; });
}

// "0.05", "0.5 %": the smallest value a coarse style writes as non-zero.
std::string smallest_shown(number_style s) {
  return s == number_style::percent ? "0.5 %" : "0.05";
}

std::string style_words(number_style s) {
  switch (s) {
    case number_style::bare2:
    case number_style::bare1:
      return "numbers without the leading 0 (.12 = 0.12)";
    case number_style::percent:
      return "numbers in percent (12 = 0.12)";
    case number_style::sci:
      return "numbers as 3e-4 = 0.0003";
    default:
      return "";
  }
}

std::string thousands(std::size_t n) {
  std::string s = std::to_string(n);
  for (int at = static_cast<int>(s.size()) - 3; at > 0; at -= 3)
    s.insert(static_cast<std::size_t>(at), ",");
  return s;
}

}  // namespace

std::string format_cell_number(double v, number_style style) {
  std::string s;
  switch (style) {
    case number_style::fixed2: s = fmt::format("{:.2f}", v); break;
    case number_style::fixed1: s = fmt::format("{:.1f}", v); break;
    case number_style::bare2: s = fmt::format("{:.2f}", v); break;
    case number_style::bare1: s = fmt::format("{:.1f}", v); break;
    case number_style::percent: s = fmt::format("{:.0f}", v * 100.0); break;
    case number_style::sci: {
      if (v == 0.0) return "0";
      s = fmt::format("{:.0e}", v);  // "3e-04"
      const std::size_t e = s.find('e');
      std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
      const bool negative = exponent[0] == '-';
      exponent.erase(0, 1);
      exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
      s = mantissa + "e" + (negative ? "-" : "") + exponent;
      break;
    }
  }
  if (s[0] == '-' && reads_zero(s)) s.erase(0, 1);  // no "-0.0"
  if (style == number_style::bare2 || style == number_style::bare1) {
    const std::size_t at = s[0] == '-' ? 1 : 0;
    if (s.compare(at, 2, "0.") == 0) s.erase(at, 1);
  }
  return s;
}

cell_numbers plan_cell_numbers(const heatmap_spec& spec, int cell, int scale) {
  cell_numbers out;
  if (spec.annotate == annotate_mode::off) return out;
  const matrix& m = *spec.values;
  const std::size_t n = m.size();
  auto hidden = [&](std::size_t k) { return k < spec.hidden.size() && spec.hidden[k]; };
  bool unit_range = true;  // every visible value in [0, 1]: percent reads right
  std::size_t visible = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (hidden(k)) continue;
    ++visible;
    const double v = m.data()[k];
    if (!(v >= 0.0 && v <= 1.0)) unit_range = false;
  }
  const auto fits = [&](const std::string& t) {
    return static_cast<int>(t.size()) * 8 * scale + 4 <= cell;
  };
  // no number anywhere: `on` says why
  const auto none = [&] {
    if (spec.annotate == annotate_mode::on && visible > 0)
      out.note = fmt::format("numbers left out: cells of {} px have no room for one", cell);
    return out;
  };
  // Before formatting every cell: `automatic` writes at least "0.0" (3 characters) in a cell,
  // `on` at least one character; a cell too small for that takes no number at all (a map of
  // thousands of tokens has 1-px cells and millions of them).
  const int shortest = spec.annotate == annotate_mode::automatic ? 3 : 1;
  if (!fits(std::string(static_cast<std::size_t>(shortest), '0'))) return none();

  struct trial {
    number_style style;
    std::vector<std::string> texts;
    std::size_t written = 0, too_wide = 0, too_small = 0;
    std::size_t telling = 0;  // written and not a non-zero value reading 0.00
  };
  auto attempt = [&](number_style style) {
    trial t{style, std::vector<std::string>(n), 0, 0, 0, 0};
    for (std::size_t k = 0; k < n; ++k) {
      if (hidden(k)) continue;
      const double v = m.data()[k];
      if (!std::isfinite(v)) {
        ++t.too_wide;
        continue;
      }
      std::string s = format_cell_number(v, style);
      if (!fits(s)) {
        ++t.too_wide;
      } else if (coarse(style) && v != 0.0 && reads_zero(s)) {
        ++t.too_small;
      } else {
        t.telling += v == 0.0 || !reads_zero(s);
        t.texts[k] = std::move(s);
        ++t.written;
      }
    }
    return t;
  };

  trial best{number_style::fixed2, {}, 0, 0, 0, 0};
  if (spec.annotate == annotate_mode::automatic) {
    // as before: two or one decimals when every visible cell takes its number
    for (number_style s : {number_style::fixed2, number_style::fixed1}) {
      trial t = attempt(s);
      if (t.written == visible && visible > 0) {
        best = std::move(t);
        break;
      }
    }
  } else {
    for (number_style s : every_style) {
      if (s == number_style::percent && !unit_range) continue;
      if (s == number_style::sci && best.telling > 0) break;  // only when nothing else tells
      trial t = attempt(s);
      if (t.telling > best.telling) best = std::move(t);
      if (best.telling == visible) break;
    }
  }
  if (best.written == 0) return none();
  out.any = true;
  out.style = best.style;
  out.texts = std::move(best.texts);
  out.blank = visible - best.written;
  std::string note = style_words(best.style);
  if (out.blank > 0) {
    std::string why;
    if (best.too_small > 0) why = "below " + smallest_shown(best.style);
    if (best.too_wide > 0) why += std::string(why.empty() ? "" : " or ") + "no room";
    note += fmt::format("{}{} of {} cells blank: {}", note.empty() ? "" : "; ",
                        thousands(out.blank), thousands(visible), why);
  }
  out.note = std::move(note);
  return out;
}

}  // namespace attnviz
