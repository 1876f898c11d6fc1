#include "assets/embedded.h"

extern "C" {
extern const char attnviz_asset_unifont_begin[];
extern const char attnviz_asset_unifont_end[];
extern const char attnviz_asset_viridis_begin[];
extern const char attnviz_asset_viridis_end[];
}

namespace attnviz {

std::string_view asset_unifont_hex() {
  return {attnviz_asset_unifont_begin,
          static_cast<std::size_t>(attnviz_asset_unifont_end - attnviz_asset_unifont_begin)};
}

std::string_view asset_viridis_csv() {
  return {attnviz_asset_viridis_begin,
          static_cast<std::size_t>(attnviz_asset_viridis_end - attnviz_asset_viridis_begin)};
}

}  // namespace attnviz
