// tokenizers/byte_level.h: GPT-2's byte alphabet and its pre-tokenizer regex.
#include <doctest/doctest.h>

#include "tokenizers/byte_level.h"

using namespace attnviz;

TEST_CASE("bytes map to GPT-2's printable alphabet") {
  CHECK(to_byte_level("a!~") == "a!~");          // printable ASCII stays
  CHECK(to_byte_level(" ") == "\xC4\xA0");       // space -> U+0120 'Ġ'
  CHECK(to_byte_level("\n") == "\xC4\x8A");      // newline -> U+010A 'Ċ'
  CHECK(to_byte_level("\xC3\xA9") == "\xC3\x83\xC2\xA9");  // é's bytes C3 A9 -> 'Ã' '©'
  CHECK(to_byte_level(std::string(1, '\0')) == "\xC4\x80");  // 0x00 -> U+0100
}

TEST_CASE("GPT-2's regex splits contractions, letters, numbers and space runs") {
  const regex_splitter re(gpt2_pattern());
  CHECK(re.split("I'm here  now 42x") ==
        std::vector<std::string>{"I", "'m", " here", " ", " now", " 42", "x"});
  CHECK(re.split("caf\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87!") ==  // letters of every script
        std::vector<std::string>{"caf\xC3\xA9", " \xE4\xB8\xAD\xE6\x96\x87", "!"});
  const regex_splitter digits(R"(\d{1,3})");  // gaps between matches are pieces too
  CHECK(digits.split("a12345b") == std::vector<std::string>{"a", "123", "45", "b"});
}
