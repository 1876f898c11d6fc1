// `attn-viz compare --model DIR` / `--weights FILE`: how alike a model's heads are, or its layers,
// with compare's metrics (analysis/compare_metrics.h) between every pair:
//   heads    the heads of one layer (--layer), each head's map
//   layers   the layers, each one's mean over its heads
// Causal maps are compared over each row's visible keys (j <= i), row 0 left out.
// Outputs: the text (per map entropy and max weight; three matrices: JS divergence, top-1
// agreement, Spearman; the most alike and most different pairs), --json, and --png/--svg: the
// JS divergence matrix as a heatmap (0 on the diagonal; low = alike), values written in.
//
// JSON: {"attn-viz", "between": "heads" | "layers", "layer": L | null, "source", "labels",
//        "entropy_bits": [...], "max_weight": [...], "js_divergence_bits": [[...]],
//        "top_key_agreement": [[...]], "spearman": [[... | null]], "causal"}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/compare_metrics.h"
#include "analysis/word_alignment.h"
#include "jobs/alignment_compare.h"
#include "enum_names.h"
#include "io/progress.h"
#include "jobs/job_outputs.h"
#include "jobs/maps_views.h"
#include "render/figure.h"

namespace attnviz {

enum class compare_between { heads, layers };
inline constexpr named<compare_between> compare_between_names[] = {
    {"heads", compare_between::heads}, {"layers", compare_between::layers}};

struct maps_comparison {
  compare_between between = compare_between::heads;
  std::size_t layer = 0;  // heads: the layer compared
  bool causal = false;
  std::string source;     // the model's or file's name
  std::vector<std::string> labels;  // "H0" … or "L0" …
  comparison metrics;
  // pair metrics as full matrices (diagonal: 0 JS, 1 agreement, 1 Spearman)
  matrix js, agreement, spearman;  // spearman NaN where undefined
};

// usage_error naming "layer" when it is not in the model.
maps_comparison compare_maps(const maps_source& s, compare_between between, std::size_t layer);

std::string maps_comparison_text(const maps_comparison& c);
std::string maps_comparison_json(const maps_comparison& c, const std::string& generator);
figure maps_comparison_figure(const maps_comparison& c, const std::string& subtitle);

// The job: the maps of a model run (model_dir with text or ids, as attn-viz model; for an
// encoder–decoder one stack of it) or of a file (weights, key, as attn-viz draw), compared,
// written to out (json, png, svg).
struct maps_compare_config {
  std::string model_dir, text;
  std::vector<std::int64_t> ids;
  // Encoder–decoder models: the target (teacher forcing; else generated), the stack compared
  // (encoder or decoder: these metrics; cross: ranked by AER against gold_path,
  // jobs/alignment_compare.h)
  std::string target_text;
  std::vector<std::int64_t> target_ids;
  std::string stack;  // empty: encoder, or cross when a gold file is given
  std::string gold_path;
  align_method method = align_method::argmax;
  std::string weights, key;
  compare_between between = compare_between::heads;
  std::size_t layer = 0;
  job_outputs out;
  progress_style progress = progress_style::automatic;
};
struct maps_compare_report {
  maps_comparison comparison;
  bool by_alignment = false;  // the cross stack ranked against a gold alignment
  alignment_ranking ranking;
  std::string text;
  std::vector<std::string> written, warnings;
};
maps_compare_report run_maps_compare_job(const maps_compare_config& config);

}  // namespace attnviz
