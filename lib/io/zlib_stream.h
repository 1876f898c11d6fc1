// A zlib stream (RFC 1950: a 2-byte header, DEFLATE data, an Adler-32) of some bytes, through
// zlib's compress2: what PDF streams and the explorer page's maps hold.
#pragma once

#include <string>

namespace attnviz {

// level: 0 (stored) to 9 (smallest); 6 is zlib's default.
std::string zlib_stream(const std::string& bytes, int level = 6);

}  // namespace attnviz
