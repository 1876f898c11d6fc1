// Attention-over-attention (Cui et al. 2017), for a document D (n_d × d) and a query
// Q (n_q × d):
//   M      = D Qᵀ                           n_d × n_q   pair-wise matching scores
//   α      = softmax of each column of M    n_d × n_q   query word j's attention over the document
//   β      = softmax of each row of M       n_d × n_q   document word i's attention over the query
//   β̄      = mean of β's rows               n_q         how much each query word matters
//   s      = α β̄ᵀ                           n_d         the attended document-level attention
// s sums to 1 (a mix of α's columns, each a distribution, with weights β̄ that sum to 1).
// The paper scores a candidate answer w by Σ_{i: D_i = w} s_i; word_scores gives that sum.
// Here D and Q are the word vectors (the paper runs a bidirectional GRU over each first).
#pragma once

#include <string>
#include <vector>

#include "tensor.h"

namespace attnviz {

struct aoa_result {
  matrix m;                      // M: n_d × n_q
  matrix alpha;                  // column-wise softmax of M
  matrix beta;                   // row-wise softmax of M
  std::vector<double> beta_bar;  // n_q
  std::vector<double> s;         // n_d
};

aoa_result attention_over_attention(const matrix& document, const matrix& query);

// Σ of s over the positions of each distinct word, highest first (ties in document order).
std::vector<std::pair<std::string, double>> aoa_word_scores(
    const std::vector<std::string>& document_tokens, const std::vector<double>& s);

}  // namespace attnviz
