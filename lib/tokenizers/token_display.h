// A model's tokens as a reader should see them in figures, pages and the terminal, while
// tokens.json and the JSON keep the tokenizer's own strings:
//   byte-level BPE (GPT-2, RoBERTa, Llama 3)  "Ġthe" -> "·the", "Ċ" -> "⏎", "ĉ" -> "⇥": the
//       byte alphabet decoded to text; bytes that do not make whole UTF-8 characters (a CJK
//       character split over two tokens) as <0xE6>
//   SentencePiece                             "▁the" -> "·the", "<0x0A>" -> "⏎"
//   WordPiece and special tokens               unchanged ("##ing", "[CLS]", "<|endoftext|>")
// A leading or inner space is a middle dot, a line break ⏎, a tab ⇥, other control characters
// <0xNN>. Whether a sequence is byte-level is read from the tokens themselves (some token uses
// one of the alphabet's stand-ins for a space or control byte, and every token is spelled in the
// alphabet), so tokens from another tool (draw --tokens) read the same way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

// True when the tokens are spelled in GPT-2's byte-level alphabet (see above).
bool is_byte_level_sequence(const std::vector<std::string>& tokens);

// One token as shown; `byte_level` as is_byte_level_sequence says of its sequence.
std::string display_token(std::string_view token, bool byte_level);

// Every token of a sequence as shown.
std::vector<std::string> display_tokens(const std::vector<std::string>& tokens);

// The text a sequence of tokens spells (a generated translation): byte-level tokens decoded to
// their bytes; SentencePiece's ▁ as a space and <0xNN> pieces as their bytes; one leading space
// dropped. Bytes that do not form UTF-8 become U+FFFD. The caller leaves out special tokens.
std::string tokens_to_text(const std::vector<std::string>& tokens);

}  // namespace attnviz
