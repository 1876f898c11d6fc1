// libFuzzer target: weights files bound to every variant. The bytes are read as safetensors and
// handed to the pipeline for every registered score function, with and without projections,
// on a fixed 3-token input of size 4.
// Allowed outcome: a result, or an input_error / usage_error naming what is wrong. Checked:
// weights are finite, in [0, 1], and every row sums to 1.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "attention/pipeline.h"
#include "attention/registry.h"
#include "error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnviz;
  safetensors_file file;
  try {
    file = parse_safetensors(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const input_error&) {
    return 0;
  }
  attention_input in;
  in.query_tokens = in.key_tokens = {"a", "b", "c"};
  in.queries = in.keys = in.values =
      matrix(3, 4, {0.5f, -1, 0.25f, 2, 1, 0, -0.5f, 0.75f, -2, 1.5f, 0, 1});
  for (const auto& entry : score_registry())
    for (bool project : {false, true}) {
      attention_spec spec;
      spec.score = std::string(entry.info.name);
      spec.project = project;
      param_store params = param_store::from_tensors(file, "fuzz.safetensors");
      try {
        const auto r = run_attention(in, spec, params);
        const matrix& a = r.heads.at(0).weights;
        for (std::size_t i = 0; i < a.rows(); ++i) {
          double sum = 0;
          for (std::size_t j = 0; j < a.cols(); ++j) {
            const float w = a(i, j);
            if (!(w >= 0.0f && w <= 1.0f)) std::abort();
            sum += w;
          }
          if (std::fabs(sum - 1.0) > 1e-5) std::abort();
        }
      } catch (const input_error&) {
      } catch (const usage_error&) {
      }
    }
  return 0;
}
