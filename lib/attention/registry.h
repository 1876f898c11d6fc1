// The one registry of attention variants: every stage function with its name, aliases,
// formula, parameters and paper. `list`, `run`, `demo`, the tests and (later) `compare`,
// `explain` and the benchmarks all read these tables; there is no second list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attention/align.h"
#include "attention/context.h"
#include "attention/positional.h"
#include "attention/score.h"

namespace attnviz {

enum class stage { score, align, context };

struct variant_info {
  std::string_view name;                  // canonical, snake_case
  std::vector<std::string_view> aliases;  // also accepted on the command line
  std::string_view summary;               // one line
  std::string_view formula;               // plain-text formula
  std::string_view parameters;            // weights-file names and shapes, or "none"
  std::string_view paper;                 // citation
  std::string_view contrast;              // how it differs from its neighbours (explain)
};

// A score the fused kernel (kernels::attention_softmax: scores, softmax and soft context in one
// pass) computes itself: q·k scaled by 1, or by 1/sqrt(d_k).
enum class fused_score { none, dot, scaled_dot };

// What an entry declares beyond its function is read by everyone who needs it: the pipeline
// (the fused path), the JSON (which of the spec's settings the variant reports), streaming.
struct score_entry {
  variant_info info;
  score_fn fn;
  bool has_parameters;  // learned tensors under score.*
  bool row_local;       // row i depends on q_i and the keys only, not on i (streams in blocks)
  bool uses_sharpen = false;  // spec.sharpen (β), reported in the JSON's variant
  bool uses_d_a = false;      // spec.d_a, the hidden size (reported; 0 there means d_k)
  fused_score fused = fused_score::none;
};
struct align_entry {
  variant_info info;
  align_fn fn;
  bool uses_temperature;
  bool row_local;  // row i depends on e_i only, not on i (streams in blocks of rows)
  bool uses_window = false;  // spec.window (D), reported in the JSON's variant
  bool fused = false;        // the fused kernel's softmax
};
struct context_entry {
  variant_info info;
  context_fn fn;
  bool row_local;  // c_i depends on a_i and V only, not on i (streams in blocks of rows)
  bool uses_hard_mode = false;  // spec.hard (sample or argmax), reported in the JSON's variant
  bool fused = false;           // the fused kernel's soft context
};

// How order reaches the scores (--position).
struct position_entry {
  variant_info info;
  position_scheme scheme;
};
// Structures around the three stages: which sequences feed Q, K, V and how heads combine.
struct structure_entry {
  variant_info info;
  std::string_view usage;  // the command line that runs it
};

// Masks on the scores before alignment (attention/mask.h): what --mask and --pad-keys accept.
struct mask_entry {
  variant_info info;
  std::string_view usage;  // the flag as written, with its parameter
};

const std::vector<score_entry>& score_registry();
const std::vector<align_entry>& align_registry();
const std::vector<context_entry>& context_registry();
const std::vector<position_entry>& position_registry();
const std::vector<structure_entry>& structure_registry();
const std::vector<mask_entry>& mask_registry();

// Look-up by name or alias; case-insensitive, '-' and '_' are the same.
// An unknown name is a usage_error listing the registered names and the nearest one.
const score_entry& find_score(std::string_view name);
const align_entry& find_align(std::string_view name);
const context_entry& find_context(std::string_view name);
const position_entry& find_position(std::string_view name);

std::string_view stage_name(stage s);

}  // namespace attnviz
