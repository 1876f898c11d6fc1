#include "error.h"

#include <fmt/format.h>

namespace attnviz {

input_error::input_error(std::string source, std::optional<std::uint64_t> line, std::string where,
                         std::string message)
    : std::runtime_error(fmt::format("{}{}: {}", source, where, message)),
      source_(std::move(source)),
      line_(line) {}

input_error::input_error(std::string source, std::string message)
    : input_error(std::move(source), std::nullopt, "", std::move(message)) {}

input_error::input_error(std::string source, std::uint64_t line, std::string message)
    : input_error(std::move(source), line, fmt::format(":{}", line), std::move(message)) {}

input_error input_error::at_offset(std::string source, std::uint64_t byte_offset,
                                   std::string message) {
  return input_error(std::move(source), std::nullopt, fmt::format(" (byte {})", byte_offset),
                     std::move(message));
}

}  // namespace attnviz
