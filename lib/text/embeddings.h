// Word vectors in the formats users download, read in one streaming pass:
//
//   text (GloVe, word2vec text, fastText .vec):
//     [count dim]                  optional header line (word2vec / fastText)
//     token v_1 v_2 ... v_dim      one row per token, fields separated by spaces or tabs
//   word2vec binary (.bin):
//     "count dim\n", then per word: token, one space, dim little-endian float32 (4·dim bytes),
//     optionally followed by "\n"
//   either one gzip-compressed (.gz or any name: detected by its first bytes), inflated while
//   reading, never unpacked to disk.
//
// The format is detected from the first line(s): a "count dim" header followed by a line that
// is not `token` + dim numbers is word2vec binary; anything else is text.
//
// Only the vectors of `wanted` tokens are kept, so a 400k-word file costs the memory of a
// sentence, and reading stops as soon as every wanted token has been found (and the first
// max(keep_first, 1000) rows have been read: the mean norm below and explain's vocabulary need
// them). A lookup of common words therefore reads only the top of a frequency-sorted file.
// Every row read is checked for its shape (token + dim values); rows that are kept are parsed
// in full (finite floats only). Text: a UTF-8 BOM and CRLF line ends are accepted; blank lines
// are skipped. When a token appears twice the first row wins.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace attnviz {

enum class embedding_format { text, word2vec_binary };
std::string_view embedding_format_name(embedding_format f);

struct embedding_table {
  std::string source;  // the file name, for messages
  std::size_t dim = 0;
  std::unordered_map<std::string, std::vector<float>> vectors;  // only the wanted tokens
  std::uint64_t rows = 0;  // rows read (all of them when complete)
  // Mean L2 norm of the file's first (up to) 1000 rows: OOV hash vectors get this norm, so
  // "scaled like the file's vectors" depends on the file only, never on the sentence.
  double mean_norm = 0.0;
  embedding_format format = embedding_format::text;
  bool compressed = false;       // the file was gzip
  bool complete = true;          // false: reading stopped once everything wanted was found
  std::uint64_t bytes_read = 0;  // of the (uncompressed) stream

  const std::vector<float>* find(const std::string& token) const;
};

// Throws input_error naming the file and line (text) or byte offset (binary) for: a missing or
// unreadable file, an empty file, a row with the wrong number of values (ragged, or a dimension
// that changes mid-file), a value that is not a number, NaN/Inf or out of float range, a token
// that is not valid UTF-8, a binary file cut short or longer than its header says, corrupt gzip
// data. Also: a text line longer than 64 MiB, a folder or FIFO.
// keep_first > 0 also keeps the file's first keep_first rows (a vocabulary to search, e.g. for
// the nearest words of a context vector).
embedding_table read_embeddings(const std::string& path,
                                const std::unordered_set<std::string>& wanted,
                                std::size_t keep_first = 0);
// Every row of the file in order, parsed and checked as above, handed to `sink` (a token seen
// before is not: the first row wins); nothing is kept and reading never stops early. Returns the
// table without vectors (dim, rows, mean_norm, format, compressed, bytes_read). For the cache.
using embedding_row_sink = std::function<void(std::string_view token, std::uint64_t row,
                                              const std::vector<float>& values)>;
embedding_table scan_embeddings(const std::string& path, const embedding_row_sink& sink);

// The same rules on bytes in memory (not compressed); `source` names them in errors.
embedding_table parse_embeddings(std::string_view bytes, const std::string& source,
                                 const std::unordered_set<std::string>& wanted);

}  // namespace attnviz
