// One n × n map from a whole model's maps ([layers, heads, n, n], row i = query i):
//
//   mean / max    element-wise over the chosen layers × heads
//   rollout       Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers": per layer
//                 Â_l = ½ Ā_l + ½ I (Ā_l the mean over the layer's heads; the identity stands for
//                 the residual connection; maps that count the residual already, a measure's
//                 such as contrib, are chained as Â_l = Ā_l: model_maps::residual 0), rows
//                 renormalised; R = Â_last ⋯ Â_first over the
//                 chosen layers in order. R[i, j]: the share of output position i that traces
//                 back to input token j; rows sum to 1.
//                 Head fusion and discarding (vit-explain's options for vision transformers):
//                 Ā_l may fuse the heads by their element-wise max or min instead of the mean,
//                 and before the identity is added, the ⌊n² · discard⌋ smallest entries of Ā_l
//                 (by value, then position; never entry (0, 0), the CLS query's own) set to 0.
//                 Rows are then renormalised by their own sums (vit-explain divides by a
//                 broadcast row sum, which only equals this when rows already sum to 1).
//   flow          the same paper's attention flow: analysis/attention_flow.h
//
// mean, max and rollout run in float, parallel (rollout's products through kernels::gemm: 2n³
// flops a layer); their plain references (_ref: serial, double) are what the tests compare
// them with (1e-6 for mean and max, 1e-5 for rollout).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "tensor.h"

namespace attnviz {

// A model's maps: contiguous [layers, heads, n, n] at `data`, or, when a run kept only some
// (a long text: model_job's map_keeper), one pointer per map in `kept` (index l·heads + h, null
// where the map was not kept). Reading a map that was not kept is a logic_error: the jobs keep
// what their views read (view_needs).
enum class head_fusion { mean, max, min };

struct model_maps {
  const float* data = nullptr;
  std::size_t layers = 0, heads = 0, n = 0;
  std::vector<const float*> kept;
  // The weight of the identity in Â_l: ½ for attention weights (the residual connection), 0 for
  // maps that count the residual already
  double residual = 0.5;
  head_fusion fusion = head_fusion::mean;  // how Ā_l joins the heads (rollout, flow)
  double discard = 0.0;                    // the share of Ā_l's smallest entries set to 0
  const float* map(std::size_t l, std::size_t h) const;
  bool has(std::size_t l, std::size_t h) const { return data || kept[l * heads + h]; }
};

enum class map_reduce { mean, max };
matrix reduce_maps(const model_maps& m, const std::vector<std::size_t>& layers,
                   const std::vector<std::size_t>& heads, map_reduce how);
matrix reduce_maps_ref(const model_maps& m, const std::vector<std::size_t>& layers,
                       const std::vector<std::size_t>& heads, map_reduce how);

matrix attention_rollout(const model_maps& m, const std::vector<std::size_t>& layers);
matrix attention_rollout_ref(const model_maps& m, const std::vector<std::size_t>& layers);

// The rollout's column sums u_j = Σ_i R[i, j] without R: v = 1ᵀ, then v ← v Â_l from the last
// chosen layer down (serial, double; what jobs/received_rollout.h computes without the maps).
std::vector<double> rollout_column_sums(const model_maps& m,
                                        const std::vector<std::size_t>& layers);

// Â_l = (1 − r) Ā_l + r I (r = m.residual; Ā_l the heads fused and discarded as above), rows
// renormalised (a row summing to 0
// becomes the identity's), in double, n × n: what rollout and flow (attention_flow.h) read.
std::vector<double> residual_map(const model_maps& m, std::size_t l);

}  // namespace attnviz
