// From what the user typed to the pipeline's input: tokenize the sentence(s), stream the
// embedding file once for the tokens needed, and embed them with the OOV policy.
// Shared by run, compare and demo.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
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
  bool merge_subwords = false;      // pieces are looked up without their ##, ▁ or Ġ mark
  std::string cache_dir;  // --cache: answer from a binary copy of the whole file (empty: no)
};

struct prepared_input {
  attention_input input;
  std::vector<std::string> oov_tokens;  // distinct, in order of first appearance
  std::string embeddings_name;          // the file name without its folder
  embedding_table table;                // the vectors read (sentence tokens + vocabulary rows)
};

// The tokens of one input: what tokenize_inputs makes of --text / --tokens / --source+--target
// (and --values). Errors name the flag (see tokenize).
struct tokenized {
  attention_structure structure = attention_structure::self;
  std::vector<std::string> queries;
  std::vector<std::string> keys;
  std::vector<std::string> values;  // empty: the keys
};
tokenized tokenize_inputs(const input_config& config);

// Every token of `tok` as embed_input looks it up, for read_embeddings.
void add_wanted(std::unordered_set<std::string>& wanted, const tokenized& tok,
                bool strip_marks = false);

// The pipeline's input from tokens and a table already read (the table is not copied in).
// With strip_marks, sub-word pieces are looked up without their mark (--merge-subwords).
prepared_input embed_input(const tokenized& tok, const embedding_table& table, oov_policy oov,
                           bool strip_marks = false);

// tokenize_inputs + read_embeddings + embed_input, keeping the table.
prepared_input prepare_input(const input_config& config);

std::string_view oov_policy_name(oov_policy p);
// The one-line warning for OOV tokens (empty when there are none).
std::string oov_warning(const prepared_input& in, const input_config& config);
// Everything worth telling about the input: the OOV warning, and that CJK text written without
// spaces was split into single characters (with the way to give words: --tokens).
std::vector<std::string> input_warnings(const prepared_input& in, const input_config& config);
// The same for tokens gathered elsewhere; `where` follows "N token(s)" (" in 3 line(s)").
std::string oov_warning(const std::vector<std::string>& oov_tokens, const input_config& config,
                        std::string_view where = "");

}  // namespace attnviz
