// Positional schemes: how word order reaches stage 1. Without one, attention is blind to order
// (permuting the sentence permutes the map).
//
//   sinusoidal  X' = X + PE before the projections, PE(p, 2i) = sin(p / 10000^(2i/d)),
//               PE(p, 2i+1) = cos(p / 10000^(2i/d))                       (Vaswani 2017)
//   rope        q and k of every head rotated pairwise by angle p·θ_i, θ_i = 10000^(-2i/d_k):
//               (x_2i, x_2i+1) -> (x_2i cos pθ_i − x_2i+1 sin pθ_i, x_2i sin pθ_i + x_2i+1 cos
//               pθ_i), so q_m · k_n depends on m − n only                            (Su et al.
//               2021)
//   alibi       e_ij − m_h |i − j| added to the scores, head h = 1..H with slope
//               m_h = m^h, m = 2^(−8/H) unless --alibi-slope gives m    (Press et al. 2022)
// Positions count from 0 within each sequence (queries and keys separately).
#pragma once

#include <cstddef>
#include <string_view>
#include <string>
#include <vector>

#include "tensor.h"

namespace attnviz {

enum class position_scheme { none, sinusoidal, rope, alibi };

// "none" / "sinusoidal" / "rope" / "alibi" (aliases: absolute, rotary); usage_error otherwise.
position_scheme parse_position(std::string_view name);
std::string_view position_name(position_scheme p);

// PE(p, ·) for one (possibly negative) position p: d values.
std::vector<float> sinusoid(double p, std::size_t d);
// Rows 0..n−1 of PE: n × d.
matrix sinusoidal_table(std::size_t n, std::size_t d);
// x(p, ·) += PE(p, ·) for every row p.
void add_sinusoidal(matrix& x);

// Rotates each row p of x (n × d) by RoPE angles p·θ_i; an odd last column stays as is.
void apply_rope(matrix& x);
// The same on columns [first, first + count) of x only, as if they were a matrix of their own
// (one head of a multi-head projection).
void apply_rope_columns(matrix& x, std::size_t first, std::size_t count);

// RoPE in the rotate-half layout (GPT-NeoX; Hugging Face's Llama, Mistral, Qwen2): dimension
// i < d/2 pairs with i + d/2 (not 2i with 2i + 1) and turns by p·θ_i, θ_i = base^(−2i/d):
//   (x_i, x_{i+d/2}) -> (x_i cos pθ_i − x_{i+d/2} sin pθ_i, x_{i+d/2} cos pθ_i + x_i sin pθ_i).
// The table holds cos and sin of every (position, i), computed in double once per sequence.
struct rope_half_table {
  std::size_t positions = 0, half = 0;
  std::vector<float> cos, sin;  // positions × half
};
rope_half_table make_rope_half_table(std::size_t positions, std::size_t d, double base);
// The same with the frequencies θ_i given (d/2 of them: a model's scaled RoPE).
rope_half_table make_rope_half_table(std::size_t positions, const std::vector<double>& theta);
// Rows for positions [first, first + count) (a generation step's rows after `first` cached ones).
rope_half_table make_rope_half_table(std::size_t first, std::size_t count,
                                     const std::vector<double>& theta);
// Rotates columns [first, first + 2·table.half) of every row p of x (p < table.positions).
void apply_rope_half(matrix& x, std::size_t first, const rope_half_table& table);
// The interleaved layout (GPT-J; Meta's original): dimension 2i pairs with 2i + 1, turned by the
// table's angle i: columns [first, first + 2·table.half) of every row p.
void apply_rope_interleaved(matrix& x, std::size_t first, const rope_half_table& table);

// ALiBi slopes m_1..m_H: m^h with m = first (first <= 0: 2^(−8/H)).
std::vector<double> alibi_slopes(std::size_t heads, double first);
// When one head takes the paper's slope (first <= 0, heads <= 1: 2^−8 ≈ 0.0039), a note for the
// user: over `tokens` tokens the bias reaches only 2^−8·(tokens − 1), so the map barely moves;
// it names --alibi-slope. Empty otherwise.
std::string alibi_single_head_note(std::size_t heads, double first, std::size_t tokens);
// e_ij −= slope·|i − j|, where row r of `scores` is query i = first_row + r.
void add_alibi(matrix& scores, double slope, std::size_t first_row = 0);

}  // namespace attnviz
