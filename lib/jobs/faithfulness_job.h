// `attn-viz faithfulness`: how far each measure's map can be trusted to say which tokens a
// model's prediction rests on (analysis/faithfulness.h: comprehensiveness, sufficiency and
// their areas, DeYoung et al. 2020). For each text:
//
//   the prediction    the model's most likely token ŷ at the prediction row (a causal model's
//                     last token: the next token; a masked LM's first [MASK]), p(ŷ)
//   each ranking      a measure's rollout through every layer (analysis/layer_maps.h; the
//                     weights with ½ I for the residual, contrib, alti and value zeroing as
//                     they are), row of the prediction: the erasable tokens by their share;
//                     and `random` orders drawn from the seed, their curves averaged
//   erasing           the tokens dropped from the input (positions close up), or replaced by
//                     one token id; special tokens ([CLS], <s>, …) and a masked LM's row
//                     itself are never erased, nor a causal model's last token with
//                     keep_last (the token the prediction follows: erasing it changes the
//                     question more than any context does)
//
// Results: each measure's curves k = 1 … K averaged over the texts, their AOPC, beside the
// random orders'. A text with no more than K erasable tokens is refused, naming it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/faithfulness.h"
#include "io/progress.h"
#include "jobs/job_outputs.h"
#include "measures/measure.h"
#include "model/hf_config.h"

namespace attnviz {

struct faithfulness_job_config {
  std::string model_dir;
  std::string text;   // through the model's tokenizer, or
  std::string input;  // a file of texts, one a line (blank lines skipped; errors name the
                      // line), each its own prediction
  std::vector<const measure_spec*> measures;  // empty: every measure
  std::size_t k = 10;                         // K: erased tokens 1 … K
  std::size_t random = 10;                    // random orders a text
  std::uint64_t seed = 0;
  std::int64_t replace_id = -1;  // the id erased tokens become; −1: dropped
  bool keep_last = false;        // a causal model's prediction row is never erased
  job_outputs out;               // json, png, svg, pdf
  progress_style progress = progress_style::automatic;
};

struct faithfulness_text {
  std::vector<std::string> tokens;
  std::vector<std::int64_t> ids;
  std::size_t position = 0;  // the prediction's row
  std::int64_t predicted = 0;
  std::string predicted_token;
  double probability = 0.0;                        // p(ŷ) on the whole text
  std::vector<bool> erasable;                      // [n]
  std::vector<std::vector<std::size_t>> rankings;  // per measure: the erasable tokens, first
                                                   // the most important
  std::vector<erasure_curves> curves;              // per measure
  erasure_curves random;                           // the random orders', averaged
};

struct faithfulness_report {
  model_config config;
  std::string folder;
  std::vector<std::string> measures;  // as ranked, in the table's order
  std::size_t k = 0, random = 0;
  std::uint64_t seed = 0;
  std::string erase;  // "drop", or "replace by id N (token)"
  bool keep_last = false;
  std::vector<faithfulness_text> texts;
  std::vector<erasure_curves> summary;  // per measure, averaged over the texts
  erasure_curves random_summary;
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

faithfulness_report run_faithfulness_job(const faithfulness_job_config& config);

}  // namespace attnviz
