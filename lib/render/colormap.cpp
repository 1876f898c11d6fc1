#include "render/colormap.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "assets/embedded.h"
#include "names.h"

namespace attnviz {

colormap::colormap(std::string name, std::string_view csv) : name_(std::move(name)) {
  std::size_t pos = 0;
  while (pos < csv.size()) {
    std::size_t end = csv.find('\n', pos);
    if (end == std::string_view::npos) end = csv.size();
    const std::string line(csv.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    double c[3];
    std::size_t at = 0;
    for (int k = 0; k < 3; ++k) {
      std::size_t used = 0;
      c[k] = std::stod(line.substr(at), &used);
      at += used + 1;
    }
    auto to8 = [](double v) {
      return static_cast<std::uint8_t>(std::lround(std::fmin(1.0, std::fmax(0.0, v)) * 255.0));
    };
    table_.push_back({to8(c[0]), to8(c[1]), to8(c[2])});
  }
  if (table_.empty()) throw std::runtime_error("colormap " + name_ + ": empty table");
}

const std::vector<colormap_info>& colormap_registry() {
  static const std::vector<colormap_info> entries = {
      {"viridis", colormap_kind::sequential, "perceptually uniform, dark blue to yellow (default)"},
      {"magma", colormap_kind::sequential, "perceptually uniform, black to light yellow"},
      {"inferno", colormap_kind::sequential, "perceptually uniform, black to pale yellow"},
      {"plasma", colormap_kind::sequential, "perceptually uniform, blue to yellow"},
      {"cividis", colormap_kind::sequential,
       "perceptually uniform, readable with colour-vision deficiency"},
      {"gray", colormap_kind::sequential, "black to white"},
      {"rdbu", colormap_kind::diverging, "blue (negative), white (0), red (positive): for scores"},
  };
  return entries;
}

const colormap& colormap::viridis() {
  return by_name("viridis");
}

const colormap& colormap::named_or_default(std::string_view name, bool scores) {
  if (!name.empty()) return by_name(name);
  return by_name(scores ? default_scores_cmap : default_weights_cmap);
}

const colormap& colormap::by_name(std::string_view name) {
  static std::map<std::string, colormap> cache;
  static std::mutex lock;
  const std::string key = normalise_name(name);
  std::lock_guard<std::mutex> guard(lock);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  for (const auto& info : colormap_registry())
    if (info.name == key) {
      const std::string_view csv = embedded_asset(fmt::format("colormap/{}", key));
      return cache.emplace(key, colormap(key, csv)).first->second;
    }
  std::vector<std::string_view> known;
  std::vector<std::pair<std::string_view, std::string_view>> candidates;
  for (const auto& info : colormap_registry()) {
    known.push_back(info.name);
    candidates.emplace_back(info.name, info.name);
  }
  throw_unknown_name("colormap", name, known, candidates);
}

rgb colormap::at(double t) const noexcept {
  if (!(t > 0.0)) return table_.front();  // also catches NaN
  const auto n = table_.size();
  const auto i = static_cast<std::size_t>(t * static_cast<double>(n));
  return table_[i >= n ? n - 1 : i];
}

double luminance(rgb c) noexcept {
  auto lin = [](std::uint8_t v) {
    const double s = v / 255.0;
    return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

}  // namespace attnviz
