// ALTI+ (Ferrando et al. 2022b, "Towards Opening the Black Box of Neural Machine Translation:
// Source and Target Contributions to the Model's Predictions"): how much of each target row's
// final representation comes from the source sentence and how much from the target prefix, the
// per-layer ALTI maps of an encoder–decoder's three attentions (measures/alti.cpp) chained:
//
//   encoder        R = C^enc_Le ⋯ C^enc_1                  [ns, ns]: the source tokens in each
//                                                          encoder output
//   decoder        M_0 = [0 | I]                           [nt, ns + nt]: each decoder input is
//                                                          its own token (columns: the ns source
//                                                          tokens, then the nt decoder inputs)
//     self, l      M' = C^self_l M_{l−1}                   the prefix mixed (residual inside)
//     cross, l     M_l,i = r_i M'_i + Σ_j C^×_ij [R_j | 0]   r_i: the residual's share of query
//                                                          i's result, C^× the source rows'
//                                                          shares of the rest (rows 1 − r_i)
//   source share   s_i = Σ_{j < ns} M_Ld,ij                the rest, 1 − s_i, is the prefix's
//
// The feed-forward sub-layers mix no tokens and are left out, as ALTI leaves them. Every row of
// M sums to 1 when the maps' rows do. In double.
#pragma once

#include <cstddef>
#include <vector>

namespace attnviz {

struct alti_plus_maps {
  std::size_t encoder_layers = 0, decoder_layers = 0, ns = 0, nt = 0;
  const float* encoder = nullptr;   // [Le, ns, ns], rows summing to 1
  const float* decoder = nullptr;   // [Ld, nt, nt], rows summing to 1 (causal)
  const float* cross = nullptr;     // [Ld, nt, ns], rows summing to 1 (the keys' part, scaled)
  const float* residual = nullptr;  // [Ld, nt]: r_i
};

// M_Ld: [nt, ns + nt] row-major.
std::vector<double> alti_plus(const alti_plus_maps& maps);
// s_i for each of the nt rows of M.
std::vector<double> source_shares(const std::vector<double>& m, std::size_t ns, std::size_t nt);

}  // namespace attnviz
