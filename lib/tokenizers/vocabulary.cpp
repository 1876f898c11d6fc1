#include "tokenizers/vocabulary.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "error.h"
#include "io/mapped_file.h"
#include "params/gguf.h"
#include "tokenizers/gguf_vocab.h"
#include "io/file_io.h"
#include "io/json_file.h"
#include "tokenizers/sentencepiece_file.h"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

using json = nlohmann::json;

void put(vocabulary& v, std::int64_t id, std::string token, const std::string& path,
         const std::string& where) {
  if (id < 0 || id > (std::int64_t{1} << 26))
    throw input_error(path, fmt::format("{}: id {} is not a token id", where, id));
  if (static_cast<std::size_t>(id) >= v.tokens.size()) v.tokens.resize(static_cast<std::size_t>(id) + 1);
  v.tokens[static_cast<std::size_t>(id)] = std::move(token);
}

// An object token -> id (tokenizer.json's model.vocab, vocab.json).
void put_object(vocabulary& v, const json& object, const std::string& path,
                const std::string& where) {
  for (const auto& [token, id] : object.items()) {
    if (!id.is_number_integer())
      throw input_error(path, fmt::format("{}.{}: expected a token id", where, token));
    put(v, id.get<std::int64_t>(), token, path, where);
  }
}

}  // namespace

vocabulary vocabulary_of_tokenizer_json(const json& j, const std::string& path) {
  vocabulary v;
  v.source = path;
  if (!j.is_object() || !j.contains("model") || !j["model"].is_object() ||
      !j["model"].contains("vocab"))
    throw input_error(path, "model.vocab: expected the tokenizer's vocabulary");
  const json& vocab = j["model"]["vocab"];
  if (vocab.is_object()) {
    put_object(v, vocab, path, "model.vocab");
  } else if (vocab.is_array()) {  // Unigram: [[token, score], …], id = index
    for (std::size_t i = 0; i < vocab.size(); ++i) {
      if (!vocab[i].is_array() || vocab[i].empty() || !vocab[i][0].is_string())
        throw input_error(path, fmt::format("model.vocab[{}]: expected [token, score]", i));
      put(v, static_cast<std::int64_t>(i), vocab[i][0].get<std::string>(), path, "model.vocab");
    }
  } else {
    throw input_error(path, "model.vocab: expected an object or a list");
  }
  if (j.contains("added_tokens") && j["added_tokens"].is_array())
    for (std::size_t i = 0; i < j["added_tokens"].size(); ++i) {
      const json& t = j["added_tokens"][i];
      if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() ||
          !t.contains("content") || !t["content"].is_string())
        throw input_error(path, fmt::format("added_tokens[{}]: expected {{id, content}}", i));
      put(v, t["id"].get<std::int64_t>(), t["content"].get<std::string>(), path, "added_tokens");
    }
  return v;
}

namespace {

vocabulary from_vocab_json(const std::string& path, const fs::path& dir) {
  vocabulary v;
  v.source = path;
  const json j = parse_json_file(path);
  if (!j.is_object()) throw input_error(path, "expected an object token -> id");
  put_object(v, j, path, "vocab");
  std::error_code ec;
  const fs::path added = dir / "added_tokens.json";
  if (fs::exists(added, ec)) {
    const json a = parse_json_file(added.string());
    if (!a.is_object()) throw input_error(added.string(), "expected an object token -> id");
    put_object(v, a, added.string(), "added_tokens");
  }
  return v;
}

vocabulary from_vocab_txt(const std::string& path) {
  vocabulary v;
  v.source = path;
  std::istringstream in(read_whole_file(path));
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    v.tokens.push_back(line);
  }
  return v;
}

}  // namespace

std::string vocabulary::token(std::int64_t id) const {
  if (id >= 0 && static_cast<std::size_t>(id) < tokens.size() &&
      !tokens[static_cast<std::size_t>(id)].empty())
    return tokens[static_cast<std::size_t>(id)];
  return fmt::format("<id {}>", id);
}

std::optional<vocabulary> read_vocabulary(const std::string& dir_name) {
  if (const std::string gguf = find_gguf(dir_name); !gguf.empty()) {
    const mapped_file f = mapped_file::open_or_throw(gguf);
    const gguf_header h = parse_gguf_header(f.data(), f.size(), gguf);
    const gguf_keys keys(h, gguf);
    if (!keys.has("tokenizer.ggml.tokens")) return std::nullopt;
    return vocabulary{gguf_tokens(keys), gguf};
  }
  const fs::path dir(dir_name);
  std::error_code ec;
  if (fs::exists(dir / "tokenizer.json", ec)) {
    const std::string path = (dir / "tokenizer.json").string();
    return vocabulary_of_tokenizer_json(parse_json_file(path), path);
  }
  if (fs::exists(dir / "vocab.json", ec)) return from_vocab_json((dir / "vocab.json").string(), dir);
  if (fs::exists(dir / "vocab.txt", ec)) return from_vocab_txt((dir / "vocab.txt").string());
  if (fs::exists(dir / "spiece.model", ec)) {
    vocabulary v;
    v.source = (dir / "spiece.model").string();
    for (auto& p : read_sentencepiece_file(v.source).pieces) v.tokens.push_back(std::move(p.piece));
    return v;
  }
  return std::nullopt;
}

}  // namespace attnviz
