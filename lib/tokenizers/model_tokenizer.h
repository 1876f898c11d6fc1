// A model's own tokenizer, from the files in its folder, turning text into the ids the model was
// trained on (and the tokens as the tokenizer shows them):
//   tokenizer.json        Hugging Face's format: added/special tokens split out first; then
//                         the normalizer (BertNormalizer, NFD, NFC, Lowercase, StripAccents,
//                         Replace of a string or a regex, Prepend, Strip, Precompiled (a
//                         SentencePiece charsmap, applied as SentencePiece does: the longest rule
//                         at each position), Sequence), the pre-tokenizer
//                         (ByteLevel, Split by a regex, Metaspace, BertPreTokenizer,
//                         Whitespace, WhitespaceSplit, Punctuation, Digits, Sequence), the
//                         model (BPE with byte fallback, ignore_merges and an unknown token;
//                         WordPiece; Unigram, tokenizers/unigram.h) and the post-processor (TemplateProcessing,
//                         BertProcessing, ByteLevel)
//   vocab.json+merges.txt GPT-2's files: byte-level BPE with GPT-2's regex
//   vocab.txt             BERT's files (tokenizer_config.json's do_lower_case): WordPiece
//   spiece.model          T5's SentencePiece Unigram file (tokenizers/sentencepiece_tokenizer.h),
//                         </s> after the text
//   source.spm, target.spm + vocab.json   Marian's: the source's and the target's SentencePiece
//                         models, their pieces mapped to ids by the one vocab.json, </s> after
//   a GGUF file           tokenizer.ggml.* (tokenizers/gguf_vocab.h): the path itself, or a
//                         folder's one .gguf
// Components not in this list are refused with the file and the JSON path, never ignored.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizers/vocabulary.h"

namespace attnviz {

class gguf_keys;  // params/gguf.h

struct encoding {
  std::vector<std::int64_t> ids;
  std::vector<std::string> tokens;
};

class model_tokenizer {
 public:
  virtual ~model_tokenizer() = default;
  // The text's ids, with the special tokens the tokenizer's post-processor adds.
  virtual encoding encode(const std::string& text) const = 0;
  // The file it was read from.
  virtual const std::string& source() const = 0;
};

// Which text a translation model's tokenizer reads: Marian folders have one for each; the
// others read both with the same one.
enum class tokenizer_side { source, target };

// The folder's tokenizer, or nothing when it has none of those files. input_error naming the
// file (and the JSON path) when one does not parse or uses a component attn-viz does not run.
// With `vocab`, a tokenizer.json's vocabulary (read_vocabulary's) from the same parse.
std::unique_ptr<model_tokenizer> load_model_tokenizer(const std::string& dir,
                                                      tokenizer_side side = tokenizer_side::source,
                                                      std::optional<vocabulary>* vocab = nullptr);
// A GGUF file's tokenizer.ggml.* metadata (tokenizers/gguf_vocab.h), or nothing when it has
// none.
std::unique_ptr<model_tokenizer> gguf_tokenizer(const gguf_keys& keys);
// A tokenizer.json's text (`source` names it in errors).
std::unique_ptr<model_tokenizer> parse_tokenizer_json(std::string_view json_text,
                                                      const std::string& source);
// The same for a tokenizer.json already parsed.
std::unique_ptr<model_tokenizer> tokenizer_of(const nlohmann::json& j, const std::string& source);

}  // namespace attnviz
