#include "tensor.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <mutex>
#include <utility>

#if defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#endif
#include <cmath>
#include <stdexcept>

namespace attnviz {

namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t line_bytes = 64;
constexpr std::size_t cache_limit = std::size_t{2} << 30;

// glibc serves blocks above 128 KiB (a threshold that adapts up to 32 MiB) with fresh mmap'ed
// pages and unmaps them on free, so each matrix of a few MiB (an n × d projection, a copy of
// W) was page-faulted in again on every call: at n = 128, d = 768 that was half the time of a
// run (20 ms against 10 ms, bench --threads 1). Heap blocks up to 8 MiB, returned to the system
// only past 256 MiB of free heap, stay in the process; matrices of 2 MiB or more use the block
// cache below instead, in 2 MiB pages. Heap pages are 4 KiB, and a fault on one cost about 14 us
// on a 2-vCPU KVM guest (membw's fresh_alloc_write: 0.3 GB/s): GPT-2's whole run at n = 1,024,
// whose 3 MiB activations (n × d) were heap blocks, 0.72-0.75 s -> 0.68-0.70 s with them in
// 2 MiB pages (peak RSS +5 MiB).
#if defined(__linux__) && defined(M_MMAP_THRESHOLD)
[[maybe_unused]] const bool allocation_policy = [] {
  mallopt(M_MMAP_THRESHOLD, 8 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  return true;
}();
#endif

struct block_cache {
  std::mutex lock;
  std::vector<std::pair<void*, std::size_t>> blocks;  // pointer, rounded size
  std::size_t total = 0;
};

// Deliberately never destroyed: a matrix released during static destruction still finds it;
// the process's exit returns the cached blocks.
block_cache& cache() {
  static block_cache* c = new block_cache;
  return *c;
}

std::size_t rounded_size(std::size_t bytes) {
  return (bytes + huge_page - 1) / huge_page * huge_page;
}

}  // namespace

void* matrix_allocate_bytes(std::size_t bytes) {
  if (bytes < huge_page) {
    // On a cache line: the kernels read packed panels of B (float_buffer, often under 2 MiB)
    // with 64-byte loads, and malloc's 16-byte alignment had every one of them straddle two
    // lines. Measured on a Xeon guest (AVX-512, one thread, 1024 x 3072 x 768): 176-178 ->
    // 202-205 GFLOP/s (bench/RESULTS.md, 2026-12-01, fourth).
    void* p = std::aligned_alloc(
        line_bytes, std::max(line_bytes, (bytes + line_bytes - 1) / line_bytes * line_bytes));
    if (!p) throw std::bad_alloc();
    return p;
  }
  const std::size_t rounded = rounded_size(bytes);
  {
    block_cache& c = cache();
    std::lock_guard<std::mutex> guard(c.lock);
    for (auto it = c.blocks.begin(); it != c.blocks.end(); ++it)
      if (it->second == rounded) {
        void* p = it->first;
        c.total -= rounded;
        c.blocks.erase(it);
        return p;
      }
  }
  void* p = std::aligned_alloc(huge_page, rounded);
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
  return p;
}

void matrix_release_bytes(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  if (bytes >= huge_page) {
    const std::size_t rounded = rounded_size(bytes);
    block_cache& c = cache();
    std::lock_guard<std::mutex> guard(c.lock);
    if (c.total + rounded <= cache_limit) {
      c.blocks.emplace_back(p, rounded);
      c.total += rounded;
      return;
    }
  }
  std::free(p);
}

matrix::matrix(std::size_t rows, std::size_t cols, std::vector<float> data)
    : rows_(rows), cols_(cols), data_(data.begin(), data.end()) {
  if (data_.size() != rows_ * cols_) throw std::logic_error("matrix: data size != rows*cols");
}

matrix matrix::uninitialized(std::size_t rows, std::size_t cols) {
  matrix m;
  m.rows_ = rows;
  m.cols_ = cols;
  m.data_.resize(rows * cols);  // default-initialised floats: no writes
  return m;
}

matrix matrix::columns(std::size_t first, std::size_t count) const {
  assert(first + count <= cols_);
  matrix out(rows_, count);
  for (std::size_t r = 0; r < rows_; ++r)
    for (std::size_t c = 0; c < count; ++c) out(r, c) = (*this)(r, first + c);
  return out;
}

double dot(const float* a, const float* b, std::size_t n) noexcept {
  double s = 0.0;
  for (std::size_t t = 0; t < n; ++t) s += static_cast<double>(a[t]) * b[t];
  return s;
}

double l2_norm(const float* a, std::size_t n) noexcept {
  return std::sqrt(dot(a, a, n));
}

matrix matmul_nt_ref(const matrix& a, const matrix& b) {
  if (a.cols() != b.cols()) throw std::logic_error("matmul_nt_ref: inner sizes differ");
  matrix c(a.rows(), b.rows());
  for (std::size_t i = 0; i < a.rows(); ++i)
    for (std::size_t j = 0; j < b.rows(); ++j)
      c(i, j) = static_cast<float>(dot(a.row(i), b.row(j), a.cols()));
  return c;
}

matrix matmul_nn_ref(const matrix& a, const matrix& b) {
  if (a.cols() != b.rows()) throw std::logic_error("matmul_nn_ref: inner sizes differ");
  matrix c(a.rows(), b.cols());
  std::vector<double> acc(b.cols());
  for (std::size_t i = 0; i < a.rows(); ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (std::size_t t = 0; t < a.cols(); ++t) {
      const double a_it = a(i, t);
      const float* b_t = b.row(t);
      for (std::size_t j = 0; j < b.cols(); ++j) acc[j] += a_it * b_t[j];
    }
    for (std::size_t j = 0; j < b.cols(); ++j) c(i, j) = static_cast<float>(acc[j]);
  }
  return c;
}

void add_row_bias(matrix& m, const std::vector<float>& bias) {
  if (bias.size() != m.cols()) throw std::logic_error("add_row_bias: size mismatch");
  for (std::size_t r = 0; r < m.rows(); ++r)
    for (std::size_t c = 0; c < m.cols(); ++c) m(r, c) += bias[c];
}

}  // namespace attnviz
