#include "tokenizers/gguf_vocab.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "error.h"

namespace attnviz {

namespace {

using json = nlohmann::json;

enum token_type { normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };

const char* const kLlama3Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const kQwen2Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| "
    "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

std::vector<int> types_of(const gguf_keys& k, std::size_t n) {
  std::vector<int> types(n, normal);
  if (!k.has("tokenizer.ggml.token_type")) return types;
  const json& t = k.array("tokenizer.ggml.token_type", gguf_value_type::i32);
  if (t.size() != n)
    k.fail("tokenizer.ggml.token_type", fmt::format("one type per token ({})", n));
  for (std::size_t i = 0; i < n; ++i) types[i] = t[i].get<int>();
  return types;
}

json added_tokens(const std::vector<std::string>& tokens, const std::vector<int>& types) {
  json added = json::array();
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (types[i] == control || types[i] == user_defined)
      added.push_back({{"id", i}, {"content", tokens[i]}, {"single_word", false},
                       {"lstrip", false}, {"rstrip", false}, {"normalized", false},
                       {"special", types[i] == control}});
  return added;
}

// The first id of each token (a repeated token keeps its first id).
json vocab_object(const std::vector<std::string>& tokens) {
  json v = json::object();
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (!v.contains(tokens[i])) v[tokens[i]] = i;
  return v;
}

std::optional<std::uint64_t> token_id(const gguf_keys& k, const char* key, std::size_t n) {
  const auto id = k.index(key);
  if (id && *id >= n) k.fail(key, fmt::format("a token id below {}", n));
  return id;
}

// BOS / EOS around the text, as the metadata's add_*_token flags say.
json post_processor(const gguf_keys& k, const std::vector<std::string>& tokens, bool bos_default) {
  json single = json::array(), specials = json::object();
  const auto add = [&](const char* id_key, bool before) {
    const auto id = token_id(k, id_key, tokens.size());
    if (!id) return;
    const std::string& t = tokens[*id];
    json piece = {{"SpecialToken", {{"id", t}, {"type_id", 0}}}};
    if (before) single.insert(single.begin(), piece); else single.push_back(piece);
    specials[t] = {{"id", t}, {"ids", {*id}}, {"tokens", {t}}};
  };
  single.push_back({{"Sequence", {{"id", "A"}, {"type_id", 0}}}});
  if (k.flag_or("tokenizer.ggml.add_bos_token", bos_default)) add("tokenizer.ggml.bos_token_id", true);
  if (k.flag_or("tokenizer.ggml.add_eos_token", false)) add("tokenizer.ggml.eos_token_id", false);
  return {{"type", "TemplateProcessing"}, {"single", single}, {"pair", json::array()},
          {"special_tokens", specials}};
}

// Every split of a normal token into two normal tokens, ranked by the token's score.
json spm_merges(const std::vector<std::string>& tokens, const std::vector<float>& scores,
                const std::vector<int>& types) {
  std::unordered_map<std::string, std::size_t> normal_ids;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (types[i] == normal) normal_ids.emplace(tokens[i], i);
  std::vector<std::tuple<float, std::size_t, std::size_t, std::size_t>> ranked;  // score, id,
                                                                                 // left, split
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (types[i] != normal) continue;
    const std::string& t = tokens[i];
    for (std::size_t p = 1; p < t.size(); ++p) {
      if ((static_cast<unsigned char>(t[p]) & 0xC0) == 0x80) continue;  // inside a character
      const auto l = normal_ids.find(t.substr(0, p));
      if (l == normal_ids.end() || !normal_ids.count(t.substr(p))) continue;
      ranked.emplace_back(scores[i], i, l->second, p);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
    return std::make_pair(std::get<1>(a), std::get<2>(a)) <
           std::make_pair(std::get<1>(b), std::get<2>(b));
  });
  json merges = json::array();
  for (const auto& [score, id, left, split] : ranked)
    merges.push_back({tokens[id].substr(0, split), tokens[id].substr(split)});
  return merges;
}

json spm_tokenizer(const gguf_keys& k, const std::vector<std::string>& tokens,
                   const std::vector<int>& types) {
  const json& s = k.array("tokenizer.ggml.scores", gguf_value_type::f32);
  if (s.size() != tokens.size())
    k.fail("tokenizer.ggml.scores", fmt::format("one score per token ({})", tokens.size()));
  std::vector<float> scores;
  for (const auto& v : s) scores.push_back(v.get<float>());
  json model = {{"type", "BPE"}, {"vocab", vocab_object(tokens)},
                {"merges", spm_merges(tokens, scores, types)}, {"byte_fallback", true},
                {"fuse_unk", true}};
  if (const auto unk = token_id(k, "tokenizer.ggml.unknown_token_id", tokens.size()))
    model["unk_token"] = tokens[*unk];
  json normalizers = json::array();
  if (k.flag_or("tokenizer.ggml.add_space_prefix", true))
    normalizers.push_back({{"type", "Prepend"}, {"prepend", "\u2581"}});
  normalizers.push_back({{"type", "Replace"}, {"pattern", {{"String", " "}}},
                         {"content", "\u2581"}});
  return {{"model", model},
          {"normalizer", {{"type", "Sequence"}, {"normalizers", normalizers}}},
          {"pre_tokenizer", nullptr},
          {"added_tokens", added_tokens(tokens, types)},
          {"post_processor", post_processor(k, tokens, true)}};
}

json byte_level(bool use_regex) {
  return {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false},
          {"use_regex", use_regex}};
}

json split_then_bytes(const char* regex) {
  return {{"type", "Sequence"},
          {"pretokenizers",
           {{{"type", "Split"}, {"pattern", {{"Regex", regex}}}, {"behavior", "Isolated"},
             {"invert", false}},
            byte_level(false)}}};
}

json gpt2_tokenizer(const gguf_keys& k, const std::vector<std::string>& tokens,
                    const std::vector<int>& types) {
  const json& merges = k.array("tokenizer.ggml.merges", gguf_value_type::string);
  const std::string pre = k.text_or("tokenizer.ggml.pre", "default");
  json model = {{"type", "BPE"}, {"vocab", vocab_object(tokens)}, {"merges", merges},
                {"byte_fallback", false}, {"ignore_merges", false}};
  json t = {{"model", model}, {"normalizer", nullptr}};
  if (pre == "default" || pre == "gpt-2" || pre == "gpt2") {
    t["pre_tokenizer"] = byte_level(true);  // GPT-2's regex
  } else if (pre == "llama-bpe" || pre == "llama3" || pre == "smaug-bpe") {
    t["pre_tokenizer"] = split_then_bytes(kLlama3Regex);
    t["model"]["ignore_merges"] = true;
  } else if (pre == "qwen2") {
    t["pre_tokenizer"] = split_then_bytes(kQwen2Regex);
    t["normalizer"] = {{"type", "NFC"}};
  } else {
    k.fail("tokenizer.ggml.pre", "default, gpt-2, llama-bpe, llama3, smaug-bpe or qwen2 (the "
                                 "pre-tokenizers attn-viz runs)");
  }
  t["added_tokens"] = added_tokens(tokens, types);
  t["post_processor"] = post_processor(k, tokens, false);
  return t;
}

}  // namespace

std::vector<std::string> gguf_tokens(const gguf_keys& keys) {
  std::vector<std::string> tokens;
  for (const auto& t : keys.array("tokenizer.ggml.tokens", gguf_value_type::string))
    tokens.push_back(t.get<std::string>());
  return tokens;
}

json gguf_tokenizer_json(const gguf_keys& keys) {
  const std::string model = keys.text_or("tokenizer.ggml.model", "");
  const std::vector<std::string> tokens = gguf_tokens(keys);
  const std::vector<int> types = types_of(keys, tokens.size());
  if (model == "llama") return spm_tokenizer(keys, tokens, types);
  if (model == "gpt2") return gpt2_tokenizer(keys, tokens, types);
  keys.fail("tokenizer.ggml.model", "llama (SentencePiece BPE) or gpt2 (byte-level BPE), the "
                                    "tokenizers attn-viz runs from GGUF");
}

}  // namespace attnviz
