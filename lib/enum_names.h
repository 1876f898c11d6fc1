// One table of names per enum: the names users type and read (flags, --help, JSON, messages), in
// the order --help lists them. Each enum's table sits beside the enum; parsing, printing and the
// app's IsMember checks all read it, so a value is named in exactly one place.
//   inline constexpr named<pool_mode> pool_mode_names[] = {{"mean", pool_mode::mean}, ...};
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"

namespace attnviz {

template <class E>
struct named {
  std::string_view name;
  E value;
};

template <class E, std::size_t N>
constexpr std::string_view name_of(const named<E> (&table)[N], E value) {
  for (const auto& n : table)
    if (n.value == value) return n.name;
  return "?";
}

template <class E, std::size_t N>
std::vector<std::string> names_of(const named<E> (&table)[N]) {
  std::vector<std::string> out;
  for (const auto& n : table) out.emplace_back(n.name);
  return out;
}

// The value named `text`; a usage_error "PARAM must be a, b or c, got 'x'" otherwise.
template <class E, std::size_t N>
E value_of(const named<E> (&table)[N], std::string_view text, std::string_view param) {
  std::string list;
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i].name == text) return table[i].value;
    list += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(table[i].name);
  }
  throw usage_error(std::string(param) + " must be " + list + ", got '" + std::string(text) + "'");
}

}  // namespace attnviz
