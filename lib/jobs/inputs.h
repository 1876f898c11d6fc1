// From what the user typed to the pipeline's input: tokenize the sentence(s), stream the
// embedding file once for the tokens needed, and embed them with the OOV policy.
// Shared by run, compare and demo.
#pragma once

#include <string>
#include <vector>

#include "attention/pipeline.h"
#include "text/embeddings.h"
#include "text/lookup.h"

namespace attnviz {

struct input_config {
  // exactly one of: text / tokens / (source and target)
  std::string text;
  std::string tokens;
  std::string source;
  std::string target;
  std::string values;  // memory view: the values' sentence (one token per key)
  bool keep_case = false;
  std::string embeddings;
  oov_policy oov = oov_policy::hash;
  std::size_t vocabulary_rows = 0;  // > 0: also keep the file's first rows (explain's neighbours)
};

struct prepared_input {
  attention_input input;
  std::vector<std::string> oov_tokens;  // distinct, in order of first appearance
  std::string embeddings_name;          // the file name without its folder
  embedding_table table;                // the vectors read (sentence tokens + vocabulary rows)
};

prepared_input prepare_input(const input_config& config);

std::string_view oov_policy_name(oov_policy p);
// The one-line warning for OOV tokens (empty when there are none).
std::string oov_warning(const prepared_input& in, const input_config& config);

}  // namespace attnviz
