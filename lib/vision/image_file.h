// Pictures read for the vision models: PNG, JPEG and BMP (through stb_image), decoded to 8-bit
// RGB as Hugging Face's image
// processors see them after PIL's convert("RGB"): a grey picture's value copied to R, G and B,
// an alpha channel dropped (not blended), 16-bit channels taken at their high byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnviz {

struct rgb_image {
  std::size_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // height × width × 3, row by row
  std::uint8_t at(std::size_t y, std::size_t x, std::size_t c) const {
    return rgb[(y * width + x) * 3 + c];
  }
};

// The largest picture decoded, in pixels (8,192 × 8,192): a header that declares more
// is refused before any pixel is decoded.
inline constexpr std::uint64_t max_image_pixels = std::uint64_t{1} << 26;

// Decodes `bytes` (named `source` in errors). Throws input_error naming the source and what is
// wrong: not a picture format (its first bytes shown), a damaged one (the decoder's reason),
// a size over `max_pixels` (max_image_pixels unless a caller reads only smaller ones).
rgb_image decode_image(const std::string& bytes, const std::string& source,
                       std::uint64_t max_pixels = max_image_pixels);
// The file at `path` decoded (input_error for a missing or unreadable file too).
rgb_image read_image(const std::string& path);

}  // namespace attnviz
