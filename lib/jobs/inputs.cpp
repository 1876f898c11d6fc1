#include "jobs/inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <unordered_set>

#include "error.h"
#include "text/embeddings.h"
#include "text/tokenizer.h"

namespace attnviz {
tokenized tokenize_inputs(const input_config& c) {
  const int given = !c.text.empty() + !c.tokens.empty() + (!c.source.empty() || !c.target.empty());
  if (given == 0)
    throw usage_error("nothing to attend: give --text, --tokens, or --source with --target");
  if (given > 1) throw usage_error("give only one of --text, --tokens, or --source/--target");
  tokenized t;
  const tokenizer_options opts{c.keep_case};
  if (!c.text.empty()) {
    t.queries = tokenize(c.text, opts, "--text");
    if (t.queries.empty()) throw input_error("--text", "has no tokens (only spaces or controls)");
    t.keys = t.queries;
  } else if (!c.tokens.empty()) {
    t.queries = split_pretokenized(c.tokens, "--tokens");
    if (t.queries.empty()) throw input_error("--tokens", "has no tokens");
    t.keys = t.queries;
  } else {
    if (c.source.empty() || c.target.empty())
      throw usage_error("cross attention needs both --source and --target");
    t.structure = attention_structure::cross;
    t.keys = tokenize(c.source, opts, "--source");
    t.queries = tokenize(c.target, opts, "--target");
    if (t.keys.empty()) throw input_error("--source", "has no tokens");
    if (t.queries.empty()) throw input_error("--target", "has no tokens");
  }
  if (!c.values.empty()) {
    t.values = tokenize(c.values, opts, "--values");
    if (t.values.size() != t.keys.size())
      throw input_error("--values", fmt::format("has {} token(s); the memory view needs one value "
                                                "per key, and there are {} keys",
                                                t.values.size(), t.keys.size()));
  }
  return t;
}

std::string_view oov_policy_name(oov_policy p) {
  switch (p) {
    case oov_policy::hash:
      return "hash";
    case oov_policy::zero:
      return "zero";
    case oov_policy::error:
      return "error";
  }
  return "?";
}

void add_wanted(std::unordered_set<std::string>& wanted, const tokenized& tok) {
  add_wanted(wanted, tok.queries);
  add_wanted(wanted, tok.keys);
  add_wanted(wanted, tok.values);
}

prepared_input embed_input(const tokenized& tok, const embedding_table& table, oov_policy oov) {
  const embedded_tokens q = embed_tokens(tok.queries, table, oov);
  const embedded_tokens k =
      tok.structure == attention_structure::self ? q : embed_tokens(tok.keys, table, oov);
  prepared_input out;
  const embedded_tokens v = tok.values.empty() ? k : embed_tokens(tok.values, table, oov);
  out.oov_tokens = q.oov_tokens;
  std::unordered_set<std::string> seen(q.oov_tokens.begin(), q.oov_tokens.end());
  for (const auto* list : {&k.oov_tokens, &v.oov_tokens})
    for (const auto& t : *list)
      if (seen.insert(t).second) out.oov_tokens.push_back(t);
  out.input.structure = tok.structure;
  out.input.query_tokens = tok.queries;
  out.input.key_tokens = tok.keys;
  out.input.queries = q.vectors;
  out.input.keys = k.vectors;
  out.input.values = v.vectors;
  out.input.value_tokens = tok.values;
  out.embeddings_name = std::filesystem::path(table.source).filename().string();
  return out;
}

prepared_input prepare_input(const input_config& c) {
  if (c.embeddings.empty()) throw usage_error("--embeddings FILE is required");
  const tokenized tok = tokenize_inputs(c);
  std::unordered_set<std::string> wanted;
  add_wanted(wanted, tok);
  embedding_table table = read_embeddings(c.embeddings, wanted, c.vocabulary_rows);
  prepared_input out = embed_input(tok, table, c.oov);
  out.embeddings_name = std::filesystem::path(c.embeddings).filename().string();
  out.table = std::move(table);
  return out;
}

std::string oov_warning(const prepared_input& in, const input_config& c) {
  if (in.oov_tokens.empty()) return {};
  return fmt::format("{} token(s) not in {}: {} ({})", in.oov_tokens.size(), c.embeddings,
                     list_tokens(in.oov_tokens),
                     c.oov == oov_policy::hash
                         ? "given deterministic hash vectors; --oov zero or --oov error to change"
                         : "given zero vectors");
}

}  // namespace attnviz
