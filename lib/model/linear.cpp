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

namespace {

// A quantized [out, in] matrix's rows, dequantized for the product (kernels::row_decoder).
void decode_rows(const void* context, std::size_t row, std::size_t first, std::size_t count,
                 float* out) {
  const auto& w = *static_cast<const weight_view*>(context);
  w.to_float(row * static_cast<std::size_t>(w.shape[1]) + first, count, out);
}

kernels::row_decoder decoder_of(const weight_view& w) {
  const ggml_type_info& info = ggml_info(w.dtype);
  kernels::row_decoder d;
  d.context = &w;
  d.decode = decode_rows;
  d.bytes = w.data;
  d.block = info.block;
  d.block_bytes = info.block_bytes;
  d.row_bytes = static_cast<std::size_t>(w.shape[1]) / info.block * info.block_bytes;
  using in_place = kernels::row_decoder::in_place;
  d.format = w.dtype == weight_dtype::q8_0   ? in_place::q8_0
             : w.dtype == weight_dtype::q4_0 ? in_place::q4_0
             : w.dtype == weight_dtype::q4_1 ? in_place::q4_1
             : w.dtype == weight_dtype::q5_0 ? in_place::q5_0
             : w.dtype == weight_dtype::q5_1 ? in_place::q5_1
             : w.dtype == weight_dtype::q2_k ? in_place::q2_k
             : w.dtype == weight_dtype::q3_k ? in_place::q3_k
             : w.dtype == weight_dtype::q4_k ? in_place::q4_k
             : w.dtype == weight_dtype::q5_k ? in_place::q5_k
             : w.dtype == weight_dtype::q6_k ? in_place::q6_k
                                             : in_place::none;
  return d;
}

bool stored_as_floats(weight_dtype t) {
  return t == weight_dtype::f32 || t == weight_dtype::f16 || t == weight_dtype::bf16;
}

// y (a product over w) holds a NaN or infinity: when the weights hold one, the first is named;
// finite weights leave it to the overflow checks later. One vector pass over y, far cheaper than
// the product (a scalar loop here was 2 % of GPT-2's forward).
void refuse_non_finite_weights(const matrix& y, const weight_view& w) {
  if (kernels::all_finite(y.data(), y.size())) return;
  if (const std::size_t at = w.first_non_finite(); at < w.count()) {
    float v;
    w.to_float(at, 1, &v);
    w.refuse_non_finite(at, v);
  }
}

// Rows [row, row + rows) of an [out, in] matrix as one operand of a product, read in place;
// nullopt when they cannot be (see swiglu_linear). decoder keeps a quantized matrix's decoder.
std::optional<kernels::b_operand> operand_of(const weight_view& w, std::size_t row,
                                             kernels::row_decoder& decoder) {
  const auto cols = static_cast<std::size_t>(w.shape[1]);
  kernels::b_operand b;
  b.ldb = cols;
  b.trans = true;
  if (!stored_as_floats(w.dtype)) {
    if (row != 0) return std::nullopt;
    decoder = decoder_of(w);
    b.rows = &decoder;
    return b;
  }
  const std::size_t bytes = w.dtype == weight_dtype::f32 ? 4 : 2;
  b.data = w.data + row * cols * bytes;
  if (w.dtype == weight_dtype::f32 &&
      reinterpret_cast<std::uintptr_t>(b.data) % alignof(float) != 0)
    return std::nullopt;
  b.type = w.dtype == weight_dtype::f32   ? kernels::element_type::f32
           : w.dtype == weight_dtype::f16 ? kernels::element_type::f16
                                          : kernels::element_type::bf16;
  return b;
}

}  // namespace

std::optional<matrix> swiglu_linear(const matrix& x, const weight_view& gate, std::size_t gate_row,
                                    const weight_view& up, std::size_t up_row, std::size_t out) {
  for (const weight_view* w : {&gate, &up})
    if (w->shape.size() != 2 || static_cast<std::size_t>(w->shape[1]) != x.cols())
      throw std::logic_error("swiglu_linear: input size differs from the weights'");
  if (static_cast<std::size_t>(gate.shape[0]) < gate_row + out ||
      static_cast<std::size_t>(up.shape[0]) < up_row + out)
    throw std::logic_error("swiglu_linear: fewer weight rows than asked for");
  kernels::row_decoder gate_rows, up_rows;
  const std::optional<kernels::b_operand> g = operand_of(gate, gate_row, gate_rows),
                                          u = operand_of(up, up_row, up_rows);
  if (!g || !u) return std::nullopt;
  matrix y = matrix::uninitialized(x.rows(), out);
  kernels::gemm_swiglu(x.rows(), out, x.cols(), x.data(), x.cols(), *g, *u, y.data(), out);
  refuse_non_finite_weights(y, gate);
  refuse_non_finite_weights(y, up);
  return y;
}

matrix linear(const matrix& x, const weight_view& w, linear_layout layout, const weight_view* bias,
              weight_converter& conv) {
  if (w.shape.size() != 2) throw std::logic_error("linear: the weights are not a matrix");
  const auto rows = static_cast<std::size_t>(w.shape[0]), cols = static_cast<std::size_t>(w.shape[1]);
  const bool out_in = layout == linear_layout::out_in;
  const std::size_t in = out_in ? cols : rows, out = out_in ? rows : cols;
  if (x.cols() != in) throw std::logic_error("linear: input size differs from the weights'");
  matrix y = matrix::uninitialized(x.rows(), out);
  if (!stored_as_floats(w.dtype)) {
    if (!out_in) throw std::logic_error("linear: quantized weights stored [in, out]");
    kernels::gemm(x.rows(), out, in, 1.0f, x.data(), in, decoder_of(w), 0.0f, y.data(), out);
  } else if (w.dtype == weight_dtype::f32) {
    kernels::gemm(x.rows(), out, in, 1.0f, x.data(), in, conv.floats(w), cols, out_in, 0.0f,
                  y.data(), out);
  } else {
    kernels::gemm(x.rows(), out, in, 1.0f, x.data(), in, w.data,
                  w.dtype == weight_dtype::f16 ? kernels::element_type::f16
                                               : kernels::element_type::bf16,
                  cols, out_in, 0.0f, y.data(), out);
  }
  if (bias) {
    const std::vector<float> b = vector_of(*bias);
    if (b.size() != out) throw std::logic_error("linear: bias size differs from the output");
    kernels::add_bias_rows(y.data(), y.rows(), out, out, b.data());
  }
  refuse_non_finite_weights(y, w);
  return y;
}

void output_head_block(const float* w, linear_layout layout, std::size_t heads_width, std::size_t d,
                       std::size_t head, std::size_t dh, float* out) {
  for (std::size_t e = 0; e < dh; ++e)
    for (std::size_t c = 0; c < d; ++c)
      out[e * d + c] = layout == linear_layout::out_in ? w[c * heads_width + head * dh + e]
                                                       : w[(head * dh + e) * d + c];
}

std::vector<float> vector_of(const weight_view& w) {
  std::vector<float> v(w.count());
  w.to_float(0, v.size(), v.data());
  w.check_finite(v.data(), 0, v.size());
  return v;
}

}  // namespace attnviz
