#include "vision/image_file.h"

#include <fmt/format.h>

#include <climits>
#include <cstdlib>
#include <memory>

#include "error.h"
#include "io/file_io.h"

// Debian's libstb-dev header, its implementation compiled here alone (no unity batch: its
// internal names stay in this file), reading from memory only.
#define STBI_NO_STDIO
#define STBI_FAILURE_USERMSG
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

namespace attnviz {
namespace image_file_parts {
namespace {

// The first bytes of a file that is no picture, as a message shows them.
std::string first_bytes(const std::string& bytes) {
  std::string shown;
  for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    shown +=
        c >= 32 && c < 127 ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
  }
  return shown;
}

}  // namespace
}  // namespace image_file_parts

rgb_image decode_image(const std::string& bytes, const std::string& source) {
  using namespace image_file_parts;
  if (bytes.empty()) throw input_error(source, "is empty (expected a PNG, JPEG or BMP picture)");
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw input_error(source, "is larger than 2 GiB (expected a PNG, JPEG or BMP picture)");
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int length = static_cast<int>(bytes.size());
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(data, length, &w, &h, &channels))
    throw input_error(source, fmt::format("is not a picture attn-viz reads: its first bytes are "
                                          "\"{}\" (expected PNG, JPEG, BMP, GIF, TGA, PSD or PNM)",
                                          first_bytes(bytes)));
  const auto pixels = static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(h);
  if (w <= 0 || h <= 0 || pixels > max_image_pixels)
    throw input_error(source, fmt::format("declares {} × {} pixels (at most {} pixels are read)", w,
                                          h, max_image_pixels));
  std::unique_ptr<stbi_uc, void (*)(void*)> decoded(
      stbi_load_from_memory(data, length, &w, &h, &channels, 3), stbi_image_free);
  if (!decoded)
    throw input_error(source, fmt::format("is a damaged picture: {}", stbi_failure_reason()));
  rgb_image image;
  image.width = static_cast<std::size_t>(w);
  image.height = static_cast<std::size_t>(h);
  image.rgb.assign(decoded.get(), decoded.get() + image.width * image.height * 3);
  return image;
}

rgb_image read_image(const std::string& path) {
  require_regular_file(path);
  return decode_image(read_whole_file(path), path);
}

}  // namespace attnviz
