#include "render/npy_result.h"

#include <filesystem>
#include <vector>

#include "io/npy.h"

namespace attnviz {
namespace {

// The heads' matrices of one kind stacked as [H, rows, cols].
std::string stacked(const attention_result& r, matrix head_result::*which) {
  const matrix& first = r.heads.front().*which;
  std::vector<float> all;
  all.reserve(r.heads.size() * first.size());
  for (const head_result& h : r.heads) {
    const matrix& m = h.*which;
    all.insert(all.end(), m.data(), m.data() + m.size());
  }
  return npy_float32({r.heads.size(), first.rows(), first.cols()}, all.data());
}

std::string lines(const std::vector<std::string>& tokens) {
  std::string s;
  for (const auto& t : tokens) s += t + "\n";
  return s;
}

}  // namespace

void add_npy_files(output_batch& out, const std::string& dir, const attention_result& result) {
  const std::filesystem::path d(dir);
  const auto at = [&](const char* name) { return (d / name).string(); };
  if (result.heads.empty()) return;
  out.add(at("weights.npy"), stacked(result, &head_result::weights));
  if (!result.heads.front().scores.empty())
    out.add(at("scores.npy"), stacked(result, &head_result::scores));
  out.add(at("context.npy"), stacked(result, &head_result::context));
  if (!result.output.empty())
    out.add(at("output.npy"),
            npy_float32({result.output.rows(), result.output.cols()}, result.output.data()));
  out.add(at("query_tokens.txt"), lines(result.query_tokens));
  out.add(at("key_tokens.txt"), lines(result.key_tokens));
}

}  // namespace attnviz
