#include "tokenizers/model_tokenizer.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "error.h"
#include "io/file_io.h"
#include "tokenizers/bpe.h"
#include "tokenizers/byte_level.h"

namespace attnviz {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct added_token {
  std::string content;
  std::int64_t id = 0;
  bool lstrip = false, rstrip = false;
};

// Byte-level BPE with optional regex splits before it and a template around it.
class bpe_tokenizer final : public model_tokenizer {
 public:
  bpe_tokenizer(std::string source, bpe_model model) : source_(std::move(source)), bpe_(std::move(model)) {}

  std::vector<added_token> added;
  std::vector<regex_splitter> splits;  // Split pre-tokenizers, in order
  bool byte_level = true, byte_level_regex = true, add_prefix_space = false;
  encoding prefix, suffix;             // the template's special tokens around the text

  encoding encode(const std::string& text) const override {
    encoding out = prefix;
    std::size_t at = 0;
    while (at < text.size()) {
      // the earliest added token (the longest where several start at the same place)
      std::size_t best = std::string::npos;
      const added_token* hit = nullptr;
      for (const auto& a : added) {
        if (a.content.empty()) continue;
        const std::size_t p = text.find(a.content, at);
        if (p != std::string::npos &&
            (p < best || (p == best && a.content.size() > hit->content.size())))
          best = p, hit = &a;
      }
      std::size_t end = hit ? best : text.size();
      std::size_t next = hit ? best + hit->content.size() : text.size();
      if (hit && hit->lstrip)
        while (end > at && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
      if (hit && hit->rstrip)
        while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
      encode_plain(text.substr(at, end - at), out, at == 0);
      if (hit) {
        out.ids.push_back(hit->id);
        out.tokens.push_back(hit->content);
      }
      at = next;
    }
    out.ids.insert(out.ids.end(), suffix.ids.begin(), suffix.ids.end());
    out.tokens.insert(out.tokens.end(), suffix.tokens.begin(), suffix.tokens.end());
    return out;
  }

  const std::string& source() const override { return source_; }

 private:
  void encode_plain(std::string text, encoding& out, bool first) const {
    if (text.empty()) return;
    std::vector<std::string> pieces{std::move(text)};
    for (const auto& s : splits) {
      std::vector<std::string> next;
      for (const auto& p : pieces)
        for (auto& q : s.split(p)) next.push_back(std::move(q));
      pieces.swap(next);
    }
    if (byte_level) {
      if (add_prefix_space && first && !pieces.empty() && pieces.front()[0] != ' ')
        pieces.front().insert(0, 1, ' ');
      if (byte_level_regex) {
        static const regex_splitter gpt2(gpt2_pattern());
        std::vector<std::string> next;
        for (const auto& p : pieces)
          for (auto& q : gpt2.split(p)) next.push_back(std::move(q));
        pieces.swap(next);
      }
      for (auto& p : pieces) p = to_byte_level(p);
    }
    for (const auto& p : pieces) bpe_.encode(p, out.ids, out.tokens);
  }

  std::string source_;
  bpe_model bpe_;
};

json parse_json_file(const std::string& path) {
  try {
    return json::parse(read_whole_file(path));
  } catch (const json::parse_error& e) {
    throw input_error::at_offset(path, e.byte > 0 ? e.byte - 1 : 0, "is not valid JSON");
  }
}

[[noreturn]] void unsupported(const std::string& path, const std::string& where,
                              const json& value, const char* supported) {
  throw input_error(path, fmt::format("{}: {} is not supported (attn-viz runs {})", where,
                                      value.is_object() && value.contains("type")
                                          ? value["type"].dump()
                                          : value.dump().substr(0, 80),
                                      supported));
}

// j[key] as T, or `fallback` when j has no such key or holds null there.
template <class T>
T get_or(const json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

// j[key], or an empty value of the same kind when j has no such key (a reference that stays
// valid: loops over it must not iterate a temporary).
const json& member(const json& j, const char* key, const json& empty) {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? empty : *it;
}
const json empty_array = json::array();
const json empty_object = json::object();
const json null_value;

std::string type_of(const json& j) {
  return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>()
                                                                      : std::string();
}

// ByteLevel or Split or a Sequence of them, into the tokenizer.
void read_pre_tokenizer(const json& p, const std::string& path, const std::string& where,
                        bpe_tokenizer& t) {
  const std::string type = type_of(p);
  if (p.is_null()) {
    t.byte_level = false;
  } else if (type == "ByteLevel") {
    t.byte_level = true;
    t.add_prefix_space = get_or(p, "add_prefix_space", false);
    t.byte_level_regex = get_or(p, "use_regex", true);
  } else if (type == "Split") {
    if (!p.contains("pattern") || !p["pattern"].is_object() || !p["pattern"].contains("Regex"))
      unsupported(path, where + ".pattern", member(p, "pattern", null_value), "a Regex pattern");
    const std::string behavior = get_or<std::string>(p, "behavior", "Isolated");
    if (behavior != "Isolated" || get_or(p, "invert", false))
      unsupported(path, where + ".behavior", json(behavior), "Isolated, not inverted");
    t.splits.emplace_back(p["pattern"]["Regex"].get<std::string>());
  } else if (type == "Sequence") {
    t.byte_level = false;
    for (std::size_t i = 0; i < member(p, "pretokenizers", empty_array).size(); ++i)
      read_pre_tokenizer(p["pretokenizers"][i], path, fmt::format("{}.pretokenizers[{}]", where, i),
                         t);
  } else {
    unsupported(path, where, p, "ByteLevel, Split and Sequence with a BPE model");
  }
}

// TemplateProcessing's "single": the special tokens before and after the sequence.
void read_template(const json& p, const std::string& path, bpe_tokenizer& t) {
  const std::string type = type_of(p);
  if (p.is_null() || type == "ByteLevel") return;
  if (type != "TemplateProcessing")
    unsupported(path, "post_processor", p, "TemplateProcessing and ByteLevel");
  bool after = false;
  for (const auto& piece : member(p, "single", empty_array)) {
    if (piece.contains("Sequence")) {
      after = true;
      continue;
    }
    if (!piece.contains("SpecialToken"))
      unsupported(path, "post_processor.single", piece, "SpecialToken and Sequence");
    const std::string name = piece["SpecialToken"].value("id", "");
    const json& special = p["special_tokens"][name];
    if (!special.is_object() || !special.contains("ids"))
      throw input_error(path, fmt::format("post_processor.special_tokens.{}: expected its ids",
                                          name));
    encoding& side = after ? t.suffix : t.prefix;
    for (std::size_t i = 0; i < special["ids"].size(); ++i) {
      side.ids.push_back(special["ids"][i].get<std::int64_t>());
      side.tokens.push_back(special["tokens"][i].get<std::string>());
    }
  }
}

std::vector<std::pair<std::string, std::string>> read_merges(const json& merges,
                                                             const std::string& path) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < merges.size(); ++i) {
    const json& m = merges[i];
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const auto space = s.find(' ', 1);
      if (space == std::string::npos)
        throw input_error(path, fmt::format("model.merges[{}]: expected \"left right\"", i));
      out.emplace_back(s.substr(0, space), s.substr(space + 1));
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      out.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
    } else {
      throw input_error(path, fmt::format("model.merges[{}]: expected \"left right\" or [left, "
                                          "right]",
                                          i));
    }
  }
  return out;
}

std::unique_ptr<model_tokenizer> read_tokenizer_json(const std::string& path) {
  const json j = parse_json_file(path);
  if (!j.is_object() || !j.contains("model") || !j["model"].is_object())
    throw input_error(path, "model: expected the tokenizer's model");
  const json& model = j["model"];
  if (type_of(model) != "BPE") unsupported(path, "model", model, "BPE");
  if (!member(j, "normalizer", null_value).is_null())
    unsupported(path, "normalizer", j["normalizer"], "none with a BPE model");
  std::unordered_map<std::string, std::int64_t> vocab;
  for (const auto& [token, id] : member(model, "vocab", empty_object).items())
    vocab[token] = id.get<std::int64_t>();
  bpe_options o;
  o.byte_fallback = get_or(model, "byte_fallback", false);
  o.ignore_merges = get_or(model, "ignore_merges", false);
  if (model.contains("unk_token") && model["unk_token"].is_string()) o.unk = model["unk_token"];
  if (model.contains("continuing_subword_prefix") && model["continuing_subword_prefix"].is_string())
    o.continuing_subword_prefix = model["continuing_subword_prefix"];
  if (model.contains("end_of_word_suffix") && model["end_of_word_suffix"].is_string())
    o.end_of_word_suffix = model["end_of_word_suffix"];
  auto t = std::make_unique<bpe_tokenizer>(
      path, bpe_model(std::move(vocab), read_merges(member(model, "merges", empty_array), path), o));
  for (const auto& a : member(j, "added_tokens", empty_array))
    t->added.push_back({get_or<std::string>(a, "content", ""), get_or<std::int64_t>(a, "id", 0),
                        get_or(a, "lstrip", false), get_or(a, "rstrip", false)});
  read_pre_tokenizer(member(j, "pre_tokenizer", null_value), path, "pre_tokenizer", *t);
  read_template(member(j, "post_processor", null_value), path, *t);
  return t;
}

// Any entry of the wrong JSON type is an input_error naming the file, never an internal error.
std::unique_ptr<model_tokenizer> from_tokenizer_json(const std::string& path) {
  try {
    return read_tokenizer_json(path);
  } catch (const json::exception& e) {
    throw input_error(path, fmt::format("an entry does not have the type the format expects "
                                        "({})",
                                        e.what()));
  }
}

std::unique_ptr<model_tokenizer> from_gpt2_files(const fs::path& dir) {
  const std::string vocab_path = (dir / "vocab.json").string(), merges_path = (dir / "merges.txt").string();
  const json v = parse_json_file(vocab_path);
  if (!v.is_object()) throw input_error(vocab_path, "expected an object token -> id");
  std::unordered_map<std::string, std::int64_t> vocab;
  for (const auto& [token, id] : v.items()) vocab[token] = id.get<std::int64_t>();
  std::vector<std::pair<std::string, std::string>> merges;
  std::istringstream in(read_whole_file(merges_path));
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (number == 1 && line.rfind("#version", 0) == 0)) continue;
    const auto space = line.find(' ', 1);
    if (space == std::string::npos)
      throw input_error(merges_path, number, "expected two symbols separated by a space");
    merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  const bool eot = vocab.count("<|endoftext|>") > 0;
  const std::int64_t eot_id = eot ? vocab["<|endoftext|>"] : 0;
  auto t = std::make_unique<bpe_tokenizer>(vocab_path, bpe_model(std::move(vocab), merges, {}));
  if (eot) t->added.push_back({"<|endoftext|>", eot_id, false, false});
  return t;
}

}  // namespace

std::unique_ptr<model_tokenizer> load_model_tokenizer(const std::string& dir_name) {
  const fs::path dir(dir_name);
  std::error_code ec;
  if (fs::exists(dir / "tokenizer.json", ec)) return from_tokenizer_json((dir / "tokenizer.json").string());
  if (fs::exists(dir / "vocab.json", ec) && fs::exists(dir / "merges.txt", ec))
    return from_gpt2_files(dir);
  return nullptr;
}

}  // namespace attnviz
