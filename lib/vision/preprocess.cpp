#include "vision/preprocess.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "error.h"
#include "io/json_file.h"

namespace attnviz {
namespace preprocess_parts {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& key,
                       const std::string& expected) {
  throw input_error(path, fmt::format("key '{}': expected {}", key, expected));
}

bool flag(const nlohmann::json& j, const std::string& path, const std::string& key, bool fallback) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_boolean()) fail(path, key, "true or false");
  return j[key].get<bool>();
}

std::size_t side(const nlohmann::json& v, const std::string& path, const std::string& key) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 65536)
    fail(path, key, "a whole number of pixels from 1 to 65536");
  return static_cast<std::size_t>(v.get<std::int64_t>());
}

double positive(const nlohmann::json& v, const std::string& path, const std::string& key) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0.0)
    fail(path, key, "a positive number");
  return v.get<double>();
}

std::array<double, 3> triple(const nlohmann::json& j, const std::string& path,
                             const std::string& key, std::array<double, 3> fallback, bool is_std) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  nlohmann::json v = j[key];
  if (v.is_number()) v = nlohmann::json::array({v, v, v});
  if (!v.is_array() || v.size() != 3) fail(path, key, "a list of 3 numbers (R, G, B)");
  std::array<double, 3> out{};
  for (std::size_t c = 0; c < 3; ++c) {
    if (!v[c].is_number() || !std::isfinite(v[c].get<double>()) ||
        (is_std && v[c].get<double>() <= 0.0))
      fail(path, key, is_std ? "3 positive numbers" : "3 finite numbers");
    out[c] = v[c].get<double>();
  }
  return out;
}

// "size": {"height", "width"} | {"shortest_edge"} | a number (header).
void read_size(const nlohmann::json& j, const std::string& path, bool bit, image_processor& p) {
  if (!j.contains("size") || j["size"].is_null()) return;
  const nlohmann::json& s = j["size"];
  if (s.is_number()) {
    p.height = p.width = side(s, path, "size");
    p.shortest_edge = bit;
  } else if (s.is_object() && s.contains("shortest_edge")) {
    p.height = p.width = side(s["shortest_edge"], path, "size.shortest_edge");
    p.shortest_edge = true;
  } else if (s.is_object() && s.contains("height") && s.contains("width")) {
    p.height = side(s["height"], path, "size.height");
    p.width = side(s["width"], path, "size.width");
  } else {
    fail(path, "size", "{\"height\": H, \"width\": W}, {\"shortest_edge\": S} or a number");
  }
}

void read_crop(const nlohmann::json& j, const std::string& path, image_processor& p) {
  p.crop = flag(j, path, "do_center_crop", false);
  if (!p.crop) return;
  if (!j.contains("crop_size")) fail(path, "crop_size", "the crop's size (do_center_crop is true)");
  const nlohmann::json& s = j["crop_size"];
  if (s.is_number()) {
    p.crop_height = p.crop_width = side(s, path, "crop_size");
  } else if (s.is_object() && s.contains("height") && s.contains("width")) {
    p.crop_height = side(s["height"], path, "crop_size.height");
    p.crop_width = side(s["width"], path, "crop_size.width");
  } else {
    fail(path, "crop_size", "{\"height\": H, \"width\": W} or a number");
  }
}

resample_filter read_filter(const nlohmann::json& j, const std::string& path) {
  if (!j.contains("resample") || j["resample"].is_null()) return resample_filter::bilinear;
  const nlohmann::json& v = j["resample"];
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 5)
    fail(path, "resample",
         "PIL's filter number: 0 nearest, 1 lanczos, 2 bilinear, 3 bicubic, "
         "4 box or 5 hamming");
  return static_cast<resample_filter>(v.get<int>());
}

std::string type_of(const nlohmann::json& j) {
  for (const char* key : {"image_processor_type", "feature_extractor_type"})
    if (j.contains(key) && j[key].is_string()) return j[key].get<std::string>();
  return "";
}

// The size the resize step gives an image of w × h (header).
void resized_size(const image_processor& p, std::size_t w, std::size_t h, std::size_t& out_w,
                  std::size_t& out_h) {
  if (!p.shortest_edge) {
    out_w = p.width;
    out_h = p.height;
    return;
  }
  const std::size_t s = p.height, shorter = std::min(w, h), longer = std::max(w, h);
  const auto other = static_cast<std::size_t>(static_cast<double>(s) * static_cast<double>(longer) /
                                              static_cast<double>(shorter));
  out_w = w <= h ? s : std::max<std::size_t>(other, 1);
  out_h = w <= h ? std::max<std::size_t>(other, 1) : s;
}

rgb_image centre_crop(const rgb_image& in, std::size_t w, std::size_t h,
                      const std::string& source) {
  if (w > in.width || h > in.height)
    throw input_error(source, fmt::format("crop_size {} × {} is larger than the resized picture "
                                          "({} × {}): attn-viz crops, it does not pad",
                                          w, h, in.width, in.height));
  const std::size_t top = (in.height - h) / 2, left = (in.width - w) / 2;
  rgb_image out;
  out.width = w;
  out.height = h;
  out.rgb.resize(w * h * 3);
  for (std::size_t y = 0; y < h; ++y)
    std::copy_n(in.rgb.data() + ((top + y) * in.width + left) * 3, w * 3,
                out.rgb.data() + y * w * 3);
  return out;
}

}  // namespace
}  // namespace preprocess_parts

image_processor read_image_processor(const std::string& model_dir, std::size_t image_size) {
  using namespace preprocess_parts;
  image_processor p;
  p.height = p.width = p.crop_height = p.crop_width = image_size;
  const std::string path = (std::filesystem::path(model_dir) / "preprocessor_config.json").string();
  if (!std::filesystem::exists(path)) {
    p.source = "defaults (no preprocessor_config.json)";
    return p;
  }
  const nlohmann::json j = parse_json_file(path, "a JSON object");
  if (!j.is_object()) throw input_error(path, "is not a JSON object");
  p.source = path;
  const bool bit = type_of(j).rfind("Bit", 0) == 0;
  p.resize = flag(j, path, "do_resize", true);
  read_size(j, path, bit, p);
  p.filter = read_filter(j, path);
  read_crop(j, path, p);
  p.rescale = flag(j, path, "do_rescale", true);
  if (j.contains("rescale_factor"))
    p.rescale_factor = positive(j["rescale_factor"], path, "rescale_factor");
  p.normalize = flag(j, path, "do_normalize", true);
  p.mean = triple(j, path, "image_mean", p.mean, false);
  p.stdev = triple(j, path, "image_std", p.stdev, true);
  return p;
}

std::string describe(const image_processor& p) {
  std::string s;
  if (p.resize)
    s += p.shortest_edge
             ? fmt::format("resize the short side to {} ({})", p.height, resample_name(p.filter))
             : fmt::format("resize to {} × {} ({})", p.width, p.height, resample_name(p.filter));
  if (p.crop)
    s += fmt::format("{}crop the centre {} × {}", s.empty() ? "" : ", ", p.crop_width,
                     p.crop_height);
  if (p.rescale) s += fmt::format("{}rescale × {:.6g}", s.empty() ? "" : ", ", p.rescale_factor);
  if (p.normalize)
    s += fmt::format("{}normalise (mean {:g} {:g} {:g}, std {:g} {:g} {:g})", s.empty() ? "" : ", ",
                     p.mean[0], p.mean[1], p.mean[2], p.stdev[0], p.stdev[1], p.stdev[2]);
  return s.empty() ? "the pixels as they are" : s;
}

pixel_tensor preprocess(const image_processor& p, const rgb_image& image, rgb_image* picture) {
  using namespace preprocess_parts;
  rgb_image img = image;
  if (p.resize) {
    std::size_t w = 0, h = 0;
    resized_size(p, img.width, img.height, w, h);
    if (w != img.width || h != img.height) img = resize_like_pil(img, w, h, p.filter);
  }
  if (p.crop) img = centre_crop(img, p.crop_width, p.crop_height, p.source);
  pixel_tensor t;
  t.height = img.height;
  t.width = img.width;
  t.chw.resize(3 * t.height * t.width);
  for (std::size_t c = 0; c < 3; ++c) {
    const auto mean = static_cast<float>(p.mean[c]), stdev = static_cast<float>(p.stdev[c]);
    for (std::size_t y = 0; y < t.height; ++y)
      for (std::size_t x = 0; x < t.width; ++x) {
        float v = img.at(y, x, c);
        if (p.rescale)
          v = static_cast<float>(static_cast<double>(img.at(y, x, c)) * p.rescale_factor);
        if (p.normalize) v = (v - mean) / stdev;
        t.chw[(c * t.height + y) * t.width + x] = v;
      }
  }
  if (picture) *picture = std::move(img);
  return t;
}

}  // namespace attnviz
