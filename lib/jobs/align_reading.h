// Which decoder layers and heads `attn-viz align` averages for one model:
//
//   1. --layers / --heads when given (both models of a pair read the same ones);
//   2. else the model folder's alignment.json, {"layers": "1", "heads": "0", "why": "..."}
//      (samples/translation/train_translation_model.py writes it for the cross-attention head
//      it trained towards word links, Garg et al. 2019); either key may be left out (= all);
//   3. else every layer and head.
//
// When it stands for the layers and heads, the same file may name how the map is read if align
// is given none of --extract, --threshold and --symmetrize: "extract" (argmax, argmax-null or
// threshold, with "threshold") for the model alone, and "with_reverse": {"extract": …, "threshold":
// …, "symmetrize": …} for the model read with --reverse-model (evaluate_translation.py writes the
// bundled models' readings, each the one that scored best on the dev verses).
//
// A present but malformed alignment.json, or one naming a layer or head the model lacks, is an
// input_error naming the file.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "model/hf_model.h"

namespace attnviz {

// How a map is read into links (align's --extract): each row's best, each row's best with rows
// whose best is the end token left out, or every pair above a threshold.
enum class align_extract { argmax, argmax_null, threshold };
inline constexpr std::array<const char*, 3> align_extract_names{"argmax", "argmax-null",
                                                                "threshold"};
inline const char* name_of(align_extract e) {
  return align_extract_names[static_cast<int>(e)];
}
std::optional<align_extract> align_extract_named(std::string_view name);

// How a map is read into links: align's --extract, --threshold and --symmetrize.
struct saved_extract {
  align_extract extract = align_extract::argmax;
  double threshold = 0.0;  // with threshold
  std::string symmetrize;  // with a reverse model and argmax(-null); empty: align's default
};

struct align_reading {
  std::string layers, heads;  // parse_index_list text; empty: all
  std::string from;           // "--layers/--heads", the alignment.json path, or "all"
  std::optional<saved_extract> alone, with_reverse;  // alignment.json's readings, if it names any
};

align_reading align_reading_of(const hf_model& m, const std::string& model_dir,
                               const std::string& layers, const std::string& heads);

// The folder's alignment.json alone (from "all" when there is none), its indices not checked
// against a model: for a job that loads the model itself and checks them (the demo).
align_reading saved_align_reading(const std::string& model_dir);

// "decoder layer 1, head 0 (samples/x/alignment.json)" and the like, for the run's summary.
std::string describe(const align_reading& r);

}  // namespace attnviz
