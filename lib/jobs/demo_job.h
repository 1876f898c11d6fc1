// `attn-viz demo`: the main job on the bundled samples.
//
//   samples/sentences.txt  one sentence per line ('#' comments)
//   samples/pairs.tsv      source<TAB>target per line
//   samples/glove.6B.50d.sample.txt
//
// Writes into out_dir: the first sentence under every registered score function (the
// comparison users ask for first), every other sentence with scaled_dot, and every pair as
// cross attention with scaled_dot and additive — each as PNG + JSON — plus the parameters
// the seeded variants used, and a compare grid of every score function on the first sentence.
// With samples/kjv-gpt (the trained model of samples/train_demo_model.py): its model view on a
// verse said twice, each head named by the head finder (PNG, JSON and the --html page to explore
// it), and the head view of the layer with the strongest induction head.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attnviz {

struct demo_config {
  std::string samples_dir;
  std::string out_dir;
  std::uint64_t seed = 0;
};

struct demo_report {
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

// `progress(done, total, label)` is called before each figure.
demo_report run_demo(
    const demo_config& config,
    const std::function<void(std::size_t, std::size_t, const std::string&)>& progress = {});

// Where the samples are when --samples is not given: $ATTNVIZ_SAMPLES, the source tree's
// samples/ (a build tree), then the installed share/attn-viz/samples.
std::string find_samples_dir();

// "The cat sat." -> "the-cat-sat" (ASCII letters and digits, at most 40 characters).
std::string slug(const std::string& text);

}  // namespace attnviz
