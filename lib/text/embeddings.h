// Word vectors in the plain-text format shared by GloVe, word2vec (text) and fastText (.vec):
//
//   [count dim]                  optional header line (word2vec / fastText)
//   token v_1 v_2 ... v_dim      one row per token, fields separated by spaces or tabs
//
// The file is streamed once; only the vectors of `wanted` tokens are kept, so a 400k-word
// file costs the memory of a sentence. Every row is checked for its shape (token + dim values),
// rows that are kept are parsed in full (finite floats only). A UTF-8 BOM and CRLF line ends
// are accepted; blank lines are skipped; when a token appears twice the first row wins.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace attnviz {

struct embedding_table {
  std::string source;  // the file name, for messages
  std::size_t dim = 0;
  std::unordered_map<std::string, std::vector<float>> vectors;  // only the wanted tokens
  std::uint64_t rows = 0;                                       // rows in the file
  // Mean L2 norm of the file's first (up to) 1000 rows: OOV hash vectors get this norm, so
  // "scaled like the file's vectors" depends on the file only, never on the sentence.
  double mean_norm = 0.0;

  const std::vector<float>* find(const std::string& token) const;
};

// Throws input_error naming the file and line for: a missing/unreadable file, an empty file,
// a row with the wrong number of values (ragged, or a dimension that changes mid-file),
// a value that is not a number, NaN/Inf or out of float range, invalid UTF-8 in a token.
// Also: a line longer than 64 MiB, a token that is not valid UTF-8, a folder or FIFO.
// keep_first > 0 also keeps the file's first keep_first rows (a vocabulary to search, e.g. for
// the nearest words of a context vector).
embedding_table read_embeddings(const std::string& path,
                                const std::unordered_set<std::string>& wanted,
                                std::size_t keep_first = 0);
// The same rules on bytes in memory; `source` names them in errors.
embedding_table parse_embeddings(std::string_view bytes, const std::string& source,
                                 const std::unordered_set<std::string>& wanted);

}  // namespace attnviz
