#include "text/embedding_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "error.h"
#include "io/file_io.h"
#include "io/mapped_file.h"
#include "params/rng.h"

namespace attnviz {
namespace {

namespace fs = std::filesystem;

constexpr char magic[8] = {'A', 'T', 'T', 'N', 'V', 'I', 'Z', 'C'};
constexpr std::uint32_t version = 1;
constexpr std::size_t fixed_header = 76;  // up to and including the path length

struct source_stamp {
  std::string path;  // absolute
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
};

source_stamp stamp_of(const std::string& path) {
  require_regular_file(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw input_error(path, fmt::format("cannot be read: {}", std::strerror(errno)));
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) abs = path;
  return {abs.lexically_normal().string(), static_cast<std::uint64_t>(st.st_size),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec};
}

std::string cache_file(const std::string& dir, const source_stamp& s) {
  return (fs::path(dir) / fmt::format("{:016x}.avc", fnv1a64(s.path))).string();
}

std::size_t padded(std::size_t n) {
  return (n + 63) / 64 * 64;
}

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
T get(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The rows of a scan, in memory until they are written.
struct scanned {
  std::vector<float> vectors;
  std::vector<std::uint64_t> rows;
  std::vector<std::uint64_t> offsets{0};
  std::string tokens;
};

void write_cache(const std::string& file, const source_stamp& s, const embedding_table& t,
                 const scanned& rows) {
  const std::uint64_t entries = rows.rows.size();
  std::uint64_t buckets = 2;
  while (buckets < 2 * entries) buckets *= 2;
  std::vector<std::uint32_t> table(buckets, 0);
  for (std::uint64_t e = 0; e < entries; ++e) {
    const std::string_view tok(rows.tokens.data() + rows.offsets[e],
                               rows.offsets[e + 1] - rows.offsets[e]);
    std::uint64_t b = fnv1a64(tok) & (buckets - 1);
    while (table[b]) b = (b + 1) & (buckets - 1);
    table[b] = static_cast<std::uint32_t>(e + 1);
  }
  std::string head(magic, sizeof magic);
  put(head, version);
  put(head, static_cast<std::uint32_t>(t.dim));
  put(head, t.rows);
  put(head, entries);
  put(head, t.mean_norm);
  put(head, static_cast<std::uint32_t>(t.format));
  put(head, static_cast<std::uint32_t>(t.compressed));
  put(head, s.size);
  put(head, s.mtime_ns);
  put(head, buckets);
  put(head, static_cast<std::uint32_t>(s.path.size()));
  head += s.path;
  head.resize(padded(head.size()), '\0');

  const std::string tmp = fmt::format("{}.tmp.{}", file, ::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw usage_error(fmt::format("{}: cannot write {}: {}", param("cache"), tmp, std::strerror(errno)));
  auto write = [&](const void* p, std::size_t n) { return std::fwrite(p, 1, n, f) == n; };
  const bool ok = write(head.data(), head.size()) &&
                  write(rows.vectors.data(), rows.vectors.size() * sizeof(float)) &&
                  write(rows.rows.data(), rows.rows.size() * 8) &&
                  write(rows.offsets.data(), rows.offsets.size() * 8) &&
                  write(rows.tokens.data(), rows.tokens.size()) &&
                  write(table.data(), table.size() * 4);
  if (std::fclose(f) != 0 || !ok) {
    std::remove(tmp.c_str());
    throw usage_error(fmt::format("{}: writing {} failed (disk full?)", param("cache"), tmp));
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw usage_error(fmt::format("{}: cannot rename {} to {}", param("cache"), tmp, file));
  }
}

// The table from a mapped cache, or nothing when the cache is stale or does not parse.
std::optional<embedding_table> answer(const mapped_file& m, const source_stamp& s,
                                      const std::string& source_name,
                                      const std::unordered_set<std::string>& wanted,
                                      std::size_t keep_first) {
  const unsigned char* p = m.data();
  if (std::memcmp(p, magic, sizeof magic) != 0 || get<std::uint32_t>(p + 8) != version)
    return std::nullopt;
  const std::uint64_t dim = get<std::uint32_t>(p + 12);
  const auto entries = get<std::uint64_t>(p + 24);
  const auto buckets = get<std::uint64_t>(p + 64);
  const auto path_len = get<std::uint32_t>(p + 72);
  if (get<std::uint64_t>(p + 48) != s.size || get<std::int64_t>(p + 56) != s.mtime_ns ||
      path_len != s.path.size() || fixed_header + path_len > m.size() ||
      std::memcmp(p + fixed_header, s.path.data(), path_len) != 0)
    return std::nullopt;
  // sizes that add up (a cut or foreign file is rebuilt, never read past its end)
  if (dim == 0 || dim > (1u << 20) || entries >= (1ull << 32) || buckets < 2 * entries ||
      (buckets & (buckets - 1)) != 0 || buckets > (1ull << 34))
    return std::nullopt;
  const std::size_t vec_at = padded(fixed_header + path_len);
  const std::size_t rows_at = vec_at + entries * dim * 4;
  const std::size_t off_at = rows_at + entries * 8;
  const std::size_t tok_at = off_at + (entries + 1) * 8;
  if (tok_at > m.size()) return std::nullopt;
  const auto tok_bytes = get<std::uint64_t>(p + off_at + entries * 8);
  const std::size_t bucket_at = tok_at + tok_bytes;
  if (tok_bytes > m.size() || bucket_at + buckets * 4 != m.size()) return std::nullopt;

  embedding_table t;
  t.source = source_name;
  t.dim = dim;
  t.rows = get<std::uint64_t>(p + 16);
  t.mean_norm = get<double>(p + 32);
  if (get<std::uint32_t>(p + 40) > 1 || !std::isfinite(t.mean_norm) || t.mean_norm < 0)
    return std::nullopt;
  t.format = static_cast<embedding_format>(get<std::uint32_t>(p + 40));
  t.compressed = get<std::uint32_t>(p + 44) != 0;
  t.complete = true;
  t.bytes_read = 0;  // nothing of the source was read
  auto token = [&](std::uint64_t e) {
    const auto a = get<std::uint64_t>(p + off_at + e * 8);
    const auto b = get<std::uint64_t>(p + off_at + (e + 1) * 8);
    if (a > b || b > tok_bytes) return std::string_view();
    return std::string_view(reinterpret_cast<const char*>(p + tok_at + a), b - a);
  };
  // A damaged copy must not give NaN vectors (the source never has them): it is rebuilt.
  auto take = [&](std::uint64_t e) {
    std::vector<float> values(dim);
    std::memcpy(values.data(), p + vec_at + e * dim * 4, dim * 4);
    for (float v : values)
      if (!std::isfinite(v)) return false;
    t.vectors.emplace(std::string(token(e)), std::move(values));
    return true;
  };
  for (const auto& w : wanted) {
    std::uint64_t b = fnv1a64(w) & (buckets - 1), probes = 0;
    for (; probes < buckets; ++probes, b = (b + 1) & (buckets - 1)) {
      const auto slot = get<std::uint32_t>(p + bucket_at + b * 4);
      if (slot == 0) break;
      if (slot > entries) return std::nullopt;
      if (token(slot - 1) == w) {
        if (!take(slot - 1)) return std::nullopt;
        break;
      }
    }
    if (probes == buckets) return std::nullopt;  // no empty bucket: not a table this code wrote
  }
  for (std::uint64_t e = 0; e < entries && get<std::uint64_t>(p + rows_at + e * 8) < keep_first;
       ++e)
    if (!t.vectors.count(std::string(token(e))) && !take(e)) return std::nullopt;
  return t;
}

}  // namespace

std::string default_cache_dir() {
  if (const char* d = std::getenv("ATTNVIZ_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d)
    return (fs::path(d) / "attn-viz").string();
  if (const char* d = std::getenv("HOME"); d && *d)
    return (fs::path(d) / ".cache" / "attn-viz").string();
  throw usage_error(param("cache") +
                    ": no cache folder (set ATTNVIZ_CACHE_DIR, XDG_CACHE_HOME or HOME)");
}

namespace {

embedding_table read_or_build_cache(const std::string& path, const source_stamp& s,
                                    const std::unordered_set<std::string>& wanted,
                                    std::size_t keep_first, const std::string& cache_dir,
                                    cache_use* use) {
  const std::string file = cache_file(cache_dir, s);
  if (use) *use = {file, false};
  if (auto m = mapped_file::open(file, fixed_header))
    if (auto t = answer(*m, s, path, wanted, keep_first)) return std::move(*t);

  // Build: scan every row into memory, write, then answer from what was written.
  scanned rows;
  const embedding_table summary = scan_embeddings(
      path, [&](std::string_view token, std::uint64_t row, const std::vector<float>& values) {
        rows.vectors.insert(rows.vectors.end(), values.begin(), values.end());
        rows.rows.push_back(row);
        rows.tokens += token;
        rows.offsets.push_back(rows.tokens.size());
      });
  write_cache(file, s, summary, rows);
  if (use) use->built = true;
  auto m = mapped_file::open(file, fixed_header);
  std::optional<embedding_table> t;
  if (m) t = answer(*m, s, path, wanted, keep_first);
  if (!t) throw std::runtime_error(fmt::format("the cache just written ({}) does not read", file));
  return std::move(*t);
}

}  // namespace

embedding_table read_embeddings_cached(const std::string& path,
                                       const std::unordered_set<std::string>& wanted,
                                       std::size_t keep_first, const std::string& cache_dir,
                                       cache_use* use) {
  const source_stamp s = stamp_of(path);
  // the folders this call makes, deepest last: removed again (when still empty) if it fails
  std::vector<fs::path> made;
  std::error_code ec;
  for (fs::path d = fs::path(cache_dir); !d.empty() && !fs::exists(d, ec); d = d.parent_path()) {
    made.insert(made.begin(), d);
    if (d == d.parent_path()) break;
  }
  fs::create_directories(cache_dir, ec);
  if (!fs::is_directory(cache_dir))
    throw usage_error(fmt::format("{}: cannot make the folder {}", param("cache"), cache_dir));
  try {
    return read_or_build_cache(path, s, wanted, keep_first, cache_dir, use);
  } catch (...) {
    for (auto d = made.rbegin(); d != made.rend(); ++d) ::rmdir(d->c_str());
    throw;
  }
}

embedding_table load_embeddings(const std::string& path,
                                const std::unordered_set<std::string>& wanted,
                                std::size_t keep_first, const std::string& cache_dir) {
  if (cache_dir.empty()) return read_embeddings(path, wanted, keep_first);
  return read_embeddings_cached(path, wanted, keep_first, cache_dir);
}

}  // namespace attnviz
