// libFuzzer target: the tokenizer on arbitrary bytes.
// Allowed outcome: tokens, or an input_error (invalid UTF-8). Checked: no token is empty or
// holds a space or control character, every token is valid UTF-8, and pre-tokenised splitting
// of the tokens joined by spaces gives the same tokens back.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "error.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool keep_case : {false, true}) {
    try {
      const auto tokens = attnviz::tokenize(text, {keep_case}, "fuzz");
      std::string joined;
      for (const auto& t : tokens) {
        if (t.empty()) std::abort();
        for (char32_t cp : attnviz::decode_utf8(t, "token"))
          if (attnviz::is_space(cp) || attnviz::is_control(cp)) std::abort();
        joined += t + " ";
      }
      if (attnviz::split_pretokenized(joined, "joined") != tokens) std::abort();
    } catch (const attnviz::input_error&) {
    }
  }
  return 0;
}
