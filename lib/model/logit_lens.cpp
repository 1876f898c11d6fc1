#include "model/logit_lens.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "model/forward.h"

namespace attnviz {

namespace logit_lens_parts {

// Rows of logits at once: at most 16 Mi floats (64 MiB), at least one row.
std::size_t chunk_rows(std::size_t vocab) {
  return std::max<std::size_t>(1, (std::size_t{16} << 20) / std::max<std::size_t>(1, vocab));
}

// One row of logits z (V floats): its top k into ids/probs (softmax probabilities).
void top_of(const float* z, std::size_t V, std::size_t k, std::int64_t* ids, float* probs,
            std::vector<std::size_t>& order) {
  if (order.size() != V) order.resize(V);
  const float most = *std::max_element(z, z + V);
  double sum = 0.0;
  for (std::size_t j = 0; j < V; ++j) sum += std::exp(static_cast<double>(z[j]) - most);
  std::iota(order.begin(), order.end(), 0);
  const auto top = static_cast<std::ptrdiff_t>(k);
  std::partial_sort(
      order.begin(), order.begin() + top, order.end(),
      [z](std::size_t a, std::size_t b) { return z[a] > z[b] || (z[a] == z[b] && a < b); });
  for (std::size_t t = 0; t < k; ++t) {
    ids[t] = static_cast<std::int64_t>(order[t]);
    probs[t] = static_cast<float>(std::exp(static_cast<double>(z[order[t]]) - most) / sum);
  }
}

// How many of z's V logits are above z[id]: the rank of token `id` (0: on top).
std::int64_t rank_of(const float* z, std::size_t V, std::int64_t id) {
  const float zi = z[id];
  std::int64_t above = 0;
  for (std::size_t j = 0; j < V; ++j)
    above += z[j] > zi || (z[j] == zi && j < static_cast<std::size_t>(id));
  return above;
}

// Row `row` of the lens from the stream x (n × d; `normed`: already through the final norm),
// with the rank of the final prediction (the lens' last row's top token) unless it is that row.
void lens_row(const hf_model& m, matrix x, const lens_stack* norm, std::size_t row,
              logit_lens& lens, std::vector<std::size_t>& order) {
  const std::size_t n = x.rows(), d = x.cols(), k = lens.k;
  if (norm) x = norm->final_norm(std::move(x));
  const std::size_t chunk = chunk_rows(m.config.vocab);
  for (std::size_t i0 = 0; i0 < n; i0 += chunk) {
    const std::size_t rows = std::min(chunk, n - i0);
    matrix part = matrix::uninitialized(rows, d);
    std::copy(x.row(i0), x.row(i0) + rows * d, part.data());
    const matrix z = output_logits_rows(m, std::move(part));
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t at = (row * n + i0 + r) * k;
      top_of(z.row(r), z.cols(), k, lens.top_ids.data() + at, lens.top_probs.data() + at, order);
      if (row + 1 < lens.rows)
        lens.final_rank[row * n + i0 + r] =
            rank_of(z.row(r), z.cols(), lens.id(lens.rows - 1, i0 + r));
    }
  }
}

}  // namespace logit_lens_parts

logit_lens run_logit_lens(const hf_model& m, const std::function<matrix(std::size_t)>& input_of,
                          const matrix& hidden, std::size_t k, progress_style style) {
  lens_stack own;
  own.layers = m.config.layers;
  own.final_norm = [&m](matrix x) { return final_norm_of(m, std::move(x)); };
  return run_logit_lens(m, input_of, hidden, k, style, own);
}

logit_lens run_logit_lens(const hf_model& m, const std::function<matrix(std::size_t)>& input_of,
                          const matrix& hidden, std::size_t k, progress_style style,
                          const lens_stack& stack) {
  using namespace logit_lens_parts;
  const std::size_t L = stack.layers, n = hidden.rows(), V = m.config.vocab;
  logit_lens lens;
  lens.rows = L + 1;
  lens.n = n;
  lens.k = std::min(k, V);
  lens.top_ids.assign(lens.rows * n * lens.k, 0);
  lens.top_probs.assign(lens.rows * n * lens.k, 0.0f);
  lens.final_rank.assign(lens.rows * n, 0);
  std::vector<std::size_t> order(V);
  progress bar("logit lens", "layers", L + 1, style);
  lens_row(m, hidden, nullptr, L, lens, order);  // the model's own prediction first: the ranks
  bar.update(1);
  for (std::size_t l = 0; l < L; ++l) {
    lens_row(m, input_of(l), &stack, l, lens, order);
    bar.update(l + 2);
  }
  bar.finish();
  return lens;
}

std::uint64_t logit_lens_bytes(const model_config& c, std::size_t n) {
  const std::uint64_t chunk = std::min<std::uint64_t>(logit_lens_parts::chunk_rows(c.vocab), n);
  return 4 * (chunk * c.vocab + 2 * static_cast<std::uint64_t>(n) * c.d_model) + (c.vocab + 1) * 8;
}

}  // namespace attnviz
