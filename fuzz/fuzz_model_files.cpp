// libFuzzer target: the text files of a model folder, on arbitrary bytes. The input up to the
// first NUL byte is parsed as JSON once and read as a tokenizer.json, which then encodes the
// rest as text (its first text_cap bytes), and as a config.json.
// The text is capped because the inputs grow towards -max_len (128 KiB, for deeply nested
// JSON) during a long run, and encoding tens of kilobytes of text made each execution several
// times slower without reaching other code: no tokenizer path depends on a text longer than a
// few hundred bytes (WordPiece's max_input_chars_per_word is 100 by default; a longer one can
// be set in the JSON and still fits). Long texts are tested in tests/e2e/test_tokenizers.py.
// Allowed outcomes: a tokenizer, ids within what it declared and as many tokens as ids, a
// config; or an input_error. Anything else (another exception, a crash, a sanitizer report)
// is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "error.h"
#include "io/json_file.h"
#include "model/hf_config.h"
#include "tokenizers/model_tokenizer.h"

namespace {
constexpr std::size_t text_cap = 1024;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string json = input.substr(0, nul);
  const std::string text = nul == std::string::npos ? "" : input.substr(nul + 1, text_cap);
  nlohmann::json parsed;
  try {
    parsed = attnviz::parse_json_text(json, "tokenizer.json");
  } catch (const attnviz::input_error&) {
    return 0;
  }
  try {
    const auto tokenizer = attnviz::tokenizer_of(parsed, "tokenizer.json");
    const attnviz::encoding e = tokenizer->encode(text);
    if (e.ids.size() != e.tokens.size()) std::abort();
  } catch (const attnviz::input_error&) {
  }
  if (!parsed.is_object()) return 0;  // parse_model_config's first refusal
  try {
    const attnviz::model_config c = attnviz::model_config_of(parsed, "config.json");
    if (c.heads == 0 || c.head_dim == 0 || c.kv_heads == 0 || c.heads % c.kv_heads != 0) std::abort();
  } catch (const attnviz::input_error&) {
  }
  return 0;
}
