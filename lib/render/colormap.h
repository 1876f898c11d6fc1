// Colormaps as 256-entry tables (assets/colormaps/*.csv, compiled in).
// at(t) maps t in [0, 1] to entry floor(t · 256) (clamped), like matplotlib's ListedColormap.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

struct rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  bool operator==(const rgb& o) const noexcept { return r == o.r && g == o.g && b == o.b; }
};

enum class colormap_kind { sequential, diverging };

struct colormap_info {
  std::string_view name;
  colormap_kind kind;
  std::string_view description;
};

// Every colormap attn-viz ships (assets/colormaps/<name>.csv), in the order --help lists them.
const std::vector<colormap_info>& colormap_registry();

// The colormaps figures use when none is named (--cmap).
inline constexpr std::string_view default_weights_cmap = "viridis";
inline constexpr std::string_view default_scores_cmap = "rdbu";

class colormap {
 public:
  // Parses "r,g,b" lines of floats in [0, 1] ('#' starts a comment line).
  colormap(std::string name, std::string_view csv);
  static const colormap& viridis();
  // A registered colormap by name (parsed once); unknown names are a usage_error.
  static const colormap& by_name(std::string_view name);
  // by_name(name), or when name is empty the default: default_weights_cmap, or
  // default_scores_cmap for a map of scores (diverging, centred on 0).
  static const colormap& named_or_default(std::string_view name, bool scores = false);

  const std::string& name() const noexcept { return name_; }
  std::size_t size() const noexcept { return table_.size(); }
  rgb entry(std::size_t i) const { return table_.at(i); }
  rgb at(double t) const noexcept;

 private:
  std::string name_;
  std::vector<rgb> table_;
};

// Relative luminance (sRGB, ITU-R BT.709 weights on linearised channels), in [0, 1].
double luminance(rgb c) noexcept;

}  // namespace attnviz
