// Internal to lib/kernels: the table each per-instruction-set translation unit exports, and the
// one allocation helper they share (defined in dispatch.cpp, compiled without special flags).
//
// The per-ISA files avoid the standard library's templates (containers, algorithms): an inline
// template instantiated with -mavx512f in one file and plainly in another is merged by the
// linker into one copy, which could then run AVX-512 code on a CPU without it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"

namespace attnviz::kernels {

// A heap array of floats, owned; zero-filled when asked (otherwise every element must be
// written before it is read).
class float_buffer {
 public:
  enum class fill { none, zeros };
  float_buffer(std::size_t count, fill how);
  ~float_buffer();
  float_buffer(const float_buffer&) = delete;
  float_buffer& operator=(const float_buffer&) = delete;
  float* data() noexcept { return data_; }
  float& operator[](std::size_t i) noexcept { return data_[i]; }

 private:
  float* data_;
  std::size_t count_;
};

// What the blocking is derived from (blocking.cpp): the caches in bytes and any forced sizes
// (0: derive). Plain data, so the per-ISA files read it without the standard library.
struct blocking_inputs {
  std::size_t l1d, l2, l3;
  std::size_t panels, panel_depth, mc, panel_a_bytes, attention_floats;
};
// The current inputs (the machine's caches unless forced); valid until use_blocking is called.
const blocking_inputs& blocking_request();
// The L3 the sizes are derived from when /sys or sysconf report it: at most L3_LIMIT
// (blocking.cpp says why). A forced L3 is taken as given.
constexpr std::size_t L3_LIMIT = std::size_t{32} << 20;
std::size_t l3_for_blocking(std::size_t reported);

// An instruction set's sizes (kernels.h, struct blocking, says what each is).
struct blocking_sizes {
  std::size_t kc, panels, panel_depth, mc, panel_a_bytes, attention_floats;
};

struct isa_table {
  const char* name;
  blocking_sizes (*blocking)(const blocking_inputs&);
  product_plan (*plan)(std::size_t, std::size_t, std::size_t, std::size_t);
  void (*gemm)(std::size_t, std::size_t, std::size_t, float, const float*, std::size_t,
               const float*, std::size_t, bool, float, float*, std::size_t);
  void (*gemm_16)(std::size_t, std::size_t, std::size_t, float, const float*, std::size_t,
                  const std::uint16_t*, int, std::size_t, bool, float, float*, std::size_t);
  void (*gemm_decoded)(std::size_t, std::size_t, std::size_t, float, const float*, std::size_t,
                       const row_decoder&, float, float*, std::size_t);
  // gated.inc; gate and up of the same kind
  void (*gemm_swiglu)(std::size_t, std::size_t, std::size_t, const float*, std::size_t,
                      const b_operand&, const b_operand&, float*, std::size_t);
  bool (*softmax_rows)(float*, std::size_t, std::size_t, std::size_t, float);
  void (*exp2_nonpositive)(const float*, float*, std::size_t);
  bool (*attention_softmax)(const attention_args&);
  void (*additive_scores)(const float*, const float*, const float*, const float*, std::size_t,
                          std::size_t, std::size_t, float*);
  // elementwise.inc
  void (*layer_norm_rows)(const float*, std::size_t, float*, std::size_t, std::size_t,
                          std::size_t, const float*, const float*, float);
  void (*rms_norm_rows)(const float*, std::size_t, float*, std::size_t, std::size_t, std::size_t,
                        const float*, float);
  void (*gelu_tanh)(float*, std::size_t);
  void (*gelu_erf)(float*, std::size_t);
  void (*silu_mul)(float*, const float*, std::size_t);
  void (*add_bias_rows)(float*, std::size_t, std::size_t, std::size_t, const float*);
  void (*add_to)(float*, const float*, std::size_t);
  bool (*all_finite)(const float*, std::size_t);
  void (*mixed_l1_distances)(const l1_query*, std::size_t, const float*, std::size_t, std::size_t,
                             float*);
};

// The active instruction set's sizes for `in` (dispatch.cpp).
blocking_sizes isa_blocking(const blocking_inputs& in);

const isa_table& table_generic();
const isa_table& table_avx2();    // only on x86-64 builds with ATTNVIZ_SIMD
const isa_table& table_avx512();  // idem

}  // namespace attnviz::kernels
