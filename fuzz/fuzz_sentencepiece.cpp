// libFuzzer target: SentencePiece model files (tokenizers/sentencepiece_file.h) on arbitrary
// bytes, and when one reads, its tokenizer on a few texts (the charsmap walked, the Viterbi run).
// Allowed outcome: a tokenizer, or an input_error. Checked: every id is one of the file's
// pieces and every token non-empty.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "error.h"
#include "tokenizers/sentencepiece_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const attnviz::sp_model_file f = attnviz::parse_sentencepiece_file(bytes, "fuzz.model");
    const auto t = attnviz::make_sentencepiece_tokenizer(f, "fuzz.model", {true});
    for (const char* text : {"", "  The  Theme ", "\xef\xbd\x81\xe2\x91\xa0 caf\xc3\xa9 \xff\x80",
                             "\xe4\xb8\xad\xe6\x96\x87 <sep> 12345"}) {
      const attnviz::encoding e = t->encode(text);
      for (std::size_t i = 0; i < e.ids.size(); ++i)
        if (e.ids[i] < 0 || static_cast<std::size_t>(e.ids[i]) >= f.pieces.size() ||
            e.tokens[i].empty())
          std::abort();
    }
  } catch (const attnviz::input_error&) {
  }
  return 0;
}
