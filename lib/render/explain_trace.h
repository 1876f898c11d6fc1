// explain's writers: one query's trace (explain_job computes it) as plain text and as JSON.
//
// text: the run's shape and the query (explain_header), the three stages with their formulas,
// papers, masks and parameter shapes (explain_stages), the query's scores, weights, top keys,
// context norm and nearest words (explain_row). json: the same trace as data (explain_json).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attention/pipeline.h"

namespace attnviz {

struct neighbour {
  std::string word;
  double cosine;
};

// Everything the explanation of one query shows: the run, the query, its keys by weight, the
// nearest words of its context (and output) vector, and where the inputs came from.
struct query_trace {
  attention_result r;
  std::size_t head_index = 0;        // the head walked through (0-based)
  std::size_t i = 0;                 // the query
  std::string note;                  // which occurrence was taken, when the token repeats
  std::vector<std::size_t> order;    // keys by weight, highest first (stable)
  std::size_t top = 0;               // how many of them to list
  double norm = 0.0;                 // |c_i|
  std::vector<neighbour> near;       // of c_i (empty when d_v differs from the file's)
  double out_norm = 0.0;             // |o_i| with several heads
  std::vector<neighbour> out_near;   // of o_i
  std::string embeddings_name;       // the embedding file's name
  std::size_t table_dim = 0;         // its vectors' size
  std::uint64_t table_rows = 0;      // the rows read
  std::size_t vocabulary = 0;        // the rows the nearest words were searched among
  std::string params_source;         // "--seed N" or the weights file
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> params_used;  // name, shape
  const head_result& head() const { return r.heads[head_index]; }
};

std::string explain_header(const query_trace& q);
std::string explain_stages(const query_trace& q);
std::string explain_row(const query_trace& q);
std::string explain_json(const query_trace& q);

}  // namespace attnviz
