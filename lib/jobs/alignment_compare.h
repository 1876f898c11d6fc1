// `attn-viz compare --model DIR --between heads --stack cross --gold FILE`: every cross-attention
// head of an encoder–decoder model ranked by how well its map, read as a word alignment (argmax
// per target word, or --align-method intersect; analysis/word_alignment.h), matches a gold
// alignment: AER, precision and recall per head, best first, and the layers' and all heads'
// means for comparison. Figure: AER as a layers × heads heatmap (low = aligns).
#pragma once

#include <string>
#include <vector>

#include "analysis/word_alignment.h"
#include "jobs/seq2seq_views.h"
#include "render/figure.h"

namespace attnviz {

struct head_alignment {
  std::string label;  // "L1 H3", "layer 1 (mean of its heads)", "all heads (mean)"
  std::size_t layer = 0, head = 0;
  bool single = true;  // one head (else a mean)
  alignment_counts counts;
};

struct alignment_ranking {
  std::vector<head_alignment> heads;  // every head, best (lowest AER) first
  std::vector<head_alignment> means;  // each layer's mean, then all heads'
  std::size_t layers = 0, per_layer = 0;
  std::string source;  // the model's name
};

alignment_ranking rank_heads_by_alignment(const seq2seq_maps& s, const gold_alignment& gold,
                                          align_method method);
std::string alignment_ranking_text(const alignment_ranking& r);
std::string alignment_ranking_json(const alignment_ranking& r, const std::string& generator);
figure alignment_ranking_figure(const alignment_ranking& r, const std::string& subtitle);

}  // namespace attnviz
