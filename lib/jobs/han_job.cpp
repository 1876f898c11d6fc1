#include "jobs/han_job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "attnviz/version.h"
#include "error.h"
#include "io/file_io.h"
#include "jobs/inputs.h"
#include "jobs/job_outputs.h"
#include "render/canvas.h"
#include "render/document_view.h"
#include "render/json_numbers.h"
#include "text/embedding_cache.h"
#include "text/embeddings.h"
#include "text/tokenizer.h"

namespace attnviz {
namespace {

std::string han_json(const han_report& r, const std::string& embeddings, const param_store& params,
                     const std::vector<std::string>& oov, oov_policy policy) {
  using ojson = nlohmann::ordered_json;
  auto num = [](double v) { return json_number(static_cast<float>(v)); };
  ojson doc;
  doc["tool"] = fmt::format("attn-viz {}", version);
  doc["structure"] = "han";
  doc["parameters"] = params.source();
  doc["embeddings"] = embeddings;
  doc["oov_policy"] = oov_policy_name(policy);
  doc["oov_tokens"] = oov;
  doc["definitions"] = {
      {"word_weights", "a_it = softmax_t(tanh(W_w h_it + b_w) . u_w) within sentence i"},
      {"sentence_weight", "alpha_i = softmax_i(tanh(W_s s_i + b_s) . u_s), s_i = sum_t a_it h_it"},
      {"document_vector", "v = sum_i alpha_i s_i"}};
  ojson sentences = ojson::array();
  for (std::size_t i = 0; i < r.sentences.size(); ++i) {
    ojson s;
    s["tokens"] = r.sentences[i];
    ojson w = ojson::array();
    for (double a : r.result.word_weights[i]) w.push_back(num(a));
    s["word_weights"] = std::move(w);
    s["weight"] = num(r.result.sentence_weights[i]);
    ojson v = ojson::array();
    for (std::size_t c = 0; c < r.result.sentence_vectors.cols(); ++c)
      v.push_back(num(r.result.sentence_vectors(i, c)));
    s["vector"] = std::move(v);
    sentences.push_back(std::move(s));
  }
  doc["sentences"] = std::move(sentences);
  ojson v = ojson::array();
  for (float x : r.result.document) v.push_back(num(x));
  doc["document_vector"] = std::move(v);
  return doc.dump(1) + "\n";
}

}  // namespace

han_report run_han(const han_config& c) {
  c.out.check();
  const colormap& cmap = colormap::named_or_default(c.cmap);
  han_report report;
  report.sentences = split_sentences(c.input.text, tokenizer_options{c.input.keep_case},
                                     param("document"));
  if (report.sentences.empty()) throw input_error(param("document"), "has no tokens");
  std::size_t n_tokens = 0, longest = 0;
  for (const auto& s : report.sentences)
    n_tokens += s.size(), longest = std::max(longest, s.size());
  run_size size;  // T × d per sentence and the per-word weights: far below n²
  size.n_q = 1;
  size.n_k = n_tokens;
  size.json = !c.out.json.empty();
  size.image = c.out.figure();
  check_memory(size, c.max_memory);

  std::unordered_set<std::string> wanted;
  for (const auto& s : report.sentences) add_wanted(wanted, s);
  const embedding_table table = load_embeddings(c.input.embeddings, wanted, 0, c.input.cache_dir);
  std::vector<matrix> vectors;
  std::vector<std::string> oov;
  std::unordered_set<std::string> seen;
  for (const auto& s : report.sentences) {
    embedded_tokens e = embed_tokens(s, table, c.input.oov);
    for (auto& t : e.oov_tokens)
      if (seen.insert(t).second) oov.push_back(t);
    vectors.push_back(std::move(e.vectors));
  }
  if (!oov.empty())
    report.warnings.push_back(
        fmt::format("{} token(s) not in {}: {}", oov.size(), c.input.embeddings, list_tokens(oov)));
  param_store params = param_store::open(c.params_in, c.seed);
  report.result = hierarchical_attention(vectors, params);
  if (const auto unused = params.unused_file_tensors(); !unused.empty())
    report.warnings.push_back(
        fmt::format("{}: tensors not used: {}", c.params_in, fmt::join(unused, ", ")));

  const std::string embeddings_name = std::filesystem::path(c.input.embeddings).filename().string();
  job_products made;
  made.json = [&] { return han_json(report, embeddings_name, params, oov, c.input.oov); };
  made.picture = [&] {
    document_view_spec spec;
    spec.sentences = report.sentences;
    spec.word_weights = report.result.word_weights;
    spec.sentence_weights = report.result.sentence_weights;
    spec.title =
        "hierarchical attention (HAN, Yang et al. 2016): words within sentences, "
        "sentences in the document";
    spec.subtitle = fmt::format(
        "left: sentence weight alpha_i · words shaded by a_it · {} sentences, {} words · {} · "
        "parameters {}",
        report.sentences.size(), n_tokens, embeddings_name, params_label(params));
    spec.cmap = &cmap;
    spec.scale = c.scale;
    return document_figure(spec);
  };
  made.params = [&] { return params.serialize_used(); };
  report.written = write_outputs(c.out, made);
  return report;
}

std::string format_han(const han_report& r) {
  std::string s = "sentence weight | words (weight within the sentence)\n";
  for (std::size_t i = 0; i < r.sentences.size(); ++i) {
    s += fmt::format("{:15.3f} |", r.result.sentence_weights[i]);
    for (std::size_t t = 0; t < r.sentences[i].size(); ++t)
      s += fmt::format(" {}({:.2f})", r.sentences[i][t], r.result.word_weights[i][t]);
    s += "\n";
  }
  return s;
}

}  // namespace attnviz
