#include "jobs/faithfulness_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/layer_maps.h"
#include "error.h"
#include "io/file_io.h"
#include "jobs/faithfulness_outputs.h"
#include "jobs/heads_job.h"
#include "jobs/model_job.h"
#include "jobs/model_keep.h"
#include "model/forward.h"
#include "tokenizers/model_tokenizer.h"
#include "tokenizers/token_display.h"

namespace attnviz {

namespace faithfulness_job_parts {

// The model's probabilities over the vocabulary at `row` of a forward over ids, keeping no map:
// softmax of the output logits, in double.
std::vector<double> probabilities_at(const hf_model& m, const std::vector<std::int64_t>& ids,
                                     std::size_t row) {
  array_taps nowhere(nullptr, m.config.heads, ids.size(), ids.size());
  const model_forward f = run_model(m, ids, progress_style::quiet, nullptr, &nowhere);
  const std::vector<float> z = output_logits(m, f.hidden.row(row));
  const double top = *std::max_element(z.begin(), z.end());
  std::vector<double> p(z.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < z.size(); ++i) sum += p[i] = std::exp(z[i] - top);
  for (double& v : p) v /= sum;
  return p;
}

// The input with the erased positions dropped (the row moves up past the dropped ones before
// it; a causal model's row stays the last) or replaced by `replace_id`; p(ŷ) there.
double erased_probability_of(const hf_model& m, const faithfulness_text& t,
                             const std::vector<bool>& erased, std::int64_t replace_id) {
  std::vector<std::int64_t> ids;
  std::size_t row = t.position;
  for (std::size_t j = 0; j < t.ids.size(); ++j) {
    if (!erased[j]) {
      ids.push_back(t.ids[j]);
    } else if (replace_id >= 0) {
      ids.push_back(replace_id);
    } else if (j < t.position) {
      --row;
    }
  }
  if (m.config.causal) row = ids.size() - 1;
  return probabilities_at(m, ids, row)[static_cast<std::size_t>(t.predicted)];
}

// The measure's share of each token in the prediction's row of its rollout through every
// layer.
std::vector<double> importance_of(const hf_model& m, const measure_spec& spec,
                                  const faithfulness_text& t) {
  const model_config& c = m.config;
  const std::size_t n = t.ids.size();
  model_forward f;
  model_maps maps{nullptr, c.layers, c.heads, n, {}, 0.5};
  std::vector<float> kept;
  if (!spec.make) {
    f = run_model(m, t.ids);
    maps.data = f.attention.data();
  } else {
    measure_shape shape = model_measure_shape(c, n);
    set_layer_output(shape, m);
    kept.assign(c.layers * c.heads * n * n, 0.0f);
    array_taps views(kept.data(), c.heads, n, n), none(nullptr, c.heads, n, n);
    const auto taps = spec.make(shape, views, none);
    run_model(m, t.ids, progress_style::quiet, nullptr, taps.get());
    maps.data = kept.data();
    if (spec.follows_residual) maps.residual = 0.0;
  }
  std::vector<std::size_t> layers(c.layers);
  for (std::size_t l = 0; l < c.layers; ++l) layers[l] = l;
  const matrix r = attention_rollout(maps, layers);
  return std::vector<double>(r.row(t.position), r.row(t.position) + n);
}

// Where a text's prediction is read: a causal model's last row, a masked LM's first mask.
std::size_t prediction_row(const model_config& c, const std::vector<std::string>& tokens,
                           const std::string& where) {
  if (c.causal) return tokens.size() - 1;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] == "[MASK]" || tokens[i] == "<mask>") return i;
  throw usage_error(
      fmt::format("{}: an encoder model predicts at a mask token; the text has "
                  "none (write [MASK] or <mask>, as the tokenizer spells it)",
                  where));
}

// A text and what errors call it (--text, or the input file's line).
struct named_text {
  std::string name, text;
};

std::vector<named_text> texts_of(const faithfulness_job_config& c) {
  if (c.input.empty()) {
    if (c.text.empty()) throw usage_error(fmt::format("{}: no text", param("text")));
    return {{param("text"), c.text}};
  }
  const std::vector<std::string> lines = read_lines(c.input);
  std::vector<named_text> out;
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (lines[k].find_first_not_of(" \t") != std::string::npos)
      out.push_back({fmt::format("{}: line {}", c.input, k + 1), lines[k]});
  if (out.empty()) throw input_error(c.input, "has no text (one text a line)");
  return out;
}

}  // namespace faithfulness_job_parts

namespace {

using namespace faithfulness_job_parts;

// The text's tokens, prediction and erasable tokens (before any ranking); none, with a warning,
// for a line of --input with too few tokens to erase.
std::optional<faithfulness_text> read_text(const hf_model& m, const faithfulness_job_config& c,
                                           const model_tokenizer& tokenizer, const named_text& text,
                                           const std::optional<vocabulary>& vocab,
                                           std::vector<std::string>& warnings) {
  faithfulness_text t;
  encoding e = tokenizer.encode(text.text);
  if (e.ids.empty()) throw usage_error(fmt::format("{}: no tokens", text.name));
  if (e.ids.size() > m.config.max_positions)
    throw usage_error(fmt::format("{}: {} tokens, more than the model's {} positions", text.name,
                                  e.ids.size(), m.config.max_positions));
  t.ids = std::move(e.ids);
  t.tokens = std::move(e.tokens);
  t.position = prediction_row(m.config, t.tokens, text.name);
  const std::vector<double> p = probabilities_at(m, t.ids, t.position);
  t.predicted = std::max_element(p.begin(), p.end()) - p.begin();
  t.probability = p[static_cast<std::size_t>(t.predicted)];
  t.predicted_token =
      vocab ? display_token(vocab->token(t.predicted), is_byte_level_sequence(t.tokens))
            : fmt::format("{}", t.predicted);
  t.erasable = special_tokens(t.tokens);
  t.erasable.flip();
  if (!m.config.causal || c.keep_last) t.erasable[t.position] = false;
  const auto count =
      static_cast<std::size_t>(std::count(t.erasable.begin(), t.erasable.end(), true));
  if (count <= c.k) {
    const std::string why = fmt::format("{}: {} tokens may be erased, and {} {} needs at least {}",
                                        text.name, count, param("k"), c.k, c.k + 1);
    if (c.input.empty())
      throw usage_error(fmt::format("{}: give a longer text or a smaller {}", why, param("k")));
    warnings.push_back(why + ": skipped");
    return std::nullopt;
  }
  return t;
}

// Every measure's ranking and curves for one text, and the random orders'.
void rank_and_erase(const hf_model& m, const faithfulness_job_config& c,
                    const std::vector<const measure_spec*>& measures, faithfulness_text& t,
                    progress& bar, std::uint64_t& done) {
  const erased_probability p = [&](const std::vector<bool>& erased) {
    const double v = erased_probability_of(m, t, erased, c.replace_id);
    bar.update(++done);
    return v;
  };
  for (const measure_spec* spec : measures) {
    t.rankings.push_back(ranking_of(importance_of(m, *spec, t), t.erasable));
    bar.update(++done);
    t.curves.push_back(erasure_curves_of(t.rankings.back(), t.ids.size(), c.k, t.probability, p));
  }
  std::vector<erasure_curves> random;
  for (std::size_t r = 0; r < c.random; ++r)
    random.push_back(erasure_curves_of(random_ranking(t.erasable, c.seed, r), t.ids.size(), c.k,
                                       t.probability, p));
  t.random = mean_curves(random);
}

std::vector<const measure_spec*> chosen_measures(const faithfulness_job_config& c) {
  if (!c.measures.empty()) return c.measures;
  return attention_measures();
}

void summarise(faithfulness_report& r, std::size_t measures) {
  for (std::size_t k = 0; k < measures; ++k) {
    std::vector<erasure_curves> per_text;
    for (const faithfulness_text& t : r.texts) per_text.push_back(t.curves[k]);
    r.summary.push_back(mean_curves(per_text));
  }
  std::vector<erasure_curves> random;
  for (const faithfulness_text& t : r.texts) random.push_back(t.random);
  r.random_summary = mean_curves(random);
}

}  // namespace

faithfulness_report run_faithfulness_job(const faithfulness_job_config& c) {
  c.out.check();
  const std::vector<named_text> texts = texts_of(c);
  if (c.k == 0) throw usage_error(fmt::format("{} 0: erase at least one token", param("k")));
  const hf_model m = load_model(c.model_dir);
  refuse_encoder_decoder(m.config, c.model_dir, "attn-viz faithfulness");
  refuse_vision(m.config, c.model_dir, "attn-viz faithfulness");
  std::optional<vocabulary> parsed;
  const auto tokenizer = load_model_tokenizer(c.model_dir, tokenizer_side::source, &parsed);
  if (!tokenizer)
    throw input_error(c.model_dir,
                      "has no tokenizer.json, vocab.json with merges.txt, "
                      "vocab.txt or spiece.model to read the texts with");
  vocabulary_once vocab(c.model_dir);
  if (parsed) vocab.set(std::move(parsed));
  if (c.replace_id >= static_cast<std::int64_t>(m.config.vocab))
    throw usage_error(fmt::format("{} {}: the vocabulary has ids 0 to {}", param("replace-id"),
                                  c.replace_id, m.config.vocab - 1));
  const std::vector<const measure_spec*> measures = chosen_measures(c);
  faithfulness_report r;
  r.config = m.config;
  r.folder = folder_name(c.model_dir);
  for (const measure_spec* s : measures) r.measures.emplace_back(s->name);
  r.k = c.k;
  r.random = c.random;
  r.seed = c.seed;
  r.keep_last = c.keep_last && m.config.causal;
  const std::optional<vocabulary>& names = vocab.get();
  r.erase = c.replace_id < 0 ? std::string("drop")
                             : fmt::format("replace by id {} ({})", c.replace_id,
                                           names ? names->token(c.replace_id) : "no vocabulary");
  for (const named_text& text : texts) {
    std::optional<faithfulness_text> t = read_text(m, c, *tokenizer, text, names, r.warnings);
    if (!t) continue;
    for (const measure_spec* s : measures)
      if (s->check) s->check(model_measure_shape(m.config, t->ids.size()));
    r.texts.push_back(std::move(*t));
  }
  if (r.texts.empty())
    throw usage_error(
        fmt::format("{}: no line has more than {} tokens that may be erased "
                    "({} {})",
                    c.input, c.k, param("k"), c.k));
  const std::uint64_t per_text = measures.size() * (1 + 2 * c.k) + c.random * 2 * c.k;
  progress bar("erasing", "runs", per_text * r.texts.size(), c.progress);
  std::uint64_t done = 0;
  for (faithfulness_text& t : r.texts) rank_and_erase(m, c, measures, t, bar, done);
  bar.finish();
  summarise(r, measures.size());
  job_products made;
  made.json = [&] { return faithfulness_json(r); };
  made.picture = [&] { return faithfulness_figure(r); };
  r.written = write_outputs(c.out, made);
  return r;
}

}  // namespace attnviz
