// A small row-major float matrix and the few reference kernels the pipeline needs.
//
// Shape letters used across lib/: n_q queries, n_k keys, d (model / embedding size),
// d_k (query-key size), d_v (value size), d_a (hidden size of additive / concat scores).
#pragma once

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace attnviz {

// Every block starts on a 64-byte cache line; blocks of 2 MiB or more on a 2 MiB page.
void* matrix_allocate_bytes(std::size_t bytes);
void matrix_release_bytes(void* p, std::size_t bytes) noexcept;

// Storage for matrix values: elements are left uninitialised unless a value is given (so a
// kernel that writes every element does not pay for zeroing first), and blocks of 2 MiB or
// more are 2 MiB-aligned, rounded up to whole 2 MiB, and offered to the kernel as transparent
// huge pages (far fewer page faults when an n × n map or an n × d activation is first written:
// GPT-2's 3 MiB activations at n = 1,024 took 768 faults each, and a whole run 4,500 → 1,100).
template <class T>
struct matrix_allocator {
  using value_type = T;
  matrix_allocator() = default;
  template <class U>
  matrix_allocator(const matrix_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(matrix_allocate_bytes(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { matrix_release_bytes(p, n * sizeof(T)); }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const matrix_allocator&, const matrix_allocator&) { return true; }
  friend bool operator!=(const matrix_allocator&, const matrix_allocator&) { return false; }
};
using float_storage = std::vector<float, matrix_allocator<float>>;

class matrix {
 public:
  matrix() = default;
  matrix(std::size_t rows, std::size_t cols, float fill = 0.0f)
      : rows_(rows), cols_(cols), data_(rows * cols, fill) {}
  matrix(std::size_t rows, std::size_t cols, std::vector<float> data);
  // Every element must be written before it is read.
  static matrix uninitialized(std::size_t rows, std::size_t cols);

  std::size_t rows() const noexcept { return rows_; }
  std::size_t cols() const noexcept { return cols_; }
  std::size_t size() const noexcept { return data_.size(); }
  bool empty() const noexcept { return data_.empty(); }

  float& operator()(std::size_t r, std::size_t c) noexcept { return data_[r * cols_ + c]; }
  float operator()(std::size_t r, std::size_t c) const noexcept { return data_[r * cols_ + c]; }
  float* row(std::size_t r) noexcept { return data_.data() + r * cols_; }
  const float* row(std::size_t r) const noexcept { return data_.data() + r * cols_; }
  float* data() noexcept { return data_.data(); }
  const float* data() const noexcept { return data_.data(); }
  const float_storage& values() const noexcept { return data_; }
  std::vector<float> to_vector() const { return {data_.begin(), data_.end()}; }

  // Columns [first, first + count) as a new matrix.
  matrix columns(std::size_t first, std::size_t count) const;

 private:
  std::size_t rows_ = 0;
  std::size_t cols_ = 0;
  float_storage data_;
};

// The plain products: serial loops (no OpenMP, no SIMD), accumulated in double, rounded once to
// float. They are the references the fast kernels (kernels::matmul_nt / matmul_nn, gemm) are
// tested against, and are called as they are where a product is small and its exact rounding
// is part of the output (location and relative scores, local-p, HAN, AoA: n × d by d × d).
//
// matmul_nt_ref: A (m×k), B (n×k) -> C (m×n),  C_ij = Σ_t A_it B_jt      (C = A Bᵀ)
//   scores Q Kᵀ and projections X Wᵀ with W in torch.nn.Linear layout [out, in].
matrix matmul_nt_ref(const matrix& a, const matrix& b);
// matmul_nn_ref: A (m×k), B (k×n) -> C (m×n),  C_ij = Σ_t A_it B_tj      (C = A B)
matrix matmul_nn_ref(const matrix& a, const matrix& b);
// Adds bias (length = cols) to every row.
void add_row_bias(matrix& m, const std::vector<float>& bias);

double dot(const float* a, const float* b, std::size_t n) noexcept;
double l2_norm(const float* a, std::size_t n) noexcept;

}  // namespace attnviz
