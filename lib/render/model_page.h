// --html for a whole model (attn-viz model, draw): one self-contained page to explore every
// layer's every head, for a browser with no network (render/html_parts.h).
//
//   ┌ title, subtitle ───────────────────────────────────────────────────────────┐
//   │ Layer [▾ L0 … | aggregates]  Head [▾ H0 … | mean]  Draw [▾ map | lines]  Colours [▾] │
//   │ ┌ model view ─────────────┐   ┌ the chosen head's map ─────────────────┐     │
//   │ │ L0 ▣ ▣ ▣ ▣  (thumbnails)│   │ key labels (rotated, thinned past 40)   │     │
//   │ │ L1 ▣ ▣ ▣ ▣  click: open │   │ cells; hover: query → key, a_ij, the row│     │
//   │ └─────────────────────────┘   └────────────────────── (scrolls) ────────┘     │
//   └──────────────────────────────────────────────────────────────────────────────┘
//
// The grid is the PNG model view's (rows = layers, columns = heads, each thumbnail the mean of
// the cells it covers, the causal triangle grey, one colour range leaving out a causal map's row
// 0, rounded as the heatmaps round it); hovering a thumbnail names the head (and what the head
// finder sees, with captions), clicking it opens its map. The map is the chosen head's (or the
// layer's mean over heads); hovering a cell shows the query and key tokens, a_ij and the row's
// five largest weights. Every 2nd, 3rd … label is drawn when cells are too small for all.
// "lines" draws the head view instead (bertviz's picture: the tokens in two columns, a line from
// query i to key j for every a_ij >= 0.01, opacity a_ij, in the head's Tableau colour); hovering
// a query keeps only its lines. The aggregates (the mean over every layer and head, rollout)
// are chosen in the layer selector and drawn like a map.
//
// An encoder–decoder model's page holds its three stacks (encoder self-attention, decoder
// self-attention, cross attention) behind a Stack selector; a run with --measure holds the
// weights and the measure's maps as two stacks behind a Measure selector; a cross map is
// rectangular: target tokens as rows (queries), source tokens as columns (keys), its head view the
// target on the left and the source on the right.
//
// The data, in <script type="application/json" id="attnviz-data">:
//   {"title", "subtitle", "colormap": [256 colours],
//    "start": {"layer", "head", "scale": "shared" | "panel"[, "stack"]},
//    the stack's fields, or with several stacks "stacks": [{"name", the stack's fields}]}
// a stack's fields:
//   "tokens" (rows), "key_tokens" and "n_keys" (only when the keys differ), "layers", "heads",
//   "n", "causal", "prompt" (only after `model --generate`: the prompt's tokens, ruled off in
//   the map), "vmax": the shared range's top, "map_vmax": [per map, layer-major],
//   "captions": [...] | [],
//   "scale": {"mapping": "linear" | "log" | "power", "gamma", "vmin" | null, "vmax" | null,
//             "low": the range's low end} (only with --scale log|power, --vmin or --vmax),
//   "maps": [per map, layer-major: the id of its blob, n·n_keys weights row-major],
//   "thumb_size": t, "thumbs": the id of a blob of every map's t × t thumbnail (each pixel the
//   mean of the cells it covers, model_view.h), "aggregates": [{"label", "map": its blob's id}]
// and at the top "encoding": "f32" (exact) or "u16" (pages past 4 M weights: 16-bit fixed
// point, |error| ≤ 7.6e-6), how every blob holds its values (render/page_blobs.h: byte planes,
// a zlib stream, base64, in <script type="application/octet-stream" id="…"> elements), decoded
// by the page's own inflate when first drawn (about 64 M weights kept decoded).
// window.attnviz: {data, state(), select(layer, head), stack(k), thumbCenter(l, h),
// cellCenter(i, j), labelStep(), reveal(i, j), lines()} for tests and scripting (lines(): the
// [head, i, j] triples the head view drew; stack(k): open stack k, keeping the layer and head
// where they exist).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "render/colormap.h"
#include "render/colour_scale.h"

namespace attnviz {

// One stack of maps [layers, heads, n, n_keys] (row = query).
struct page_stack {
  std::string name;             // in the Stack selector ("encoder"); unused on a one-stack page
  const float* maps = nullptr;
  std::size_t layers = 0, heads = 0, n = 0;
  std::size_t n_keys = 0;                       // 0: n (square)
  std::vector<std::string> tokens, key_tokens;  // n; n_keys (empty: tokens)
  bool causal = false;
  std::size_t prompt = 0;             // a generation's prompt tokens (a rule after them), or 0
  std::vector<std::string> captions;  // layers × heads, or empty
  // maps over the whole stack shown beside the layers (the mean of every head, rollout): label,
  // n × n_keys weights
  std::vector<std::pair<std::string, std::vector<float>>> aggregates;

  std::size_t keys() const { return n_keys ? n_keys : n; }
};

struct model_page_spec {
  std::vector<page_stack> stacks;  // one, or an encoder–decoder's three
  std::size_t stack = 0;           // the stack open at first
  std::string stack_label = "Stack";  // the stacks' selector: an encoder–decoder's three, or
                                      // one run's measures ("Measure": weights, contrib, …)
  std::string title, subtitle;
  const colormap* cmap = nullptr;     // default: viridis
  std::size_t layer = 0, head = 0;    // the map open at first
  bool panel_scale = false;           // each map its own colour range at first
  colour_scale colours;               // --scale log|power, --vmin, --vmax (as the figures)
};

// The weights a model page holds at most (layers · heads · n · n_keys over its stacks): a
// 12-layer, 12-head model at 1,024 tokens (151 M) or 16 × 32 heads at 512 (134 M) — about
// 100 MB of page (render/page_blobs.h), open in a browser in a few seconds; past it, --html is a
// usage_error suggesting --png, --npy or fewer tokens.
inline constexpr std::size_t model_page_max_weights = 160'000'000;
std::size_t page_weights(const std::vector<page_stack>& stacks);
void check_model_page_size(std::size_t layers, std::size_t heads, std::size_t n);
void check_model_page_size(const std::vector<page_stack>& stacks);

std::string model_page(const model_page_spec& spec);

}  // namespace attnviz
