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
  }

  encoding encode(const std::string& text) const override {
    encoding out;
    model_.encode(normalizer_.normalize(text), out.ids, out.tokens);
    if (options_.append_eos) {
      out.ids.push_back(eos_);
      out.tokens.push_back(model_.piece(eos_));
    }
    return out;
  }

  const std::string& source() const override { return source_; }

 private:
  std::string source_;
  unigram_model model_;
  sp_normalizer normalizer_;
  sp_tokenizer_options options_;
  std::int64_t eos_;
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
