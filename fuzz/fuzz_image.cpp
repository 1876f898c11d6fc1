// libFuzzer target: pictures (vision/image_file.h, through stb_image) and their preprocessing
// (vision/preprocess.h, vision/resample.h) on arbitrary bytes.
// Allowed outcome: an RGB picture or an input_error. Checked: the decoded size holds
// width × height × 3 bytes; a small picture resized by every filter has the size asked for;
// the preprocessed values are finite.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "error.h"
#include "vision/image_file.h"
#include "vision/preprocess.h"
#include "vision/resample.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnviz;
  try {
    const rgb_image img =
        decode_image(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    if (img.width == 0 || img.height == 0 || img.rgb.size() != img.width * img.height * 3)
      std::abort();
    if (img.width * img.height > 256 * 256) return 0;  // resizing a large one proves nothing more
    for (int f = 0; f <= 5; ++f) {
      const std::size_t w = 1 + (img.width * 7 + f) % 23, h = 1 + (img.height * 5 + f) % 19;
      const rgb_image out = resize_like_pil(img, w, h, static_cast<resample_filter>(f));
      if (out.width != w || out.height != h || out.rgb.size() != w * h * 3) std::abort();
    }
    image_processor p;
    p.shortest_edge = true;
    p.height = p.width = 9;
    p.crop = img.width > 1 && img.height > 1;
    p.crop_height = p.crop_width = 9;
    p.filter = static_cast<resample_filter>(img.width % 6);
    const pixel_tensor t = preprocess(p, img);
    for (const float v : t.chw)
      if (!std::isfinite(v)) std::abort();
  } catch (const input_error&) {
  }
  return 0;
}
