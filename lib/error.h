// Typed errors thrown by the library. app/ turns each into one message and an exit code:
//   input_error, usage_error -> exit 2 (the user can fix it)
//   anything else            -> exit 1 (a bug or an environment failure)
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace attnviz {

// Bad input data: names the file (or "--text" etc.), the line or byte offset when known,
// and what was expected. what() is the full, user-facing message.
class input_error : public std::runtime_error {
 public:
  input_error(std::string source, std::string message);
  input_error(std::string source, std::uint64_t line, std::string message);

  static input_error at_offset(std::string source, std::uint64_t byte_offset, std::string message);

  const std::string& source() const noexcept { return source_; }
  std::optional<std::uint64_t> line() const noexcept { return line_; }

 private:
  input_error(std::string source, std::optional<std::uint64_t> line, std::string where,
              std::string message);
  std::string source_;
  std::optional<std::uint64_t> line_;
};

// A bad option or combination of options.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace attnviz
