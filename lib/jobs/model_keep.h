// Which attention maps a `model` run keeps in memory and which it writes as it goes
// (jobs/map_keeper.h), from what it was asked for, and the memory that takes:
//
//   --json, --html                  every map (they hold them all; so does a caller that asks
//                                   for keep_every_map); --name-heads measures the heads row by
//                                   row, keeping nothing
//   a figure, --term or view.npy    what the view reads: head → --layer × --head; model, mean,
//                                   max → --layers × --heads; rollout, flow → --layers × every
//                                   head; lines, overlay → --layer × --heads; received → none
//                                   (it reads the column sums, which are added as the rows come
//                                   only for it, received.npy, --json and --html)
//   --npy DIR                       attention.npy of --npy-layers × --npy-heads (default: all),
//                                   written to its file block by block, never kept
//
// Estimated memory (bytes), checked against --max-memory before any work:
//   kept maps   K · n² · 4
//   JSON        every map as text, about 16 bytes a weight
//   page        --html: its blobs and their text, about 4 bytes a weight (render/page_blobs.h)
//   figure      (n · cell + 400)² · 3 · 2 for a heatmap (as the other jobs count it)
//   forward     n · (6 d + 2 (H + 2 KV) d_h) · 4 + min(n, 4096) · 3 d_ff · 4: the residual
//               stream, its norm, the projections and the MLP's widest products at once (the MLP
//               runs 4,096 rows at a time: layer_ops.h), and the column sums
//               L · H · n · 4 (+ 8 a thread for the running layer)
// Past the limit: a usage_error naming what takes the memory and the flags that would fit.
#pragma once

#include <cstdint>

#include "jobs/map_keeper.h"
#include "jobs/model_job.h"

namespace attnviz {

// usage_error naming --npy-layers or --npy-heads for a list that does not parse or goes past
// the model's layers or heads.
keep_request plan_keeping(const model_config& m, const model_job_config& c, std::size_t n);

// The shape a measure (lib/measures/) works on over n tokens of the model: its sizes and the
// work of one layer's row (no arrays written, no layer to run again yet).
measure_shape model_measure_shape(const model_config& m, std::size_t n);
// The shape's layer_output: m's layers run again (model/forward.h), for value zeroing.
void set_layer_output(measure_shape& s, const hf_model& m);
// What measure `spec` shows for head `head` of layer `layer` of m over ids (n × n, row-major;
// the layer's map for a measure with one map a layer): one forward, keeping no other map.
std::vector<float> measure_map_of(const hf_model& m, const std::vector<std::int64_t>& ids,
                                  const measure_spec& spec, std::size_t layer, std::size_t head);
// The shape a measure works on in this run: its arrays go where attention.npy goes.
measure_shape measure_shape_of(const model_config& m, const model_job_config& c,
                               const keep_request& r);

std::uint64_t model_run_bytes(const model_config& m, const model_job_config& c,
                              const keep_request& r);
void check_model_memory(const model_config& m, const model_job_config& c, const keep_request& r);
// attention.npy's size (and the measure's arrays', `measure_bytes`) against the space its
// folder has left (usage_error naming --npy-layers and --npy-heads, which choose fewer maps),
// and the saved inputs' against the scratch folder's (naming --layers).
void check_model_disk(const keep_request& r, std::uint64_t measure_bytes = 0);

}  // namespace attnviz
