#include "io/zlib_stream.h"

#include <zlib.h>

#include <stdexcept>

namespace attnviz {

std::string zlib_stream(const std::string& bytes, int level) {
  uLongf size = compressBound(static_cast<uLong>(bytes.size()));
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size,
                reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size()),
                level) != Z_OK)
    throw std::runtime_error("zlib_stream: compress2 failed");
  out.resize(size);
  return out;
}

}  // namespace attnviz
