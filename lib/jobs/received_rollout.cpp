#include "jobs/received_rollout.h"

#include <atomic>
#include <stdexcept>

#include "analysis/column_sums.h"
#include "model/forward.h"
#include "model/map_taps.h"

namespace attnviz {

namespace {

// One layer's step v ← ½ v + ½ mean_h (v A_h), its rows weighted as the kernel sends them.
class rollout_taps final : public map_taps {
 public:
  rollout_taps(std::size_t heads, std::size_t n, bool causal)
      : heads_(heads), v_(n, 1.0), sums_(heads, n, causal) {}
  float* map_of(std::size_t, std::size_t) override { return nullptr; }
  void rows(std::size_t, std::size_t head, std::size_t i0, std::size_t rows, const float* weights,
            std::size_t) noexcept override {
    if (!sums_.add(head, i0, rows, weights, v_.data())) stray_thread_ = true;
  }
  void layer_done(std::size_t) override {
    if (stray_thread_)
      throw std::logic_error("rollout_taps: rows from a thread it has no sums for");
    const std::vector<double> sums = sums_.take();
    const std::size_t n = v_.size();
    for (std::size_t j = 0; j < n; ++j) {
      double mean = 0.0;
      for (std::size_t h = 0; h < heads_; ++h) mean += sums[h * n + j];
      v_[j] = 0.5 * v_[j] + 0.5 * mean / static_cast<double>(heads_);
    }
  }
  const std::vector<double>& v() const noexcept { return v_; }

 private:
  std::size_t heads_;
  std::vector<double> v_;
  fixed_column_sums sums_;
  std::atomic<bool> stray_thread_{false};
};

}  // namespace

std::vector<float> rolled_out_received(const hf_model& m, const layer_inputs& inputs,
                                       const std::vector<std::size_t>& layers,
                                       progress_style style) {
  rollout_taps taps(m.config.heads, inputs.rows(), m.config.causal);
  progress bar("rolling out", "layers", layers.size(), style);
  stage_list times;
  for (std::size_t k = layers.size(); k-- > 0;) {
    rerun_layer(m, layers[k], inputs.load(layers[k]), taps, times);
    bar.update(layers.size() - k);
  }
  bar.finish();
  return std::vector<float>(taps.v().begin(), taps.v().end());
}

}  // namespace attnviz
