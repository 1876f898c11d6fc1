// A vision model's input in a `model` run (model/vision.h): the picture read, preprocessed as
// the folder's preprocessor_config.json says (vision/preprocess.h), and what the run shows of it:
//   tokens     "CLS", "DIST", "REG1" …, "r,c" per patch (the views' labels)
//   top-k      the classifier's most likely classes, named by id2label
//   cls_map    [layers, heads, g_h, g_w]: each map's CLS row over the patches (cls_map.npy)
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/hf_model.h"
#include "model/vision.h"
#include "render/model_json.h"
#include "vision/image_file.h"
#include "vision/preprocess.h"

namespace attnviz {

struct vision_input {
  std::string path;  // the picture's file
  image_processor processor;
  rgb_image seen;       // the 8-bit picture the model reads (resized, cropped)
  pixel_tensor pixels;  // its preprocessed values
  patch_grid grid;
  std::vector<std::string> tokens;
};

// The picture at `path` for model config c from folder `model_dir` (input_error naming the
// file for a picture that cannot be read or is smaller than a patch).
vision_input read_vision_input(const model_config& c, const std::string& model_dir,
                               const std::string& path);

// The k most likely classes from the final hidden state (probabilities by softmax, ties to the
// lower index), named by id2label. usage_error when the checkpoint has no classifier.
model_prediction vision_prediction(const hf_model& m, const matrix& hidden, std::size_t k);

// [layers, heads, g_h, g_w] from every map's first row ([layers, heads, n], jobs/map_keeper.h
// first_rows): the CLS query's weights on the patch keys.
std::vector<float> cls_maps(const std::vector<float>& first_rows, std::size_t layers,
                            std::size_t heads, const model_config& c, const patch_grid& g);

}  // namespace attnviz
