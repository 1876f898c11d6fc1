// The tokenizer a GGUF file's metadata describes (tokenizer.ggml.*), in tokenizer.json's terms,
// so that the same pipeline runs it (model_tokenizer.h):
//
//   tokenizer.ggml.model "llama"  SentencePiece BPE: tokens, scores, token_type (1 normal,
//        2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte). Merges are every split of a
//        normal token into two normal tokens, ranked by the merged token's score (highest
//        first), which is SentencePiece's rule: merge the adjacent pair whose union scores
//        highest. Byte fallback on; ▁ for spaces and one in front when add_space_prefix
//        (default true).
//   tokenizer.ggml.model "gpt2"   byte-level BPE: tokens, merges ("a b"), and the
//        pre-tokenizer tokenizer.ggml.pre names: default / gpt-2 (GPT-2's regex), llama-bpe /
//        llama3 / smaug-bpe (Llama 3's, merges ignored for whole-vocabulary words), qwen2
//        (Llama 3's with single digits)
//   both: control and user-defined tokens split out of the text first; add_bos_token
//        (default: true for llama, false for gpt2) and add_eos_token put bos_token_id /
//        eos_token_id around the text.
// Other tokenizer models (bert, t5, rwkv) and pre-tokenizers are refused by name.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "params/gguf.h"

namespace attnviz {

nlohmann::json gguf_tokenizer_json(const gguf_keys& keys);

// tokenizer.ggml.tokens: id → token.
std::vector<std::string> gguf_tokens(const gguf_keys& keys);

}  // namespace attnviz
