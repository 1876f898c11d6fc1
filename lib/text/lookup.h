// Tokens to vectors, with the out-of-vocabulary policy.
//
// Look-up order for a token t: t itself, then lower_case(t) (so --keep-case still finds
// GloVe's uncased vectors). A token found neither way is OOV and gets:
//   hash  (default) a deterministic vector from the token's bytes: components uniform in
//         [-1, 1) from splitmix64(fnv1a64(t)), rescaled to the file's mean_norm — the same
//         token always gets the same vector for the same file;
//   zero  the zero vector (it scores 0 with dot products and gets no similarity);
//   error stop, listing every OOV token.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "enum_names.h"
#include "tensor.h"
#include "text/embeddings.h"

namespace attnviz {

enum class oov_policy { hash, zero, error };
inline constexpr named<oov_policy> oov_policy_names[] = {
    {"hash", oov_policy::hash}, {"zero", oov_policy::zero}, {"error", oov_policy::error}};

struct embedded_tokens {
  matrix vectors;                       // n × dim, row i = token i
  std::vector<std::string> oov_tokens;  // distinct OOV tokens, in order of first appearance
};

// Tokens (and their lower-case forms) the embedding reader must keep.
void add_wanted(std::unordered_set<std::string>& wanted, const std::vector<std::string>& tokens);

embedded_tokens embed_tokens(const std::vector<std::string>& tokens, const embedding_table& table,
                             oov_policy policy);

// "a, b, c" — at most `limit` tokens, then "… and N more".
std::string list_tokens(const std::vector<std::string>& tokens, std::size_t limit = 30);

std::vector<float> oov_hash_vector(const std::string& token, std::size_t dim, double norm);

}  // namespace attnviz
