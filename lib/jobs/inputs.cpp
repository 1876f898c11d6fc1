#include "jobs/inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <unordered_set>

#include "analysis/subwords.h"
#include "error.h"
#include "text/embedding_cache.h"
#include "text/embeddings.h"
#include "text/tokenizer.h"

namespace attnviz {
tokenized tokenize_inputs(const input_config& c) {
  const int given = !c.text.empty() + !c.tokens.empty() + (!c.source.empty() || !c.target.empty());
  if (given == 0)
    throw usage_error(fmt::format("nothing to attend: give {}, {}, or {} with {}",
                                  param("text"), param("tokens"), param("source"),
                                  param("target")));
  if (given > 1) throw usage_error(fmt::format("give only one of {}, {}, or {}/{}", param("text"),
                                                param("tokens"), param("source"), param("target")));
  tokenized t;
  const tokenizer_options opts{c.keep_case};
  if (!c.text.empty()) {
    t.queries = tokenize(c.text, opts, param("text"));
    if (t.queries.empty()) throw input_error(param("text"), "has no tokens (only spaces or controls)");
    t.keys = t.queries;
  } else if (!c.tokens.empty()) {
    t.queries = split_pretokenized(c.tokens, param("tokens"));
    if (t.queries.empty()) throw input_error(param("tokens"), "has no tokens");
    t.keys = t.queries;
  } else {
    if (c.source.empty() || c.target.empty())
      throw usage_error(fmt::format("cross attention needs both {} and {}", param("source"),
                                    param("target")));
    t.structure = attention_structure::cross;
    t.keys = tokenize(c.source, opts, param("source"));
    t.queries = tokenize(c.target, opts, param("target"));
    if (t.keys.empty()) throw input_error(param("source"), "has no tokens");
    if (t.queries.empty()) throw input_error(param("target"), "has no tokens");
  }
  if (!c.values.empty()) {
    t.values = tokenize(c.values, opts, param("values"));
    if (t.values.size() != t.keys.size())
      throw input_error(param("values"), fmt::format("has {} token(s); the memory view needs one value "
                                                "per key, and there are {} keys",
                                                t.values.size(), t.keys.size()));
  }
  return t;
}

std::string_view oov_policy_name(oov_policy p) {
  return name_of(oov_policy_names, p);
}

namespace {

std::vector<std::string> without_marks(const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  for (const auto& p : pieces) out.emplace_back(strip_subword_mark(p));
  return out;
}

// The tokens as the embedding file is asked for them.
tokenized lookup_names(const tokenized& tok, bool strip_marks) {
  if (!strip_marks) return tok;
  tokenized out = tok;
  out.queries = without_marks(tok.queries);
  out.keys = without_marks(tok.keys);
  out.values = without_marks(tok.values);
  return out;
}

}  // namespace

void add_wanted(std::unordered_set<std::string>& wanted, const tokenized& tok, bool strip_marks) {
  const tokenized names = lookup_names(tok, strip_marks);
  add_wanted(wanted, names.queries);
  add_wanted(wanted, names.keys);
  add_wanted(wanted, names.values);
}

prepared_input embed_input(const tokenized& tok, const embedding_table& table, oov_policy oov,
                           bool strip_marks) {
  const tokenized names = lookup_names(tok, strip_marks);
  const embedded_tokens q = embed_tokens(names.queries, table, oov);
  const embedded_tokens k =
      tok.structure == attention_structure::self ? q : embed_tokens(names.keys, table, oov);
  prepared_input out;
  const embedded_tokens v = tok.values.empty() ? k : embed_tokens(names.values, table, oov);
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
  if (c.embeddings.empty()) throw usage_error(param("embeddings") + " FILE is required");
  const tokenized tok = tokenize_inputs(c);
  std::unordered_set<std::string> wanted;
  add_wanted(wanted, tok, c.merge_subwords);
  embedding_table table = load_embeddings(c.embeddings, wanted, c.vocabulary_rows, c.cache_dir);
  prepared_input out = embed_input(tok, table, c.oov, c.merge_subwords);
  out.embeddings_name = std::filesystem::path(c.embeddings).filename().string();
  out.table = std::move(table);
  return out;
}

std::string oov_warning(const std::vector<std::string>& oov_tokens, const input_config& c,
                        std::string_view where) {
  if (oov_tokens.empty()) return {};
  return fmt::format("{} token(s){} not in {}: {} ({})", oov_tokens.size(), where, c.embeddings,
                     list_tokens(oov_tokens),
                     c.oov == oov_policy::hash
                         ? fmt::format("given deterministic hash vectors; {} zero or {} error "
                                       "to change",
                                       param("oov"), param("oov"))
                         : "given zero vectors");
}

std::string oov_warning(const prepared_input& in, const input_config& c) {
  return oov_warning(in.oov_tokens, c);
}

std::vector<std::string> input_warnings(const prepared_input& in, const input_config& c) {
  std::vector<std::string> out;
  if (auto w = oov_warning(in, c); !w.empty()) out.push_back(std::move(w));
  for (const std::string* text : {&c.text, &c.source, &c.target})
    if (splits_cjk_runs(*text)) {
      out.push_back(fmt::format("Chinese/Japanese text without spaces is split into single "
                                "characters (机器学习 -> 机 器 学 习); to attend over words, give "
                                "them space-separated with {}",
                                param("tokens")));
      break;
    }
  return out;
}

}  // namespace attnviz
