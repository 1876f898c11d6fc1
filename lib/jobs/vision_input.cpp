#include "jobs/vision_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "error.h"

namespace attnviz {

vision_input read_vision_input(const model_config& c, const std::string& model_dir,
                               const std::string& path) {
  vision_input in;
  in.path = path;
  in.processor = read_image_processor(model_dir, c.vision.image_size);
  in.pixels = preprocess(in.processor, read_image(path), &in.seen);
  in.grid = grid_of(c, in.pixels, path);
  in.tokens = vision_token_names(c, in.grid);
  return in;
}

model_prediction vision_prediction(const hf_model& m, const matrix& hidden, std::size_t k) {
  const std::vector<float> z = image_logits(m, hidden);
  if (z.empty())
    throw usage_error(
        fmt::format("{} has no classifier (a {} model without its image "
                    "classification head): {} has no classes to show",
                    m.dir, m.config.model_type, param("top-k")));
  double most = -INFINITY, sum = 0.0;
  for (const float v : z) most = std::max<double>(most, v);
  for (const float v : z) sum += std::exp(v - most);
  std::vector<std::size_t> order(z.size());
  std::iota(order.begin(), order.end(), 0);
  const std::size_t top = std::min(k, z.size());
  std::partial_sort(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
      [&](std::size_t a, std::size_t b) { return z[a] != z[b] ? z[a] > z[b] : a < b; });
  model_prediction p;
  p.position = 0;
  for (std::size_t i = 0; i < top; ++i) {
    p.top.emplace_back(static_cast<std::int64_t>(order[i]), std::exp(z[order[i]] - most) / sum);
    p.top_tokens.push_back(m.config.vision.labels.at(order[i]));
  }
  return p;
}

std::vector<float> cls_maps(const std::vector<float>& first_rows, std::size_t layers,
                            std::size_t heads, const model_config& c, const patch_grid& g) {
  const std::size_t first = c.vision.prefix + c.vision.registers, patches = g.rows * g.cols;
  const std::size_t n = first + patches;
  if (first_rows.size() != layers * heads * n)
    throw std::logic_error("cls_maps: the first rows are not [layers, heads, n]");
  std::vector<float> out(layers * heads * patches);
  for (std::size_t m = 0; m < layers * heads; ++m)
    std::copy_n(first_rows.data() + m * n + first, patches, out.data() + m * patches);
  return out;
}

}  // namespace attnviz
