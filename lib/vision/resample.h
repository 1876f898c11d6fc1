// Resampling: pictures as PIL resizes them (what Hugging Face's image processors call), and
// grids of floats as PyTorch's interpolate does (the vision models' learned positions moved to
// another patch grid).
//
// PIL's Image.resize (Pillow's Resample.c), for an 8-bit picture of W_in columns to W_out:
//   scale s = W_in / W_out, filter scale f = max(s, 1), support r = support(filter) · f
//   output column x: centre c = (x + ½) s, inputs j in [⌊c − r + ½⌋, ⌊c + r + ½⌋) ∩ [0, W_in),
//   weights w_j = K((j − c + ½) / f) divided by their sum, then as integers
//   k_j = round(w_j · 2^22) (halves away from 0), out = clamp((2^21 + Σ k_j p_j) >> 22, 0, 255)
//   the columns first (into an 8-bit picture), then the rows; a side whose size is unchanged
//   is not resampled.
//   K: bilinear (support 1) 1 − |t|; bicubic (2) Keys' cubic with a = −½; lanczos (3)
//   sinc(t) sinc(t/3); box (½) 1 on (−½, ½]; hamming (1) sinc(t)(0.54 + 0.46 cos πt).
//   nearest: input column ⌊(x + ½) s⌋ (an affine transform, no weights).
// PyTorch's interpolate(mode="bicubic", align_corners=False) on floats, size given:
//   plain        source s (x + ½) − ½, its floor x0 and t = fraction; inputs x0 − 1 … x0 + 2
//                clamped to the edge, weights Keys' cubic with a = −¾ at t + 1, t, 1 − t, 2 − t
//   antialias    PIL's weights above (bicubic, a = −½) in floating point, no rounding
// Both separable; computed here in double.
#pragma once

#include <cstddef>
#include <vector>

#include "vision/image_file.h"

namespace attnviz {

// PIL's numbers, as preprocessor_config.json's "resample" gives them.
enum class resample_filter {
  nearest = 0,
  lanczos = 1,
  bilinear = 2,
  bicubic = 3,
  box = 4,
  hamming = 5
};
// "bicubic" etc. for messages.
const char* resample_name(resample_filter f);

// PIL's Image.resize(…, filter) of an RGB picture to width × height (both ≥ 1).
rgb_image resize_like_pil(const rgb_image& in, std::size_t width, std::size_t height,
                          resample_filter filter);

// A grid of in_h × in_w cells of `channels` floats each (row by row, a cell's channels side by
// side) to out_h × out_w cells, as PyTorch's bicubic interpolate (see above).
enum class grid_bicubic { plain, antialias };
std::vector<double> resize_grid(const std::vector<double>& in, std::size_t in_h, std::size_t in_w,
                                std::size_t channels, std::size_t out_h, std::size_t out_w,
                                grid_bicubic kind);

}  // namespace attnviz
