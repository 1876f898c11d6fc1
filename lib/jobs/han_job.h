// `attn-viz han`: hierarchical attention (attention/han.h) on a document: split into
// sentences, embedded, pooled twice; drawn as a document view and written as JSON.
#pragma once

#include <string>
#include <vector>

#include "attention/han.h"
#include "jobs/inputs.h"
#include "jobs/job_outputs.h"
#include "jobs/memory_guard.h"
#include "text/lookup.h"

namespace attnviz {

struct han_config {
  // input.text: the document (sentences end at line breaks and . ! ? … 。 ！ ？); embeddings,
  // oov, keep_case and cache_dir as for every job (the other inputs are not used)
  input_config input;
  // Or a file of documents: one sentence per line, a blank line between documents (each gets
  // its own hierarchical attention, with the same parameters). input.text must then be empty.
  std::string file;
  std::uint64_t seed = 0;
  std::string params_in;
  job_outputs out;  // json, png, svg, params
  std::string cmap;
  int scale = 1;
  std::uint64_t max_memory = default_memory_limit;
};

struct han_document {
  std::vector<std::vector<std::string>> sentences;
  han_result result;
  std::size_t first_line = 0;  // --file: the line of its first sentence (from 1); else 0
};

struct han_report {
  std::vector<han_document> documents;  // one for input.text
  bool from_file = false;
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

han_report run_han(const han_config& config);

// A file of documents (see han_config::file) as sentences of tokens; input_error naming the
// file and line for a line with no token, and for a file with no sentence.
std::vector<han_document> read_han_documents(const std::string& text, const std::string& source,
                                             bool keep_case);

// The weights as text: one line per sentence, "0.412 | the(0.08) cat(0.31) …" (several
// documents: each under a "document k (line n)" heading).
std::string format_han(const han_report& report);

}  // namespace attnviz
