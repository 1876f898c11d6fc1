// Data files from assets/, compiled into the library byte for byte (cmake/AttnVizAssets.cmake),
// so the executable needs no files at run time.
#pragma once

#include <string_view>

namespace attnviz {

std::string_view asset_unifont_hex();  // assets/unifont/unifont-15.0.01-bmp.hex
std::string_view asset_viridis_csv();  // assets/colormaps/viridis.csv

}  // namespace attnviz
