// PNG encoding through stb_image_write (Debian's libstb-dev header; implementation compiled here).
#include <stdexcept>
#include <string>

#include "render/canvas.h"

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

std::string encode_png(const canvas& image) {
  std::string out;
  stbi_write_png_compression_level = 8;
  const int ok = stbi_write_png_to_func(append_bytes, &out, image.width(), image.height(), 3,
                                        image.pixels().data(), image.width() * 3);
  if (!ok) throw std::runtime_error("PNG encoding failed");
  return out;
}

}  // namespace attnviz
