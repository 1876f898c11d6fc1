#include "tokenizers/model_tokenizer.h"

#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "error.h"
#include "io/file_io.h"
#include "io/json_file.h"
#include "io/mapped_file.h"
#include "params/gguf.h"
#include "tokenizers/bpe.h"
#include "tokenizers/byte_level.h"
#include "tokenizers/char_split.h"
#include "tokenizers/gguf_vocab.h"
#include "io/base64.h"
#include "tokenizers/sentencepiece_tokenizer.h"
#include "tokenizers/sp_normalizer.h"
#include "tokenizers/unigram.h"
#include "text/utf8.h"
#include "tokenizers/unicode_text.h"
#include "tokenizers/wordpiece.h"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

using json = nlohmann::json;

struct added_token {
  std::string content;
  std::int64_t id = 0;
  bool lstrip = false, rstrip = false;
};

// The pipeline every tokenizer here is: added tokens split out of the raw text first; each
// stretch between them normalised, pre-tokenised (each step turns the list of pieces into a
// new one) and encoded piece by piece by the model; the template's specials around it all.
using pre_step = std::function<void(std::vector<std::string>& pieces, bool first)>;
using word_encoder = std::function<void(const std::string& piece, encoding& out)>;

class pipeline_tokenizer final : public model_tokenizer {
 public:
  explicit pipeline_tokenizer(std::string source) : source_(std::move(source)) {}

  std::vector<added_token> added;
  std::function<std::string(const std::string&)> normalize;  // empty: none
  std::vector<pre_step> pre;
  word_encoder model;
  encoding prefix, suffix;  // the template's special tokens around the text

  encoding encode(const std::string& text) const override {
    encoding out = prefix;
    std::size_t at = 0;
    // where each added token next occurs at or after `at` (npos: nowhere), searched again only
    // once `at` has passed it, so the whole text is searched once per added token: linear
    std::vector<std::size_t> next_at;
    for (const auto& a : added) next_at.push_back(a.content.empty() ? 0 : text.find(a.content));
    while (at < text.size()) {
      // the earliest added token (the longest where several start at the same place)
      std::size_t best = std::string::npos;
      const added_token* hit = nullptr;
      for (std::size_t k = 0; k < added.size(); ++k) {
        const added_token& a = added[k];
        if (a.content.empty()) continue;
        if (next_at[k] != std::string::npos && next_at[k] < at)
          next_at[k] = text.find(a.content, at);
        const std::size_t p = next_at[k];
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
    if (normalize) text = normalize(text);
    std::vector<std::string> pieces{std::move(text)};
    for (const auto& step : pre) step(pieces, first);
    for (const auto& p : pieces)
      if (!p.empty()) model(p, out);
  }

  std::string source_;
};

// Pre-tokenizer steps.
pre_step split_step(std::shared_ptr<const regex_splitter> re) {
  return [re](std::vector<std::string>& pieces, bool) {
    std::vector<std::string> next;
    for (const auto& p : pieces)
      for (auto& q : re->split(p)) next.push_back(std::move(q));
    pieces.swap(next);
  };
}

pre_step byte_level_step(bool add_prefix_space, bool use_regex) {
  static const auto gpt2 = std::make_shared<const regex_splitter>(gpt2_pattern());
  const pre_step split = split_step(gpt2);
  return [add_prefix_space, use_regex, split](std::vector<std::string>& pieces, bool first) {
    if (add_prefix_space && first && !pieces.empty() && !pieces.front().empty() &&
        pieces.front()[0] != ' ')
      pieces.front().insert(0, 1, ' ');
    if (use_regex) split(pieces, first);
    for (auto& p : pieces) p = to_byte_level(p);
  };
}

// SentencePiece's spaces: every ' ' becomes the replacement ('▁'), which is also put before the
// text (prepend "always", or "first": only before the text's first stretch, not after an added
// token) unless it starts with one; with split, the pieces start at each replacement.
pre_step metaspace_step(std::string replacement, std::string scheme, bool split) {
  return [replacement, scheme, split](std::vector<std::string>& pieces, bool first) {
    std::vector<std::string> next;
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      std::string s;
      for (const char ch : pieces[k])
        if (ch == ' ')
          s += replacement;
        else
          s += ch;
      const bool prepend = scheme == "always" || (scheme == "first" && first && k == 0);
      if (prepend && s.compare(0, replacement.size(), replacement) != 0) s.insert(0, replacement);
      if (!split) {
        next.push_back(std::move(s));
        continue;
      }
      std::size_t start = 0;
      for (std::size_t at = s.find(replacement, 1); at != std::string::npos;
           at = s.find(replacement, at + replacement.size())) {
        if (at > start) next.push_back(s.substr(start, at - start));
        start = at;
      }
      if (start < s.size()) next.push_back(s.substr(start));
    }
    pieces.swap(next);
  };
}

// A step that splits every piece with `split`.
template <class F>
pre_step piece_step(F split) {
  return [split](std::vector<std::string>& pieces, bool) {
    std::vector<std::string> next;
    for (const auto& p : pieces)
      for (auto& q : split(p)) next.push_back(std::move(q));
    pieces.swap(next);
  };
}

pre_step bert_step() {
  return piece_step([](const std::string& s) { return bert_pre_tokenize(s); });
}

word_encoder bpe_encoder(std::shared_ptr<const bpe_model> m) {
  return [m](const std::string& piece, encoding& out) { m->encode(piece, out.ids, out.tokens); };
}

word_encoder unigram_encoder(std::shared_ptr<const unigram_model> m) {
  return [m](const std::string& piece, encoding& out) { m->encode(piece, out.ids, out.tokens); };
}

word_encoder wordpiece_encoder(std::shared_ptr<const wordpiece_model> m) {
  return [m](const std::string& piece, encoding& out) { m->encode(piece, out); };
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
// A number where an integer belongs (1e99 for an id): nlohmann would convert it with undefined
// behaviour, so it is refused like an entry of the wrong type.
struct not_an_integer : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::int64_t integer_of(const json& v) {
  if (!v.is_number_integer())
    throw not_an_integer(fmt::format("expected an integer, got {}", v.dump()));
  return v.get<std::int64_t>();
}

template <class T>
T get_or(const json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(integer_of(*it));
  else
    return it->get<T>();
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

std::string string_or(const json& j, const char* key, std::string fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string type_of(const json& j) {
  return j.is_object() && j.contains("type") && j["type"].is_string() ? j["type"].get<std::string>()
                                                                      : std::string();
}

// Precompiled: SentencePiece's charsmap (base64 in the JSON), applied as SentencePiece applies
// it: the longest rule at each position (tokenizers/sp_normalizer.h), no whitespace handling.
std::function<std::string(const std::string&)> precompiled_normalizer(const json& n,
                                                                       const std::string& path,
                                                                       const std::string& where) {
  const std::string encoded = string_or(n, "precompiled_charsmap", "");
  std::string charsmap;
  if (!decode_base64(encoded, charsmap))
    unsupported(path, where + ".precompiled_charsmap", member(n, "precompiled_charsmap", null_value),
                "base64 text");
  sp_normalizer_options o;
  o.add_dummy_prefix = o.remove_extra_whitespaces = o.escape_whitespaces = false;
  auto normalizer = std::make_shared<const sp_normalizer>(std::move(charsmap), o, path);
  return [normalizer](const std::string& t) { return normalizer->normalize(t); };
}

// The normalizer: BertNormalizer, NFD/NFC, Lowercase, StripAccents, or a Sequence of them.
std::function<std::string(const std::string&)> read_normalizer(const json& n,
                                                                const std::string& path,
                                                                const std::string& where) {
  const std::string type = type_of(n);
  if (n.is_null()) return nullptr;
  if (type == "BertNormalizer") {
    bert_normalizer_options o;
    o.clean_text = get_or(n, "clean_text", true);
    o.handle_chinese_chars = get_or(n, "handle_chinese_chars", true);
    o.lowercase = get_or(n, "lowercase", true);
    if (n.contains("strip_accents") && !n["strip_accents"].is_null())
      o.strip_accents = n["strip_accents"].get<bool>();
    return [o](const std::string& t) { return bert_normalize(t, o); };
  }
  if (type == "Replace") {
    const json& pattern = member(n, "pattern", empty_object);
    const std::string content = string_or(n, "content", "");
    if (pattern.contains("String")) {
      const std::string from = pattern["String"].get<std::string>();
      if (from.empty()) unsupported(path, where + ".pattern", pattern, "a non-empty String");
      return [from, content](const std::string& t) {
        std::string out;
        for (std::size_t at = 0;;) {
          const std::size_t hit = t.find(from, at);
          out.append(t, at, hit == std::string::npos ? std::string::npos : hit - at);
          if (hit == std::string::npos) return out;
          out += content;
          at = hit + from.size();
        }
      };
    }
    if (pattern.contains("Regex") && pattern["Regex"].is_string()) {
      std::shared_ptr<const regex_splitter> re;
      try {
        re = std::make_shared<const regex_splitter>(pattern["Regex"].get<std::string>());
      } catch (const usage_error& e) {  // the file's pattern, not the user's: name where it is
        throw input_error(path, fmt::format("{}.pattern.Regex: {}", where, e.what()));
      }
      return [re, content](const std::string& t) { return re->replace_all(t, content); };
    }
    unsupported(path, where + ".pattern", pattern, "a String or Regex pattern");
  }
  if (type == "Precompiled") return precompiled_normalizer(n, path, where);
  if (type == "Prepend") {
    const std::string prefix = string_or(n, "prepend", "");
    return [prefix](const std::string& t) { return t.empty() ? t : prefix + t; };
  }
  if (type == "Strip") {
    const bool left = get_or(n, "strip_left", true), right = get_or(n, "strip_right", true);
    return [left, right](const std::string& t) {
      std::u32string s = decode_utf8_lossy(t);
      std::size_t b = 0, e = s.size();
      while (left && b < e && is_unicode_whitespace(s[b])) ++b;
      while (right && e > b && is_unicode_whitespace(s[e - 1])) --e;
      return encode_utf8(s.substr(b, e - b));
    };
  }
  if (type == "NFD") return [](const std::string& t) { return nfd(t); };
  if (type == "NFC") return [](const std::string& t) { return nfc(t); };
  if (type == "Lowercase")
    return [](const std::string& t) {
      std::u32string s = decode_utf8_lossy(t);
      for (char32_t& c : s) c = unicode_lower(c);
      return encode_utf8(s);
    };
  if (type == "StripAccents")  // drops non-spacing marks (after an NFD, as models pair them)
    return [](const std::string& t) {
      std::u32string out;
      for (const char32_t c : decode_utf8_lossy(t))
        if (!is_nonspacing_mark(c)) out.push_back(c);
      return encode_utf8(out);
    };
  if (type == "Sequence") {
    std::vector<std::function<std::string(const std::string&)>> steps;
    const json& list = member(n, "normalizers", empty_array);
    for (std::size_t i = 0; i < list.size(); ++i)
      if (auto f = read_normalizer(list[i], path, fmt::format("{}.normalizers[{}]", where, i)))
        steps.push_back(std::move(f));
    return [steps](const std::string& t) {
      std::string s = t;
      for (const auto& f : steps) s = f(s);
      return s;
    };
  }
  unsupported(path, where, n,
              "BertNormalizer, NFD, NFC, Lowercase, StripAccents, Replace, Prepend, Strip, "
              "Precompiled and Sequence");
}

// ByteLevel, Split, Metaspace, BertPreTokenizer, Whitespace, WhitespaceSplit, Punctuation,
// Digits or a Sequence of them, as steps.
void read_pre_tokenizer(const json& p, const std::string& path, const std::string& where,
                        pipeline_tokenizer& t) {
  const std::string type = type_of(p);
  if (p.is_null()) return;
  if (type == "ByteLevel") {
    t.pre.push_back(byte_level_step(get_or(p, "add_prefix_space", false), get_or(p, "use_regex", true)));
  } else if (type == "Split") {
    if (!p.contains("pattern") || !p["pattern"].is_object() || !p["pattern"].contains("Regex"))
      unsupported(path, where + ".pattern", member(p, "pattern", null_value), "a Regex pattern");
    const std::string behavior = get_or<std::string>(p, "behavior", "Isolated");
    if (behavior != "Isolated" || get_or(p, "invert", false))
      unsupported(path, where + ".behavior", json(behavior), "Isolated, not inverted");
    std::shared_ptr<const regex_splitter> re;
    try {
      re = std::make_shared<const regex_splitter>(p["pattern"]["Regex"].get<std::string>());
    } catch (const usage_error& e) {  // the file's pattern, not the user's: name where it is
      throw input_error(path, fmt::format("{}.pattern.Regex: {}", where, e.what()));
    }
    t.pre.push_back(split_step(std::move(re)));
  } else if (type == "Metaspace") {
    std::string scheme = string_or(p, "prepend_scheme", "");
    if (scheme.empty()) scheme = get_or(p, "add_prefix_space", true) ? "always" : "never";
    if (scheme != "always" && scheme != "first" && scheme != "never")
      unsupported(path, where + ".prepend_scheme", json(scheme), "always, first and never");
    std::string replacement = string_or(p, "replacement", "\xE2\x96\x81");
    if (replacement.empty())  // nothing to put for spaces, nor to split at
      unsupported(path, where + ".replacement", json(replacement), "a non-empty String");
    t.pre.push_back(metaspace_step(std::move(replacement), scheme, get_or(p, "split", true)));
  } else if (type == "BertPreTokenizer") {
    t.pre.push_back(bert_step());
  } else if (type == "Whitespace") {
    t.pre.push_back(piece_step([](const std::string& s) { return whitespace_pieces(s); }));
  } else if (type == "WhitespaceSplit") {
    t.pre.push_back(piece_step([](const std::string& s) { return whitespace_split(s); }));
  } else if (type == "Punctuation") {
    const std::string behavior = get_or<std::string>(p, "behavior", "Isolated");
    if (behavior != "Isolated") unsupported(path, where + ".behavior", json(behavior), "Isolated");
    t.pre.push_back(piece_step([](const std::string& s) { return punctuation_split(s); }));
  } else if (type == "Digits") {
    const bool individual = get_or(p, "individual_digits", false);
    t.pre.push_back(
        piece_step([individual](const std::string& s) { return digits_split(s, individual); }));
  } else if (type == "Sequence") {
    const json& list = member(p, "pretokenizers", empty_array);
    for (std::size_t i = 0; i < list.size(); ++i)
      read_pre_tokenizer(list[i], path, fmt::format("{}.pretokenizers[{}]", where, i), t);
  } else {
    unsupported(path, where, p,
                "ByteLevel, Split, Metaspace, BertPreTokenizer, Whitespace, WhitespaceSplit, "
                "Punctuation, Digits and Sequence");
  }
}

void add_special(encoding& side, const std::string& token, std::int64_t id) {
  side.ids.push_back(id);
  side.tokens.push_back(token);
}

// TemplateProcessing's "single", BertProcessing or RobertaProcessing (the same tokens for one
// text; its trim_offsets and add_prefix_space move only offsets): the special tokens before and
// after the text.
void read_template(const json& p, const std::string& path, pipeline_tokenizer& t) {
  const std::string type = type_of(p);
  if (p.is_null() || type == "ByteLevel") return;
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    // at(): a missing entry is a json::out_of_range, reported as the file's error
    add_special(t.prefix, p.at("cls").at(0).get<std::string>(), integer_of(p.at("cls").at(1)));
    add_special(t.suffix, p.at("sep").at(0).get<std::string>(), integer_of(p.at("sep").at(1)));
    return;
  }
  if (type != "TemplateProcessing")
    unsupported(path, "post_processor", p,
                "TemplateProcessing, BertProcessing, RobertaProcessing and ByteLevel");
  bool after = false;
  for (const auto& piece : member(p, "single", empty_array)) {
    if (piece.contains("Sequence")) {
      after = true;
      continue;
    }
    if (!piece.contains("SpecialToken"))
      unsupported(path, "post_processor.single", piece, "SpecialToken and Sequence");
    const std::string name = piece["SpecialToken"].value("id", "");
    const json& special = member(member(p, "special_tokens", empty_object), name.c_str(), null_value);
    if (!special.is_object() || !special.contains("ids"))
      throw input_error(path, fmt::format("post_processor.special_tokens.{}: expected its ids",
                                          name));
    for (std::size_t i = 0; i < special["ids"].size(); ++i)
      add_special(after ? t.suffix : t.prefix, special.at("tokens").at(i).get<std::string>(),
                  integer_of(special["ids"][i]));
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

std::unordered_map<std::string, std::int64_t> read_vocab_object(const json& v) {
  std::unordered_map<std::string, std::int64_t> vocab;
  for (const auto& [token, id] : v.items()) vocab[token] = integer_of(id);
  return vocab;
}


// A Unigram model: vocab [[piece, score], …] (id = position), unk_id, byte_fallback.
std::shared_ptr<const unigram_model> read_unigram(const json& model, const std::string& path) {
  const json& vocab = member(model, "vocab", empty_array);
  if (!model.contains("unk_id") || !model["unk_id"].is_number_unsigned())
    unsupported(path, "model.unk_id", member(model, "unk_id", null_value),
                "the id of the unknown piece (a Unigram model without one cannot segment every "
                "text)");
  const std::size_t unk = model["unk_id"].get<std::size_t>();
  const bool byte_fallback = get_or(model, "byte_fallback", false);
  std::vector<sp_piece> pieces;
  for (std::size_t i = 0; i < vocab.size(); ++i) {
    const json& e = vocab[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number())
      unsupported(path, fmt::format("model.vocab[{}]", i), e, "[piece, score]");
    sp_piece p{e[0].get<std::string>(), e[1].get<float>(), sp_piece_type::normal};
    if (i == unk) p.type = sp_piece_type::unknown;
    else if (byte_fallback && p.piece.size() == 6 && p.piece.rfind("<0x", 0) == 0) p.type = sp_piece_type::byte;
    pieces.push_back(std::move(p));
  }
  if (unk >= pieces.size())
    unsupported(path, "model.unk_id", model["unk_id"], "an id of the vocabulary");
  return std::make_shared<const unigram_model>(pieces, byte_fallback, path);
}

std::unique_ptr<model_tokenizer> read_tokenizer_object(const json& j, const std::string& path) {
  if (!j.is_object() || !j.contains("model") || !j["model"].is_object())
    throw input_error(path, "model: expected the tokenizer's model");
  const json& model = j["model"];
  auto t = std::make_unique<pipeline_tokenizer>(path);
  const std::string type = type_of(model);
  std::unordered_map<std::string, std::int64_t> vocab;
  if (type == "BPE" || type == "WordPiece") vocab = read_vocab_object(member(model, "vocab", empty_object));
  if (type == "BPE") {
    bpe_options o;
    o.byte_fallback = get_or(model, "byte_fallback", false);
    o.ignore_merges = get_or(model, "ignore_merges", false);
    o.unk = string_or(model, "unk_token", "");
    o.continuing_subword_prefix = string_or(model, "continuing_subword_prefix", "");
    o.end_of_word_suffix = string_or(model, "end_of_word_suffix", "");
    t->model = bpe_encoder(std::make_shared<const bpe_model>(
        std::move(vocab), read_merges(member(model, "merges", empty_array), path), o));
  } else if (type == "WordPiece") {
    t->model = wordpiece_encoder(std::make_shared<const wordpiece_model>(
        std::move(vocab), string_or(model, "unk_token", "[UNK]"),
        string_or(model, "continuing_subword_prefix", "##"),
        get_or<std::size_t>(model, "max_input_chars_per_word", 100)));
  } else if (type == "Unigram") {
    t->model = unigram_encoder(read_unigram(model, path));
  } else {
    unsupported(path, "model", model, "BPE, WordPiece and Unigram");
  }
  for (const auto& a : member(j, "added_tokens", empty_array))
    t->added.push_back({get_or<std::string>(a, "content", ""), get_or<std::int64_t>(a, "id", 0),
                        get_or(a, "lstrip", false), get_or(a, "rstrip", false)});
  t->normalize = read_normalizer(member(j, "normalizer", null_value), path, "normalizer");
  read_pre_tokenizer(member(j, "pre_tokenizer", null_value), path, "pre_tokenizer", *t);
  read_template(member(j, "post_processor", null_value), path, *t);
  return t;
}


std::unique_ptr<model_tokenizer> read_tokenizer_json(std::string_view text,
                                                     const std::string& path) {
  return read_tokenizer_object(parse_json_text(text, path), path);
}

// GPT-2's vocab.json + merges.txt: byte-level BPE with GPT-2's regex; <|endoftext|> split out.
std::unique_ptr<model_tokenizer> from_gpt2_files(const fs::path& dir) {
  const std::string vocab_path = (dir / "vocab.json").string(),
                    merges_path = (dir / "merges.txt").string();
  const json v = parse_json_file(vocab_path);
  if (!v.is_object()) throw input_error(vocab_path, "expected an object token -> id");
  std::unordered_map<std::string, std::int64_t> vocab;
  try {
    vocab = read_vocab_object(v);
  } catch (const json::exception&) {
    throw input_error(vocab_path, "expected an object token -> id (whole numbers)");
  }
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
  auto t = std::make_unique<pipeline_tokenizer>(vocab_path);
  if (const auto it = vocab.find("<|endoftext|>"); it != vocab.end())
    t->added.push_back({"<|endoftext|>", it->second, false, false});
  t->pre.push_back(byte_level_step(false, true));
  t->model = bpe_encoder(std::make_shared<const bpe_model>(std::move(vocab), merges, bpe_options{}));
  return t;
}

// BERT's vocab.txt (id = line number) with tokenizer_config.json's do_lower_case (default true):
// BertNormalizer, BertPreTokenizer, WordPiece, [CLS] … [SEP]; the special tokens split out.
std::unique_ptr<model_tokenizer> from_bert_files(const fs::path& dir) {
  const std::string vocab_path = (dir / "vocab.txt").string();
  std::unordered_map<std::string, std::int64_t> vocab;
  std::istringstream in(read_whole_file(vocab_path));
  std::string line;
  std::int64_t id = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    vocab.emplace(line, id++);
  }
  bert_normalizer_options o;
  std::error_code ec;
  const fs::path config = dir / "tokenizer_config.json";
  if (fs::exists(config, ec)) {
    const json c = parse_json_file(config.string());
    if (c.is_object()) {
      o.lowercase = get_or(c, "do_lower_case", true);
      if (c.contains("strip_accents") && c["strip_accents"].is_boolean())
        o.strip_accents = c["strip_accents"].get<bool>();
      o.handle_chinese_chars = get_or(c, "tokenize_chinese_chars", true);
    }
  }
  auto t = std::make_unique<pipeline_tokenizer>(vocab_path);
  for (const char* special : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"})
    if (const auto it = vocab.find(special); it != vocab.end())
      t->added.push_back({special, it->second, false, false});
  if (const auto cls = vocab.find("[CLS]"), sep = vocab.find("[SEP]");
      cls != vocab.end() && sep != vocab.end()) {
    add_special(t->prefix, "[CLS]", cls->second);
    add_special(t->suffix, "[SEP]", sep->second);
  }
  t->normalize = [o](const std::string& s) { return bert_normalize(s, o); };
  t->pre.push_back(bert_step());
  t->model = wordpiece_encoder(std::make_shared<const wordpiece_model>(std::move(vocab), "[UNK]"));
  return t;
}

// Every piece a SentencePiece model can give (normal and user-defined ones) needs its id in
// vocab.json: a missing one would become <unk> without a word.
void check_pieces_have_ids(const sp_model_file& m, const std::string& spm,
                           const std::unordered_map<std::string, std::int64_t>& vocab,
                           const std::string& vocab_path) {
  std::size_t missing = 0, kept = 0;
  const std::string* first = nullptr;
  for (const sp_piece& p : m.pieces) {
    if (p.type != sp_piece_type::normal && p.type != sp_piece_type::user_defined) continue;
    ++kept;
    if (vocab.count(p.piece)) continue;
    if (!first) first = &p.piece;
    ++missing;
  }
  if (missing)
    throw input_error(vocab_path, fmt::format("has no id for '{}', a piece of {}, nor for {} more "
                                              "of its {} pieces: vocab.json must map every piece "
                                              "of source.spm and target.spm",
                                              *first, spm, missing - 1, kept));
}

// Marian's source.spm / target.spm with the vocab.json both map into; </s> after the text.
std::unique_ptr<model_tokenizer> from_marian_files(const fs::path& dir, tokenizer_side side) {
  const std::string vocab_path = (dir / "vocab.json").string();
  const json v = parse_json_file(vocab_path);
  if (!v.is_object()) throw input_error(vocab_path, "expected an object piece -> id");
  auto vocab = std::make_shared<std::unordered_map<std::string, std::int64_t>>();
  try {
    *vocab = read_vocab_object(v);
  } catch (const json::exception&) {
    throw input_error(vocab_path, "expected an object piece -> id (whole numbers)");
  }
  fs::path spm = dir / (side == tokenizer_side::target ? "target.spm" : "source.spm");
  std::error_code ec;
  if (side == tokenizer_side::target && !fs::exists(spm, ec)) spm = dir / "source.spm";
  const sp_model_file model = read_sentencepiece_file(spm.string());
  check_pieces_have_ids(model, spm.string(), *vocab, vocab_path);
  sp_tokenizer_options o;
  o.append_eos = true;
  o.vocab = std::move(vocab);
  return make_sentencepiece_tokenizer(model, spm.string(), o);
}

}  // namespace

// Any entry of the wrong JSON type is an input_error naming the file, never an internal error.
template <class F>
std::unique_ptr<model_tokenizer> with_file_errors(const std::string& source, F read) {
  try {
    return read();
  } catch (const json::exception& e) {
    throw input_error(source, fmt::format("an entry does not have the type the format expects "
                                          "({})",
                                          e.what()));
  } catch (const not_an_integer& e) {
    throw input_error(source, fmt::format("an entry does not have the type the format expects "
                                          "({})",
                                          e.what()));
  }
}

std::unique_ptr<model_tokenizer> parse_tokenizer_json(std::string_view text,
                                                      const std::string& source) {
  return with_file_errors(source, [&] { return read_tokenizer_json(text, source); });
}

std::unique_ptr<model_tokenizer> tokenizer_of(const json& j, const std::string& source) {
  return with_file_errors(source, [&] { return read_tokenizer_object(j, source); });
}

std::unique_ptr<model_tokenizer> gguf_tokenizer(const gguf_keys& keys) {
  if (!keys.has("tokenizer.ggml.model")) return nullptr;  // ids only
  return with_file_errors(keys.source(), [&] {
    return read_tokenizer_object(gguf_tokenizer_json(keys), keys.source());
  });
}

std::unique_ptr<model_tokenizer> load_model_tokenizer(const std::string& dir_name,
                                                      tokenizer_side side,
                                                      std::optional<vocabulary>* vocab) {
  if (const std::string gguf = find_gguf(dir_name); !gguf.empty()) {
    const mapped_file f = mapped_file::open_or_throw(gguf);
    const gguf_header h = parse_gguf_header(f.data(), f.size(), gguf);
    return gguf_tokenizer(gguf_keys(h, gguf));
  }
  const fs::path dir(dir_name);
  std::error_code ec;
  if (fs::exists(dir / "tokenizer.json", ec)) {
    const std::string path = (dir / "tokenizer.json").string();
    const std::string text = read_whole_file(path);
    return with_file_errors(path, [&] {
      const json j = parse_json_text(text, path);
      auto tokenizer = read_tokenizer_object(j, path);
      if (vocab) *vocab = vocabulary_of_tokenizer_json(j, path);
      return tokenizer;
    });
  }
  if (fs::exists(dir / "source.spm", ec) && fs::exists(dir / "vocab.json", ec))
    return from_marian_files(dir, side);
  if (fs::exists(dir / "vocab.json", ec) && fs::exists(dir / "merges.txt", ec))
    return from_gpt2_files(dir);
  if (fs::exists(dir / "vocab.txt", ec)) return from_bert_files(dir);
  if (fs::exists(dir / "spiece.model", ec)) {  // T5's: every text ends with </s>
    const std::string path = (dir / "spiece.model").string();
    sp_tokenizer_options o;
    o.append_eos = true;
    return make_sentencepiece_tokenizer(read_sentencepiece_file(path), path, o);
  }
  return nullptr;
}

}  // namespace attnviz
