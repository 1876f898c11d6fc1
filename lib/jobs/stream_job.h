// `attn-viz run` on long inputs: the streaming path. Blocks of query rows go through all three
// stages and their weights are pooled straight into the image (analysis/pooled_map.h), so
// memory is O((n_q + n_k)·d + heads·pixels²), never O(n_q·n_k). Each softmax row still sees
// every key: the pooled picture is the pooled exact map.
//
// Outputs: the PNG / SVG of the pooled map (pooled_view.h), a JSON with the pooled maps and the
// bins (pooled_to_json), the parameters file. No terminal table and no scores view: the raw
// maps are never kept.
#pragma once

#include <cstdint>

#include "jobs/inputs.h"
#include "jobs/memory_guard.h"

namespace attnviz {

struct run_config;
struct run_report;

// Automatic streaming starts past this many query × key cells (4096²: a full map would be
// 64 MiB per head and a one-pixel-per-cell picture wider than any screen).
inline constexpr std::uint64_t auto_stream_cells = 4096ull * 4096ull;

// Bytes the streaming run needs (projections, contexts, the pooled maps, one block per thread,
// the image and the JSON when asked).
std::uint64_t estimate_stream_bytes(const run_size& size, std::size_t d_model, std::size_t bins_q,
                                    std::size_t bins_k);

run_report run_streamed(const run_config& config, const prepared_input& input);

}  // namespace attnviz
