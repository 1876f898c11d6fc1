#include "model/map_taps.h"

#include <stdexcept>

#include "model/linear.h"

namespace attnviz {

std::vector<float> output_projection(const attention_values& p) {
  std::vector<float> w(p.o->count());
  p.o->to_float(0, w.size(), w.data());
  if (!p.out_scale) return w;
  const std::vector<float> s = vector_of(*p.out_scale);
  const std::size_t d = s.size(), inner = w.size() / d;
  if (inner * d != w.size()) throw std::logic_error("output_projection: λ does not fit W_O");
  for (std::size_t i = 0; i < w.size(); ++i)  // out_in: [d, inner] rows; in_out: [inner, d]
    w[i] *= s[p.layout == linear_layout::out_in ? i / inner : i % d];
  return w;
}

}  // namespace attnviz
