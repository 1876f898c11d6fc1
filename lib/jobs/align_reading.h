// Which decoder layers and heads `attn-viz align` averages for one model:
//
//   1. --layers / --heads when given (both models of a pair read the same ones);
//   2. else the model folder's alignment.json, {"layers": "1", "heads": "0", "why": "..."}
//      (samples/translation/train_translation_model.py writes it for the cross-attention head
//      it trained towards word links, Garg et al. 2019); either key may be left out (= all);
//   3. else every layer and head.
//
// A present but malformed alignment.json, or one naming a layer or head the model lacks, is an
// input_error naming the file.
#pragma once

#include <string>

#include "model/hf_model.h"

namespace attnviz {

struct align_reading {
  std::string layers, heads;  // parse_index_list text; empty: all
  std::string from;           // "--layers/--heads", the alignment.json path, or "all"
};

align_reading align_reading_of(const hf_model& m, const std::string& model_dir,
                               const std::string& layers, const std::string& heads);

// The folder's alignment.json alone (from "all" when there is none), its indices not checked
// against a model: for a job that loads the model itself and checks them (the demo).
align_reading saved_align_reading(const std::string& model_dir);

// "decoder layer 1, head 0 (samples/x/alignment.json)" and the like, for the run's summary.
std::string describe(const align_reading& r);

}  // namespace attnviz
