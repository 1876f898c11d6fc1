#include "analysis/subwords.h"

#include <algorithm>

namespace attnviz {
namespace {

constexpr std::string_view wordpiece_mark = "##";
constexpr std::string_view sentencepiece_mark = "\xE2\x96\x81";  // ▁ U+2581
constexpr std::string_view byte_bpe_mark = "\xC4\xA0";           // Ġ U+0120

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() > prefix.size() && s.substr(0, prefix.size()) == prefix;
}

bool is_special(std::string_view p) {
  return p.size() >= 3 &&
         ((p.front() == '[' && p.back() == ']') || (p.front() == '<' && p.back() == '>'));
}

// A lone mark is a word start too: SentencePiece writes "▁" on its own before a piece it has
// no "▁"-joined form of ("▁" "¶"), byte-level BPE a lone "Ġ" for a space before a space.
bool has_word_start_mark(std::string_view p) {
  return p.substr(0, sentencepiece_mark.size()) == sentencepiece_mark ||
         p.substr(0, byte_bpe_mark.size()) == byte_bpe_mark;
}

// The word index of every piece.
std::vector<std::size_t> word_of(const word_spans& s) {
  std::vector<std::size_t> out(s.starts.back());
  for (std::size_t w = 0; w < s.size(); ++w)
    std::fill(out.begin() + static_cast<std::ptrdiff_t>(s.starts[w]),
              out.begin() + static_cast<std::ptrdiff_t>(s.starts[w + 1]), w);
  return out;
}

// A (n_q × n_k) -> (W_q × W_k): the block's sum over key pieces, mean over query pieces
// (mean_both: the mean over the whole block).
matrix merge_matrix(const matrix& a, const word_spans& q, const word_spans& k, bool mean_both) {
  matrix out(q.size(), k.size());
  for (std::size_t I = 0; I < q.size(); ++I)
    for (std::size_t J = 0; J < k.size(); ++J) {
      double sum = 0.0;
      for (std::size_t i = q.starts[I]; i < q.starts[I + 1]; ++i)
        for (std::size_t j = k.starts[J]; j < k.starts[J + 1]; ++j) sum += a(i, j);
      double count = static_cast<double>(q.starts[I + 1] - q.starts[I]);
      if (mean_both) count *= static_cast<double>(k.starts[J + 1] - k.starts[J]);
      out(I, J) = static_cast<float>(sum / count);
    }
  return out;
}

// Rows (n × d) -> word rows: the mean over each word's pieces.
matrix merge_rows(const matrix& c, const word_spans& q) {
  matrix out(q.size(), c.cols());
  for (std::size_t I = 0; I < q.size(); ++I) {
    const std::size_t n = q.starts[I + 1] - q.starts[I];
    for (std::size_t col = 0; col < c.cols(); ++col) {
      double sum = 0.0;
      for (std::size_t i = q.starts[I]; i < q.starts[I + 1]; ++i) sum += c(i, col);
      out(I, col) = static_cast<float>(sum / static_cast<double>(n));
    }
  }
  return out;
}

}  // namespace

std::string_view strip_subword_mark(std::string_view piece) {
  for (std::string_view mark : {wordpiece_mark, sentencepiece_mark, byte_bpe_mark})
    if (starts_with(piece, mark)) return piece.substr(mark.size());
  return piece;
}

word_spans group_subwords(const std::vector<std::string>& pieces) {
  const bool marked_starts = std::any_of(
      pieces.begin(), pieces.end(), [](const std::string& p) { return has_word_start_mark(p); });
  word_spans s;
  bool previous_special = true;  // nothing to continue before the first piece
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const std::string_view p = pieces[i];
    const bool special = is_special(p);
    const bool continues =
        !special && !previous_special &&
        (starts_with(p, wordpiece_mark) || (marked_starts && !has_word_start_mark(p)));
    if (continues) {
      s.words.back() += strip_subword_mark(p);
    } else {
      const bool lone_mark = p == sentencepiece_mark || p == byte_bpe_mark;
      s.words.emplace_back(special ? p : lone_mark ? std::string_view() : strip_subword_mark(p));
      s.starts.push_back(i);
    }
    previous_special = special;
  }
  s.starts.push_back(pieces.size());
  for (std::size_t w = 0; w < s.size(); ++w)  // a lone mark nothing continued: a space
    if (s.words[w].empty()) s.words[w] = pieces[s.starts[w]];
  return s;
}

std::vector<std::vector<std::string>> pieces_of_words(const std::vector<std::string>& pieces) {
  const word_spans s = group_subwords(pieces);
  std::vector<std::vector<std::string>> out(s.size());
  for (std::size_t w = 0; w < s.size(); ++w)
    out[w].assign(pieces.begin() + static_cast<std::ptrdiff_t>(s.starts[w]),
                  pieces.begin() + static_cast<std::ptrdiff_t>(s.starts[w + 1]));
  return out;
}

attention_result merge_subwords(const attention_result& r) {
  const word_spans q = group_subwords(r.query_tokens);
  const word_spans k = r.structure == attention_structure::self && r.key_tokens == r.query_tokens
                           ? q
                           : group_subwords(r.key_tokens);
  attention_result out = r;
  out.query_tokens = q.words;
  out.key_tokens = k.words;
  if (!r.value_tokens.empty()) {  // one value per key: joined like the keys
    out.value_tokens.clear();
    for (std::size_t J = 0; J < k.size(); ++J) {
      std::string word;
      for (std::size_t j = k.starts[J]; j < k.starts[J + 1]; ++j)
        word += strip_subword_mark(r.value_tokens[j]);
      out.value_tokens.push_back(std::move(word));
    }
  }
  const std::vector<std::size_t> key_word = word_of(k);
  for (std::size_t h = 0; h < r.heads.size(); ++h) {
    const head_result& in = r.heads[h];
    head_result& m = out.heads[h];
    m.weights = merge_matrix(in.weights, q, k, false);
    if (!in.scores.empty()) m.scores = merge_matrix(in.scores, q, k, true);
    m.context = merge_rows(in.context, q);
    if (!in.chosen_keys.empty()) {
      m.chosen_keys.assign(q.size(), -1);
      for (std::size_t I = 0; I < q.size(); ++I) {
        const int j = in.chosen_keys[q.starts[I]];
        if (j >= 0) m.chosen_keys[I] = static_cast<int>(key_word[static_cast<std::size_t>(j)]);
      }
    }
    if (!in.masked_rows.empty()) {
      m.masked_rows.assign(q.size(), true);
      for (std::size_t I = 0; I < q.size(); ++I)
        for (std::size_t i = q.starts[I]; i < q.starts[I + 1]; ++i)
          m.masked_rows[I] = m.masked_rows[I] && in.masked_rows[i];
    }
    if (!in.masked.empty()) {
      const std::size_t n_k = r.key_tokens.size();
      m.masked.assign(q.size() * k.size(), true);
      for (std::size_t I = 0; I < q.size(); ++I)
        for (std::size_t J = 0; J < k.size(); ++J)
          for (std::size_t i = q.starts[I]; i < q.starts[I + 1]; ++i)
            for (std::size_t j = k.starts[J]; j < k.starts[J + 1]; ++j)
              if (!in.masked[i * n_k + j]) m.masked[I * k.size() + J] = false;
    }
  }
  if (!r.output.empty()) out.output = merge_rows(r.output, q);
  return out;
}

}  // namespace attnviz
