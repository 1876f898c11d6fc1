// What the user asked to see, turned into heatmap specs: which matrix (weights or scores),
// which colormap, annotations, cell size. Shared by run, compare and demo.
#pragma once

#include <string>

#include "attention/pipeline.h"
#include "render/heatmap.h"

namespace attnviz {

enum class shown_matrix { weights, scores };

struct view_options {
  shown_matrix show = shown_matrix::weights;
  std::string cmap;  // empty: viridis for weights, rdbu (diverging, centred on 0) for scores
  annotate_mode annotate = annotate_mode::automatic;
  int cell = 0;  // 0: automatic
};

// Parses "weights" / "scores" and "auto" / "on" / "off" (usage_error otherwise).
shown_matrix parse_shown_matrix(std::string_view s);
annotate_mode parse_annotate_mode(std::string_view s);
std::string_view shown_matrix_name(shown_matrix m);

// "self-attention · score: dot · align: softmax · context: soft"
std::string variant_title(const attention_result& r);
// "score: dot · align: softmax · context: soft" without the structure (grid panels)
std::string variant_short_title(const attention_result& r);

// The heatmap of head `head` of r as the options ask; the matrix pointer refers into r.
heatmap_spec make_heatmap(const attention_result& r, std::size_t head, const view_options& o);

}  // namespace attnviz
