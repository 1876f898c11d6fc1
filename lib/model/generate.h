// Generation for causal models (GPT-2, the Llama family and every decoder-only family), keeping
// every layer's every head's map over the prompt and the generated tokens:
//
//   prefill   the prompt in one pass (run_model's blocks with a key/value cache per layer):
//             its n_p × n_p maps, its last row's logits
//   step t    the token chosen last fed at position n_p + t over the caches (O(n_p + t) a
//             step): one row of every map, n_p + t + 1 wide
//   end       after max_new tokens, at an end token (config.json's eos_token_id, one or a list),
//             or when on_token says stop; the last chosen token is fed too, so the maps and
//             the hidden state cover every token and equal run_model on prompt + generated
//             (tests/e2e/test_generate.py checks it)
//
// Choosing the next token from the logits z (model/forward.h's output_logits):
//   greedy    argmax z (the lowest id on ties), the config's banned ids never
//   sample    p = softmax(z / T) in double; with top_p < 1 only the most likely tokens whose
//             probability sums first reach top_p (ties by id), renormalised; one draw u in
//             [0, 1) from a 64-bit Mersenne Twister seeded with `seed` (u = the top 53 bits ×
//             2^-53, the same on every platform): the first token whose running sum passes u
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "io/progress.h"
#include "model/forward.h"
#include "model/hf_model.h"

namespace attnviz {

struct sampling {
  bool sample = false;
  double temperature = 1.0;  // > 0
  double top_p = 1.0;        // (0, 1]
  std::uint64_t seed = 0;
};

struct generation_request {
  std::size_t max_new = 0;  // at least 1
  sampling how;
  // Called with each chosen token (in order); returning true stops after it (--stop TEXT).
  std::function<bool(std::int64_t)> on_token;
};

struct generation {
  model_forward forward;             // n = prompt + generated rows, every map, the hidden state
  std::vector<std::int64_t> ids;     // prompt then generated
  std::size_t prompt = 0;            // how many of ids are the prompt
  bool ended = false;                // stopped at an end token
};

// usage_error for max_new 0 or a non-causal / encoder–decoder model; input_error for prompt ids
// outside the vocabulary or past the positions. Stops early where the positions end.
generation generate_causal(const hf_model& m, const std::vector<std::int64_t>& prompt,
                           const generation_request& request,
                           progress_style progress = progress_style::quiet);

// The next token from the logits, as above; rng is used only when sampling.
std::int64_t choose_token(std::vector<float> logits, const model_config& c, const sampling& how,
                          std::mt19937_64& rng);

}  // namespace attnviz
