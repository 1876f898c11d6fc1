// Typed errors thrown by the library. app/ turns each into one message and an exit code:
//   input_error, usage_error -> exit 2 (the user can fix it)
//   anything else            -> exit 1 (a bug or an environment failure)
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attnviz {

// The library speaks in parameters, not in one front end's flags: a message names a setting with
// param("window"), which marks the name in the text. what() shows it plainly ("window must be at
// least 1, got 0"); a front end that calls the setting something else renders the marked text
// with its own names (the CLI, app/options.cpp: "--window must be at least 1, got 0").
// Parameter names are the settings' names in snake_case.
std::string param(std::string_view name);
// `marked` with every param() mark replaced by name_of(the parameter's name).
std::string render_params(std::string_view marked,
                          const std::function<std::string(std::string_view)>& name_of);
// The same with the plain names.
std::string plain_params(std::string_view marked);
// The name when `text` is exactly one param() mark, else empty.
std::string param_name(std::string_view text);

// Bad input data: names the file (or param("text") etc.), the line or byte offset when known,
// and what was expected. what() is the full message with plain parameter names; marked() the
// same with param() marks, for a front end to render.
class input_error : public std::runtime_error {
 public:
  input_error(std::string source, std::string message);
  input_error(std::string source, std::uint64_t line, std::string message);

  static input_error at_offset(std::string source, std::uint64_t byte_offset, std::string message);

  const std::string& source() const noexcept { return source_; }
  std::optional<std::uint64_t> line() const noexcept { return line_; }
  const std::string& marked() const noexcept { return marked_; }

 private:
  input_error(std::string source, std::optional<std::uint64_t> line, std::string where,
              std::string message);
  std::string source_;
  std::optional<std::uint64_t> line_;
  std::string marked_;
};

// A bad setting or combination of settings. what() and marked() as for input_error.
class usage_error : public std::runtime_error {
 public:
  explicit usage_error(const std::string& marked);
  explicit usage_error(const char* marked) : usage_error(std::string(marked)) {}
  const std::string& marked() const noexcept { return marked_; }

 private:
  std::string marked_;
};

}  // namespace attnviz
