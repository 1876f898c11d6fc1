#include "params/ggml_types.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/ggml_layout.h"
#include "kernels/kernels.h"
#include "params/ggml_blocks.h"

namespace attnviz {

namespace {

constexpr ggml_type_info kTypes[] = {
    {ggml_type::f32, "F32", 1, 4},
    {ggml_type::f16, "F16", 1, 2},
    {ggml_type::bf16, "BF16", 1, 2},
    {ggml_type::q8_0, "Q8_0", ggml_layout::q8_0::block, ggml_layout::q8_0::bytes},
    {ggml_type::q4_0, "Q4_0", 32, 18},
    {ggml_type::q4_1, "Q4_1", 32, 20},
    {ggml_type::q5_0, "Q5_0", 32, 22},
    {ggml_type::q5_1, "Q5_1", 32, 24},
    {ggml_type::q2_k, "Q2_K", 256, 84},
    {ggml_type::q3_k, "Q3_K", 256, 110},
    {ggml_type::q4_k, "Q4_K", ggml_layout::q4_k::block, ggml_layout::q4_k::bytes},
    {ggml_type::q5_k, "Q5_K", ggml_layout::q5_k::block, ggml_layout::q5_k::bytes},
    {ggml_type::q6_k, "Q6_K", ggml_layout::q6_k::block, ggml_layout::q6_k::bytes},
};

// ggml's names for the ids it defines that attn-viz does not read (for refusals).
const char* other_type_name(std::uint32_t id) {
  static const char* const names[] = {
      nullptr,   nullptr,   nullptr,   nullptr,   "Q4_2",    "Q4_3",     nullptr,   nullptr,
      nullptr,   "Q8_1",    nullptr,   nullptr,   nullptr,   nullptr,    nullptr,   "Q8_K",
      "IQ2_XXS", "IQ2_XS",  "IQ3_XXS", "IQ1_S",   "IQ4_NL",  "IQ3_S",    "IQ2_S",   "IQ4_XS",
      "I8",      "I16",     "I32",     "I64",     "F64",     "IQ1_M",    nullptr,   "Q4_0_4_4",
      "Q4_0_4_8", "Q4_0_8_8", "TQ1_0", "TQ2_0"};
  return id < sizeof names / sizeof names[0] ? names[id] : nullptr;
}

#include "params/ggml_blocks.inc"

}  // namespace

std::optional<ggml_type_info> ggml_type_of(std::uint32_t id) {
  for (const auto& info : kTypes)
    if (static_cast<std::uint32_t>(info.type) == id) return info;
  return std::nullopt;
}

const ggml_type_info& ggml_info(ggml_type t) {
  for (const auto& info : kTypes)
    if (info.type == t) return info;
  return kTypes[0];
}

std::string ggml_type_name(std::uint32_t id) {
  if (const auto info = ggml_type_of(id)) return std::string(info->name);
  if (const char* name = other_type_name(id)) return name;
  return fmt::format("type {}", id);
}

std::string ggml_supported_types() {
  std::string all;
  for (const auto& info : kTypes) all += (all.empty() ? "" : ", ") + std::string(info.name);
  return all;
}

void ggml_to_float(ggml_type t, const unsigned char* data, std::size_t first, std::size_t count,
                   float* out) {
#if defined(ATTNVIZ_HAVE_X86_KERNELS)
  if (kernels::active_isa() != "generic")
    return ggml_blocks_avx2::to_float(t, data, first, count, out);
#endif
  to_float(t, data, first, count, out);
}

}  // namespace attnviz
