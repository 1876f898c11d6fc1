// What the value-weighing measures share (measures/norms.cpp, measures/contrib.cpp): each key's
// value vectors after the output projection, f_h(x_j) = v_h(x_j) W_O^h, formed a block of keys
// at a time, and their Gram matrices G_j = F_j F_jᵀ (F_j: the H × d matrix of key j's f_h), so
// that ‖Σ_h a_h f_h(x_j)‖² = aᵀ G_j a needs no n² vectors of d.
#pragma once

#include <cstddef>
#include <vector>

#include "model/map_taps.h"

namespace attnviz {

// A layer's values and output projection: v [n_k rows of kv_heads · head_dim, stride ldv] (query
// head h reads key/value head h / (heads / kv_heads)); wo: W_O as floats in its stored layout.
struct value_vector_source {
  const float* v = nullptr;
  std::size_t ldv = 0, heads = 0, kv_heads = 0, head_dim = 0, n_k = 0, d = 0;
  const float* wo = nullptr;
  linear_layout layout = linear_layout::out_in;
};

// The keys whose f_h(x_j) are formed at once: as many as fit in 4 MiB of f (b × H × d floats),
// so that the Gram matrices read them from the cache the product left them in; at least 16.
std::size_t value_key_block(std::size_t heads, std::size_t d);

// Σ_k a[k] b[k] over d floats, in eight running sums (so the compiler can keep them in vectors).
float dot8(const float* a, const float* b, std::size_t d);

// F for keys [j0, j0 + b): f (b × H × d, key j's heads side by side).
void form_values(const value_vector_source& s, std::size_t j0, std::size_t b, float* f);

// G_j for keys [j0, j0 + b) into gram ([n_k, H, H], both triangles), from their vectors f
// (b × H × d, as form_values leaves them).
void gram_block(const float* f, std::size_t j0, std::size_t b, std::size_t heads, std::size_t d,
                float* gram);

// aᵀ G a for the heads' weights a (H floats) and one key's G (H × H), in double; t: H floats of
// scratch.
double quadratic_form(const float* gram, const float* a, std::size_t heads, float* t);

}  // namespace attnviz
