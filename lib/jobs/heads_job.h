// `attn-viz heads`: the head finder. Runs a model twice and ranks every layer's every head by the
// patterns the literature names (head_stats.h has the formulas):
//   previous-token  weight on the token just before the query      (score: previous)
//   first-token     weight on the first token, an attention sink    (score: first)
//   induction       on T random tokens said twice, weight on the token after the query's earlier
//                   occurrence (Olsson et al. 2022)                 (score: induction)
//   self            weight on the query's own token                 (score: self)
// The per-head statistics are measured on the text (--text / --ids) when one is given, else on
// the repeated random sequence itself (as Olsson et al. measure previous-token heads); induction
// always on the random sequence: ids uniform over the vocabulary from splitmix64(seed), nothing
// added (no BOS, no [CLS]).
// A head is named for its strongest pattern when that score is at least `threshold`
// (default 0.4); the others are "mixed".
//   --json FILE: {"attn-viz", "model", "tokens", "random": {"period", "seed", "ids"},
//                 "heads": [{"layer", "head", "pattern", "entropy_bits", "distance", "first",
//                            "previous", "self", "special", "induction"}, …],
//                 "ranking": {"previous-token": [[layer, head, score], …], …}}
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/head_stats.h"
#include "io/progress.h"
#include "jobs/job_outputs.h"
#include "model/forward.h"
#include "model/hf_config.h"

namespace attnviz {

enum class head_pattern { previous_token, first_token, induction, self, mixed };
inline constexpr std::array<head_pattern, 4> ranked_patterns{
    head_pattern::previous_token, head_pattern::first_token, head_pattern::induction,
    head_pattern::self};
std::string_view pattern_name(head_pattern p);

struct heads_job_config {
  std::string model_dir;
  std::string text;               // the statistics' text, through the model's tokenizer
  std::vector<std::int64_t> ids;  // or its ids as given
  std::size_t period = 0;         // T: the random sequence has 2T tokens (0: 50, or half the
                                  // model's positions when it has fewer than 100)
  std::uint64_t seed = 0;
  double threshold = 0.4;
  // Encoder–decoder models: the self-attention stack searched, "encoder" or "decoder" (the
  // decoder reads the sequence after its start token, teacher-forced; the source is the same
  // sequence); empty: the decoder's
  std::string stack;
  job_outputs out;  // json
  progress_style progress = progress_style::automatic;
};

struct head_finding {
  std::size_t layer = 0, head = 0;
  head_stats stats;  // on the text, or the random sequence
  double induction = 0.0;
  head_pattern pattern = head_pattern::mixed;
  // the other patterns that also reach the threshold, strongest first (an induction head that
  // rests on the first token when the current token has no earlier occurrence is both)
  std::vector<head_pattern> also;
  double score(head_pattern p) const;
};

struct heads_report {
  model_config config;
  std::string stack;                // an encoder–decoder's stack searched (else empty)
  std::vector<std::string> tokens;  // the statistics' tokens
  bool on_text = false;             // measured on the text (else the random sequence)
  std::size_t period = 0;           // T, as used
  std::vector<std::int64_t> random_ids;
  std::vector<head_finding> heads;  // layer by layer, head by head
  std::vector<std::string> written;
  std::vector<std::string> warnings;
  // The heads in decreasing order of the pattern's score (ties: lower layer, then head first).
  std::vector<const head_finding*> ranked(head_pattern p) const;
};

heads_report run_heads_job(const heads_job_config& config);

// The pieces, for other jobs (the model view's captions):
// T as used: `requested`, or 0 for 50 or half the model's positions (errors for a model too
// short, naming `model_dir`, or a T too long for it).
std::size_t finder_period(const model_config& c, std::size_t requested,
                          const std::string& model_dir);
// Every head's finding: induction from `random` (the forward over repeated_random_ids), the
// statistics `measured` ([layers · heads], measure_heads or a map_keeper's), named at
// `threshold`.
std::vector<head_finding> find_heads(const model_forward& random, std::size_t period,
                                     const std::vector<head_stats>& measured, double threshold);
// The keys the statistics mark: the special tokens ([CLS], <s>, <|endoftext|>, …).
std::vector<bool> special_tokens(const std::vector<std::string>& tokens);
// Every head's statistics over `ids` (with their `tokens`), row by row as the forward makes
// them, without keeping a map (jobs/map_keeper.h): any length the model's positions allow.
std::vector<head_stats> measure_model_heads(const hf_model& m, const std::vector<std::int64_t>& ids,
                                            const std::vector<std::string>& tokens,
                                            progress_style progress);
// A thumbnail's caption: "previous 0.93", "first 0.88", "induction 0.71", "self 0.60", then a
// line ('\n') for each pattern of `also` ("induction 0.83\nfirst 0.44"); empty for a mixed head.
std::string finding_caption(const head_finding& f);

// T random ids in [0, vocab), said twice.
std::vector<std::int64_t> repeated_random_ids(std::size_t period, std::size_t vocab,
                                              std::uint64_t seed);

}  // namespace attnviz
