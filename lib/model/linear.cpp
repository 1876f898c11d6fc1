#include "model/linear.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "kernels/kernels.h"

namespace attnviz {

const float* weight_converter::floats(const weight_view& w) {
  if (w.dtype == weight_dtype::f32 && reinterpret_cast<std::uintptr_t>(w.data) % alignof(float) == 0)
    return reinterpret_cast<const float*>(w.data);
  buffer_.resize(w.count());
  w.to_float(0, buffer_.size(), buffer_.data());
  return buffer_.data();
}

matrix linear(const matrix& x, const weight_view& w, linear_layout layout, const weight_view* bias,
              weight_converter& conv) {
  if (w.shape.size() != 2) throw std::logic_error("linear: the weights are not a matrix");
  const auto rows = static_cast<std::size_t>(w.shape[0]), cols = static_cast<std::size_t>(w.shape[1]);
  const bool out_in = layout == linear_layout::out_in;
  const std::size_t in = out_in ? cols : rows, out = out_in ? rows : cols;
  if (x.cols() != in) throw std::logic_error("linear: input size differs from the weights'");
  matrix y = matrix::uninitialized(x.rows(), out);
  if (w.dtype == weight_dtype::f32)
    kernels::gemm(x.rows(), out, in, 1.0f, x.data(), in, conv.floats(w), cols, out_in, 0.0f,
                  y.data(), out);
  else
    kernels::gemm(x.rows(), out, in, 1.0f, x.data(), in, w.data,
                  w.dtype == weight_dtype::f16 ? kernels::element_type::f16
                                               : kernels::element_type::bf16,
                  cols, out_in, 0.0f, y.data(), out);
  if (bias) {
    const std::vector<float> b = vector_of(*bias);
    if (b.size() != out) throw std::logic_error("linear: bias size differs from the output");
    kernels::add_bias_rows(y.data(), y.rows(), out, out, b.data());
  }
  // A NaN or infinity in the product (one pass over y, far cheaper than the product): when the
  // weights hold one, the first is named; finite weights leave it to the overflow checks later.
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!std::isfinite(y.data()[i])) {
      if (const std::size_t at = w.first_non_finite(); at < w.count()) {
        float v;
        w.to_float(at, 1, &v);
        w.refuse_non_finite(at, v);
      }
      break;
    }
  return y;
}

std::vector<float> vector_of(const weight_view& w) {
  std::vector<float> v(w.count());
  w.to_float(0, v.size(), v.data());
  w.check_finite(v.data(), 0, v.size());
  return v;
}

}  // namespace attnviz
