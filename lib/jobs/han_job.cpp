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
#include "render/heatmap.h"
#include "render/json_numbers.h"
#include "text/embedding_cache.h"
#include "text/embeddings.h"
#include "text/tokenizer.h"

namespace attnviz {
namespace {

using ojson = nlohmann::ordered_json;

// One document's sentences (tokens, word weights, weight, vector) and its vector, into `doc`.
void document_json(const han_document& r, ojson& doc) {
  auto num = [](double v) { return json_number(static_cast<float>(v)); };
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
}

std::string han_json(const han_report& r, const std::string& embeddings, const param_store& params,
                     const std::vector<std::string>& oov, oov_policy policy,
                     const std::string& file) {
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
  if (!r.from_file) {
    document_json(r.documents.front(), doc);
  } else {
    doc["file"] = file;
    ojson list = ojson::array();
    for (const auto& d : r.documents) {
      ojson one;
      one["first_line"] = d.first_line;
      document_json(d, one);
      list.push_back(std::move(one));
    }
    doc["documents"] = std::move(list);
  }
  return doc.dump(1) + "\n";
}

}  // namespace

std::vector<han_document> read_han_documents(const std::string& text, const std::string& source,
                                             bool keep_case) {
  std::vector<han_document> docs;
  han_document current;
  std::size_t line_no = 0, at = 0;
  auto close = [&] {
    if (!current.sentences.empty()) docs.push_back(std::move(current));
    current = han_document{};
  };
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line(text.data() + at, end - at);
    at = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) {  // a blank line ends a document
      close();
      continue;
    }
    std::vector<std::string> tokens = tokenize(line, tokenizer_options{keep_case}, source);
    if (tokens.empty())
      throw input_error(source, line_no, "expected a sentence: this line has no word");
    if (current.sentences.empty()) current.first_line = line_no;
    current.sentences.push_back(std::move(tokens));
  }
  close();
  if (docs.empty())
    throw input_error(source, "has no sentence (expected one sentence per line, a blank line "
                              "between documents)");
  return docs;
}

han_report run_han(const han_config& c) {
  c.out.check();
  const colormap& cmap = colormap::named_or_default(c.cmap);
  han_report report;
  if (!c.file.empty()) {
    if (!c.input.text.empty())
      throw usage_error(fmt::format("{} and {}: give one of them", param("document"), param("file")));
    report.from_file = true;
    report.documents = read_han_documents(read_whole_file(c.file), c.file, c.input.keep_case);
  } else {
    han_document d;
    d.sentences = split_sentences(c.input.text, tokenizer_options{c.input.keep_case},
                                  param("document"));
    if (d.sentences.empty()) throw input_error(param("document"), "has no tokens");
    report.documents.push_back(std::move(d));
  }
  std::size_t n_tokens = 0, n_sentences = 0;
  for (const auto& d : report.documents)
    for (const auto& s : d.sentences) n_tokens += s.size(), ++n_sentences;
  run_size size;  // T × d per sentence and the per-word weights: far below n²
  size.n_q = 1;
  size.n_k = n_tokens;
  size.json = !c.out.json.empty();
  size.image = c.out.figure();
  check_memory(size, c.max_memory);

  std::unordered_set<std::string> wanted;
  for (const auto& d : report.documents)
    for (const auto& s : d.sentences) add_wanted(wanted, s);
  const embedding_table table = load_embeddings(c.input.embeddings, wanted, 0, c.input.cache_dir);
  std::vector<std::string> oov;
  std::unordered_set<std::string> seen;
  param_store params = param_store::open(c.params_in, c.seed);
  for (auto& d : report.documents) {
    std::vector<matrix> vectors;
    for (const auto& s : d.sentences) {
      embedded_tokens e = embed_tokens(s, table, c.input.oov);
      for (auto& t : e.oov_tokens)
        if (seen.insert(t).second) oov.push_back(t);
      vectors.push_back(std::move(e.vectors));
    }
    d.result = hierarchical_attention(vectors, params);
  }
  if (!oov.empty())
    report.warnings.push_back(
        fmt::format("{} token(s) not in {}: {}", oov.size(), c.input.embeddings, list_tokens(oov)));
  if (const auto unused = params.unused_file_tensors(); !unused.empty())
    report.warnings.push_back(
        fmt::format("{}: tensors not used: {}", c.params_in, fmt::join(unused, ", ")));

  const std::string embeddings_name = std::filesystem::path(c.input.embeddings).filename().string();
  const std::string file_name = std::filesystem::path(c.file).filename().string();
  job_products made;
  made.json = [&] {
    return han_json(report, embeddings_name, params, oov, c.input.oov, file_name);
  };
  made.picture = [&] {
    const std::string title =
        "hierarchical attention (HAN, Yang et al. 2016): words within sentences, "
        "sentences in the document";
    std::vector<figure> views;
    for (std::size_t k = 0; k < report.documents.size(); ++k) {
      const han_document& d = report.documents[k];
      document_view_spec spec;
      spec.sentences = d.sentences;
      spec.word_weights = d.result.word_weights;
      spec.sentence_weights = d.result.sentence_weights;
      std::size_t words = 0;
      for (const auto& s : d.sentences) words += s.size();
      if (!report.from_file) {
        spec.title = title;
        spec.subtitle = fmt::format(
            "left: sentence weight alpha_i · words shaded by a_it · {} sentences, {} words · {} "
            "· parameters {}",
            d.sentences.size(), words, embeddings_name, params_label(params));
      } else {
        spec.title = fmt::format("document {} of {} · {} line {} · {} sentences, {} words", k + 1,
                                 report.documents.size(), file_name, d.first_line,
                                 d.sentences.size(), words);
      }
      spec.cmap = &cmap;
      spec.scale = c.scale;
      views.push_back(document_figure(spec));
    }
    if (!report.from_file) return std::move(views.front());
    // the documents one under another, under one title
    const std::string subtitle = fmt::format(
        "left: sentence weight alpha_i · words shaded by a_it · {} documents, {} sentences, {} "
        "words · {} · parameters {}",
        report.documents.size(), n_sentences, n_tokens, embeddings_name, params_label(params));
    const int top = title_block_height(title, subtitle, c.scale) + figure_margin;
    int width = 2 * figure_margin + title_block_width(title, subtitle, c.scale), height = top;
    for (const auto& v : views) width = std::max(width, v.width()), height += v.height();
    figure all(width, height);
    draw_title_block(all, title, subtitle, c.scale);
    int y = top;
    for (const auto& v : views) {
      all.append(v, 0, y);
      y += v.height();
    }
    return all;
  };
  made.params = [&] { return params.serialize_used(); };
  report.written = write_outputs(c.out, made);
  return report;
}

std::string format_han(const han_report& r) {
  std::string s;
  for (std::size_t k = 0; k < r.documents.size(); ++k) {
    const han_document& d = r.documents[k];
    if (r.from_file)
      s += fmt::format("{}document {} (line {})\n", k ? "\n" : "", k + 1, d.first_line);
    s += "sentence weight | words (weight within the sentence)\n";
    for (std::size_t i = 0; i < d.sentences.size(); ++i) {
      s += fmt::format("{:15.3f} |", d.result.sentence_weights[i]);
      for (std::size_t t = 0; t < d.sentences[i].size(); ++t)
        s += fmt::format(" {}({:.2f})", d.sentences[i][t], d.result.word_weights[i][t]);
      s += "\n";
    }
  }
  return s;
}

}  // namespace attnviz
