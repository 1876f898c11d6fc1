// A model folder's vocabulary, id -> token string as the tokenizer shows it ("Ġthe", "##ing",
// "▁the", "[CLS]"), from the first of:
//   tokenizer.json   model.vocab (an object token -> id; Unigram: a list of [token, score])
//                    and added_tokens
//   vocab.json       GPT-2's object token -> id (+ added_tokens.json when present)
//   vocab.txt        BERT's one token per line, id = line number
//   spiece.model     T5's SentencePiece pieces, id = position
//   a GGUF file      tokenizer.ggml.tokens (the folder's one .gguf, or the file itself)
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace attnviz {

struct vocabulary {
  std::vector<std::string> tokens;  // by id; ids no file names stay empty
  std::string source;               // the file read
  // The token of `id`, or "<id N>" when the vocabulary has none for it.
  std::string token(std::int64_t id) const;
};

// Nothing when the folder has none of those files; input_error naming the file (and the JSON
// key) when one does not parse.
std::optional<vocabulary> read_vocabulary(const std::string& dir);
// tokenizer.json's vocabulary from the file already parsed (`path` names it in errors).
vocabulary vocabulary_of_tokenizer_json(const nlohmann::json& j, const std::string& path);

// A folder's vocabulary read at most once, for a job that names tokens in several places (its
// input, the predictions, the logit lens, generated tokens); set() when the tokenizer's own
// parse already gave it.
class vocabulary_once {
 public:
  explicit vocabulary_once(std::string dir = {}) : dir_(std::move(dir)) {}
  void set(std::optional<vocabulary> known) {
    vocab_ = std::move(known);
    read_ = true;
  }
  const std::optional<vocabulary>& get() {
    if (!read_) set(read_vocabulary(dir_));
    return vocab_;
  }

 private:
  std::string dir_;
  std::optional<vocabulary> vocab_;
  bool read_ = false;
};

}  // namespace attnviz
