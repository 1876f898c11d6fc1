// A SentencePiece Unigram model file as a model tokenizer: the file's normaliser
// (tokenizers/sp_normalizer.h, its user-defined pieces kept whole), then the Unigram
// segmentation (tokenizers/unigram.h) of the whole normalised text, as SentencePiece's own
// encoder does (no pre-tokenizer: a piece may span what a space separated when its pieces say
// so). Options for the model folders that use such files:
//   append_eos   the end-of-sentence piece after the text (T5's </s>)
// Files of another model type (BPE, word, char) are refused naming the type.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "tokenizers/model_tokenizer.h"
#include "tokenizers/sentencepiece_file.h"

namespace attnviz {

struct sp_tokenizer_options {
  bool append_eos = false;
  std::shared_ptr<const std::unordered_map<std::string, std::int64_t>> vocab;
};

std::unique_ptr<model_tokenizer> make_sentencepiece_tokenizer(const sp_model_file& file,
                                                              const std::string& source,
                                                              sp_tokenizer_options options);

}  // namespace attnviz
