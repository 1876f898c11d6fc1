// A vision model's image preprocessing, as its folder's preprocessor_config.json describes it
// (Hugging Face's ViTImageProcessor, DeiTImageProcessor, BitImageProcessor: the steps in order)
//   convert    to RGB (vision/image_file.h: grey copied, alpha dropped)
//   resize     "size": {"height", "width"} exactly, or {"shortest_edge": s} (the short side to
//              s, the long one to ⌊s · long / short⌋), or a number (BiT's: the shortest edge;
//              the others': a square); "resample" PIL's filter number (vision/resample.h), on
//              8-bit values as PIL resizes
//   crop       "do_center_crop" with "crop_size": the centre, top ⌊(H − h)/2⌋, left ⌊(W − w)/2⌋
//   rescale    v · rescale_factor (1/255), in double, then float
//   normalize  (v − mean_c) / std_c per channel, in float
// Without the file: the model's image_size square, bilinear, 1/255, mean = std = ½ (ViT's
// defaults). The result is the model's input, channels first: 3 × H × W floats.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "vision/image_file.h"
#include "vision/resample.h"

namespace attnviz {

struct image_processor {
  std::string source;  // the file read, or "defaults (no preprocessor_config.json)"
  bool resize = true, shortest_edge = false;
  std::size_t height = 224, width = 224;  // the size, or with shortest_edge the short side
  resample_filter filter = resample_filter::bilinear;
  bool crop = false;
  std::size_t crop_height = 224, crop_width = 224;
  bool rescale = true;
  double rescale_factor = 1.0 / 255.0;
  bool normalize = true;
  std::array<double, 3> mean{0.5, 0.5, 0.5}, stdev{0.5, 0.5, 0.5};
};

// DIR/preprocessor_config.json read and checked (input_error naming the file and the key), or
// the defaults for an image_size square when the folder has none.
image_processor read_image_processor(const std::string& model_dir, std::size_t image_size);
// "resize to 224 × 224 (bilinear), rescale × 1/255, normalise (mean 0.5 0.5 0.5, std …)".
std::string describe(const image_processor& p);

struct pixel_tensor {
  std::size_t height = 0, width = 0;
  std::vector<float> chw;  // 3 × height × width
  float at(std::size_t c, std::size_t y, std::size_t x) const {
    return chw[(c * height + y) * width + x];
  }
};

// The picture after every step (header); `picture` also receives the 8-bit picture the model
// sees (resized and cropped) when it is not null, for drawing on.
pixel_tensor preprocess(const image_processor& p, const rgb_image& image,
                        rgb_image* picture = nullptr);

}  // namespace attnviz
