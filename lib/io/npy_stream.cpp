#include "io/npy_stream.h"

#include <filesystem>
#include <utility>

#include "error.h"
#include "io/npy.h"

namespace attnviz {

std::string streamed_folder(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path d(dir);
  std::error_code ec;
  const fs::path parent = d.parent_path().empty() ? fs::path(".") : d.parent_path();
  return fs::is_directory(d, ec) ? d.string() : parent.string();
}

streamed_npy::streamed_npy(std::string path, const std::string& folder,
                           std::vector<std::size_t> shape)
    : path_(std::move(path)) {
  const std::string header = npy_float32_header(shape);
  data_at_ = header.size();
  file_ = std::make_shared<streamed_file>(path_, folder, bytes(shape));
  if (!file_->write_at(0, header.data(), header.size())) throw input_error(path_, file_->error());
}

bool streamed_npy::write(std::uint64_t first, const float* values, std::size_t count) noexcept {
  if (file_->write_at(data_at_ + first * sizeof(float), values, count * sizeof(float))) return true;
  failed_ = true;
  return false;
}

void streamed_npy::check() const {
  if (failed_) throw input_error(path_, file_->error());
}

std::uint64_t streamed_npy::bytes(const std::vector<std::size_t>& shape) {
  std::uint64_t count = 1;
  for (const std::size_t s : shape) count *= s;
  return npy_float32_header(shape).size() + 4 * count;
}

}  // namespace attnviz
