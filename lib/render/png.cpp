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

std::string encode_png(const canvas& image) {
  encoding_level = process_level;
  std::string out;
  const int ok = stbi_write_png_to_func(append_bytes, &out, image.width(), image.height(), 3,
                                        image.pixels().data(), image.width() * 3);
  if (!ok) throw std::runtime_error("PNG encoding failed");
  return out;
}

}  // namespace attnviz
