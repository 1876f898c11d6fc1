// PNG encoding through stb_image_write (Debian's libstb-dev header; implementation compiled
// here), with zlib doing the deflate: faster than stb's own compressor, and the level is ours.
//
// stb passes its own global level to the compress hook; we ignore it and use the level the
// calling thread captured at the start of encode_png, so concurrent encodes never race on a
// global they write.
#include <fmt/format.h>
#include <zlib.h>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "error.h"
#include "render/canvas.h"

namespace attnviz {
namespace {

std::atomic<int> process_level{default_png_level};
thread_local int encoding_level = default_png_level;

unsigned char* deflate_with_zlib(unsigned char* data, int length, int* out_length, int /*stb*/) {
  uLongf size = compressBound(static_cast<uLong>(length));
  auto* out = static_cast<unsigned char*>(std::malloc(size));
  if (!out) return nullptr;
  if (compress2(out, &size, data, static_cast<uLong>(length), encoding_level) != Z_OK) {
    std::free(out);
    return nullptr;
  }
  *out_length = static_cast<int>(size);
  return out;
}

}  // namespace
}  // namespace attnviz

#define STBIW_ZLIB_COMPRESS attnviz::deflate_with_zlib
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace attnviz {
namespace {

void append_bytes(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                             static_cast<std::size_t>(size));
}

}  // namespace

void set_png_level(int level) {
  if (level < 0 || level > 9)
    throw usage_error(
        fmt::format("{} must be 0 (fastest) to 9 (smallest), got {}", param("png_level"), level));
  process_level = level;
}

int png_level() noexcept {
  return process_level;
}

namespace {

void put_be32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

// pHYs: x and y pixels per metre, unit 1 (metre); right after IHDR (signature 8 + IHDR 25).
void insert_phys(std::string& png, int dpi) {
  const auto per_metre = static_cast<std::uint32_t>(dpi / 0.0254 + 0.5);
  std::string chunk = "pHYs";
  put_be32(chunk, per_metre);
  put_be32(chunk, per_metre);
  chunk += '\x01';
  std::string out;
  put_be32(out, 9);
  out += chunk;
  put_be32(out, static_cast<std::uint32_t>(
                    crc32(0, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(chunk.size()))));
  png.insert(33, out);
}

}  // namespace

std::string encode_png(const canvas& image, int dpi) {
  encoding_level = process_level;
  std::string out;
  const int ok = stbi_write_png_to_func(append_bytes, &out, image.width(), image.height(), 3,
                                        image.pixels().data(), image.width() * 3);
  if (!ok) throw std::runtime_error("PNG encoding failed");
  if (dpi > 0) insert_phys(out, dpi);
  return out;
}

}  // namespace attnviz
