#include "tokenizers/sentencepiece_tokenizer.h"

#include <fmt/format.h>

#include "error.h"
#include "tokenizers/sp_normalizer.h"
#include "tokenizers/unigram.h"

namespace attnviz {

namespace {

std::string_view model_type_name(int t) {
  switch (t) {
    case 2: return "BPE";
    case 3: return "WORD";
    case 4: return "CHAR";
    default: return "unknown";
  }
}

sp_normalizer_options normalizer_options(const sp_model_file& f, const unigram_model& model) {
  sp_normalizer_options o;
  o.add_dummy_prefix = f.add_dummy_prefix;
  o.remove_extra_whitespaces = f.remove_extra_whitespaces;
  o.escape_whitespaces = f.escape_whitespaces;
  o.treat_whitespace_as_suffix = f.treat_whitespace_as_suffix;
  o.user_defined = model.user_defined();
  return o;
}

class sentencepiece_tokenizer final : public model_tokenizer {
 public:
  sentencepiece_tokenizer(const sp_model_file& f, const std::string& source,
                          sp_tokenizer_options options)
      : source_(source),
        model_(f.pieces, f.byte_fallback, source),
        normalizer_(f.charsmap, normalizer_options(f, model_), source),
        options_(options),
        eos_(f.eos_id) {
    if (options_.append_eos && (eos_ < 0 || static_cast<std::size_t>(eos_) >= model_.size()))
      throw input_error(source, fmt::format("eos_id {} is not one of its {} pieces (the model "
                                            "ends every text with it)",
                                            eos_, model_.size()));
    if (options_.vocab) {
      vocab_unk_ = vocab_id(model_.piece(model_.unk_id()), "the unknown piece");
      if (options_.append_eos) vocab_eos_ = vocab_id(model_.piece(eos_), "the end piece");
    }
  }

  encoding encode(const std::string& text) const override {
    encoding out;
    model_.encode(normalizer_.normalize(text), out.ids, out.tokens);
    if (options_.append_eos) {
      out.ids.push_back(eos_);
      out.tokens.push_back(model_.piece(eos_));
    }
    if (options_.vocab)
      for (std::size_t i = 0; i < out.ids.size(); ++i) {
        const auto it = options_.vocab->find(out.tokens[i]);
        out.ids[i] = it != options_.vocab->end() ? it->second : vocab_unk_;
      }
    return out;
  }

  const std::string& source() const override { return source_; }

 private:
  std::string source_;
  unigram_model model_;
  sp_normalizer normalizer_;
  sp_tokenizer_options options_;
  std::int64_t eos_, vocab_unk_ = 0, vocab_eos_ = 0;

  std::int64_t vocab_id(const std::string& piece, const char* what) const {
    const auto it = options_.vocab->find(piece);
    if (it == options_.vocab->end())
      throw input_error(source_, fmt::format("{} '{}' is not in the vocabulary the ids come from",
                                             what, piece));
    return it->second;
  }
};

}  // namespace

std::unique_ptr<model_tokenizer> make_sentencepiece_tokenizer(const sp_model_file& file,
                                                              const std::string& source,
                                                              sp_tokenizer_options options) {
  if (file.model_type != 1)
    throw input_error(source, fmt::format("trainer_spec.model_type is {} ({}): attn-viz reads "
                                          "SentencePiece Unigram model files (1); for a "
                                          "SentencePiece BPE model, use the folder's "
                                          "tokenizer.json",
                                          file.model_type, model_type_name(file.model_type)));
  if (file.charsmap.empty() && !file.normalizer_name.empty() && file.normalizer_name != "identity")
    throw input_error(source, fmt::format("normalizer_spec.name is '{}' but the file holds no "
                                          "precompiled_charsmap: attn-viz applies the rules "
                                          "only as the file stores them precompiled",
                                          file.normalizer_name));
  return std::make_unique<sentencepiece_tokenizer>(file, source, options);
}

}  // namespace attnviz
