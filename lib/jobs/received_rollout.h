// The rolled-out received view's numbers (`model --view received-rollout`): how much each input
// token feeds the whole model's output, u_j = Σ_i R[i, j], R = Â_last ⋯ Â_first the attention
// rollout through the chosen layers (analysis/layer_maps.h; Â_l = ½ mean_h A_l,h + ½ I).
//
// The column sums of R are 1ᵀR = ((1ᵀ Â_last) Â_…) ⋯ Â_first: a row vector pushed from the last
// layer down, v ← v Â_l = ½ v + ½ mean_h (v A_l,h), each step a weighted column sum of the
// layer's maps (Σ_i v_i a_ij): no map is kept, and R (n × n, n³ a layer to build) never is. The
// forward runs bottom up, so the forward's taps keep each chosen layer's input (layer_inputs,
// a scratch file), then each chosen layer runs again (model/forward.h rerun_layer) from the last
// to the first, its rows weighted by v as the kernel makes them, in fixed point
// (analysis/column_sums.h): the same bytes on every thread count. Cost: a second forward
// through the chosen layers; memory: the forward's, plus L · n · d · 4 bytes on disk.
// rollout_column_sums (layer_maps.h) is the same vector from maps in memory.
#pragma once

#include <memory>
#include <vector>

#include "io/progress.h"
#include "jobs/layer_inputs.h"
#include "model/hf_model.h"

namespace attnviz {

// u ([n]) through `layers` (in order, as the forward ran them), from their saved inputs.
std::vector<float> rolled_out_received(const hf_model& m, const layer_inputs& inputs,
                                       const std::vector<std::size_t>& layers,
                                       progress_style style);

}  // namespace attnviz
