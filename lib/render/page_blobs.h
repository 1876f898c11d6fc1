// The maps of an explorer page (render/model_page.h) as compact text, so that a whole model at
// 1,024 tokens (12 × 12 maps of a million weights) fits a page of about 100 MB:
//
//   f32   each weight as its float32 (exact): pages of at most page_exact_weights weights
//   u16   each weight a in [0, 1] as q = round(a · 65535), 16-bit fixed point: |q / 65535 − a|
//         ≤ 1 / 131070 ≈ 7.6e-6, below the 4 decimals the page shows (a weight's colour index
//         can move by one where it lies that close to a colour's edge)
//
// The values' little-endian bytes are split into planes (every value's byte 0, then every
// byte 1, …: the exponents and high bytes, mostly alike, compress well), made a zlib stream
// (io/zlib_stream.h, level 1) and written as base64, each map in its own
// <script type="application/octet-stream" id="…"> element, decoded by the page's own inflate
// when the map is first shown.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attnviz {

enum class page_encoding { f32, u16 };
inline constexpr std::size_t page_exact_weights = 4'000'000;
const char* page_encoding_name(page_encoding e);

// The base64 text of `count` values.
std::string page_blob(const float* values, std::size_t count, page_encoding e);
// <script type="application/octet-stream" id="ID">TEXT</script> and a line break.
std::string blob_element(const std::string& id, const std::string& text);

}  // namespace attnviz
