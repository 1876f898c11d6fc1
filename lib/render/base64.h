// Base64 (RFC 4648, with padding) for the data: URLs the SVG and HTML outputs embed.
#pragma once

#include <string>

namespace attnviz {

std::string base64(const std::string& bytes);

}  // namespace attnviz
