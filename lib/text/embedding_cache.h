// --cache: a binary copy of a whole embedding file, so later runs look tokens up without reading
// the text at all.
//
// The first run with --cache scans the whole file (every row checked, as read_embeddings does)
// and writes CACHE_DIR/<fnv1a64 of the file's absolute path, hex>.avc; later runs map that file
// and answer from it, as long as the source's absolute path, size and modification time (ns) are
// those recorded. Otherwise it is rebuilt. The answer is the table read_embeddings gives with
// the whole file read (the same vectors, mean norm, row count, format), so a cached run writes
// the same bytes as an uncached one.
//
// Layout (little-endian; `entries` = distinct tokens, first row wins):
//   0   "ATTNVIZC"  magic                 8  u32 version (1)      12 u32 dim
//   16  u64 rows (the file's)             24 u64 entries          32 f64 mean_norm
//   40  u32 format                        44 u32 compressed       48 u64 source size
//   56  i64 source mtime (ns)             64 u64 buckets (power of 2, >= 2 entries)
//   72  u32 path length, then the path bytes; zero padding to a multiple of 64
//   vectors   entries × dim float32, in file order
//   rows      entries × u64: each entry's row in the file (for keep_first)
//   offsets   (entries + 1) × u64 into the token bytes
//   tokens    the token bytes, concatenated
//   buckets   buckets × u32: entry + 1 (0: empty), open addressing on fnv1a64(token), linear probe
// A file that does not parse (wrong magic or version, sizes that do not add up) is rebuilt.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "text/embeddings.h"

namespace attnviz {

// $ATTNVIZ_CACHE_DIR, else $XDG_CACHE_HOME/attn-viz, else $HOME/.cache/attn-viz.
std::string default_cache_dir();

struct cache_use {
  std::string path;    // the cache file
  bool built = false;  // false: answered from an existing cache
};

// read_embeddings(path, wanted, keep_first), answered from the cache in cache_dir (made if
// missing). Errors in the source are input_errors as read_embeddings gives them; a cache folder
// that cannot be written is a usage_error naming it.
embedding_table read_embeddings_cached(const std::string& path,
                                       const std::unordered_set<std::string>& wanted,
                                       std::size_t keep_first, const std::string& cache_dir,
                                       cache_use* use = nullptr);

// read_embeddings_cached when cache_dir is not empty (--cache), read_embeddings otherwise.
embedding_table load_embeddings(const std::string& path,
                                const std::unordered_set<std::string>& wanted,
                                std::size_t keep_first, const std::string& cache_dir);

}  // namespace attnviz
