// Data files from assets/, compiled into the library byte for byte (cmake/AttnVizAssets.cmake),
// so the executable needs no files at run time. Keys (lib/CMakeLists.txt):
//   "unifont"                         assets/unifont/unifont-15.0.01-bmp.hex
//   "colormap/<name>"                 assets/colormaps/<name>.csv
#pragma once

#include <string_view>

namespace attnviz {

// The bytes of the asset, or an empty view for an unknown key.
std::string_view embedded_asset(std::string_view key);

}  // namespace attnviz
