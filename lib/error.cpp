#include "error.h"

#include <fmt/format.h>

namespace attnviz {

namespace {
constexpr char mark = '\x1f';  // unit separator: never in a message's own text
}  // namespace

std::string param(std::string_view name) {
  std::string s;
  s.reserve(name.size() + 2);
  s += mark;
  s += name;
  s += mark;
  return s;
}

std::string render_params(std::string_view marked,
                          const std::function<std::string(std::string_view)>& name_of) {
  std::string out;
  out.reserve(marked.size() + 16);
  std::size_t at = 0;
  while (at < marked.size()) {
    const std::size_t open = marked.find(mark, at);
    const std::size_t close = open == std::string_view::npos ? open : marked.find(mark, open + 1);
    if (close == std::string_view::npos) {
      out += marked.substr(at);
      break;
    }
    out += marked.substr(at, open - at);
    out += name_of(marked.substr(open + 1, close - open - 1));
    at = close + 1;
  }
  return out;
}

std::string plain_params(std::string_view marked) {
  return render_params(marked, [](std::string_view name) { return std::string(name); });
}

std::string param_name(std::string_view text) {
  if (text.size() < 2 || text.front() != mark || text.back() != mark) return {};
  const std::string_view name = text.substr(1, text.size() - 2);
  return name.find(mark) == std::string_view::npos ? std::string(name) : std::string();
}

input_error::input_error(std::string source, std::optional<std::uint64_t> line, std::string where,
                         std::string message)
    : std::runtime_error(plain_params(fmt::format("{}{}: {}", source, where, message))),
      source_(std::move(source)),
      line_(line),
      marked_(fmt::format("{}{}: {}", source_, where, message)) {}

input_error::input_error(std::string source, std::string message)
    : input_error(std::move(source), std::nullopt, "", std::move(message)) {}

input_error::input_error(std::string source, std::uint64_t line, std::string message)
    : input_error(std::move(source), line, fmt::format(":{}", line), std::move(message)) {}

usage_error::usage_error(const std::string& marked)
    : std::runtime_error(plain_params(marked)), marked_(marked) {}

input_error input_error::at_offset(std::string source, std::uint64_t byte_offset,
                                   std::string message) {
  return input_error(std::move(source), std::nullopt, fmt::format(" (byte {})", byte_offset),
                     std::move(message));
}

}  // namespace attnviz
