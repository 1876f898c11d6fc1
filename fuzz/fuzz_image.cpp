// libFuzzer target: pictures (vision/image_file.h, through stb_image) and their preprocessing
// (vision/preprocess.h, vision/resample.h) on arbitrary bytes.
// Allowed outcome: an RGB picture or an input_error. Checked: the decoded size holds
// width × height × 3 bytes; a small picture resized (by a filter the bytes choose) has the size
// asked for; the preprocessed values are finite.
#include <algorithm>
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
    // Pictures up to 256 × 256 decoded: a larger one runs the same decoding loops longer (a
    // few hundred bytes of JPEG may declare millions of pixels, decoded from zeros), and would
    // cost the fuzzer most of its speed; the refusal of larger ones is reached all the same.
    const rgb_image img =
        decode_image(std::string(reinterpret_cast<const char*>(data), size), "fuzz", 256 * 256);
    if (img.width == 0 || img.height == 0 || img.rgb.size() != img.width * img.height * 3)
      std::abort();
    // Resizing a large picture proves nothing a small one does not, and costs the fuzzer most of
    // its speed: pictures up to 64 × 64 are resized, by one filter each (chosen from the bytes,
    // so the corpus reaches every filter), to a size chosen the same way.
    if (img.width * img.height > 64 * 64) return 0;
    const std::size_t pick = data[size - 1] + 7 * img.width + 5 * img.height;
    {
      const std::size_t w = 1 + (img.width * 7 + pick) % 23, h = 1 + (img.height * 5 + pick) % 19;
      const rgb_image out = resize_like_pil(img, w, h, static_cast<resample_filter>(pick % 6));
      if (out.width != w || out.height != h || out.rgb.size() != w * h * 3) std::abort();
    }
    // The shortest edge to 9 (BiT's rule) while the picture is no longer than 4 × its width
    // or height; a needle of a picture (1 × 4,096) would otherwise be resized to 9 × 36,864.
    image_processor p;
    p.shortest_edge = std::max(img.width, img.height) <= 4 * std::min(img.width, img.height);
    p.height = p.width = 9;
    p.crop = img.width > 1 && img.height > 1;
    p.crop_height = p.crop_width = 9;
    p.filter = static_cast<resample_filter>((pick / 6) % 6);
    const pixel_tensor t = preprocess(p, img);
    for (const float v : t.chw)
      if (!std::isfinite(v)) std::abort();
  } catch (const input_error&) {
  }
  return 0;
}
