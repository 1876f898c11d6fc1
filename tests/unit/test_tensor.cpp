#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "helpers.h"
#include "tensor.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;

TEST_CASE("matmul_nt_ref multiplies by the transpose (hand-worked 2x3)") {
  // A = [[1,2],[3,4]], B = [[1,0],[0,1],[1,1]] -> A Bᵀ = [[1,2,3],[3,4,7]]
  const matrix c = matmul_nt_ref(mat(2, 2, {1, 2, 3, 4}), mat(3, 2, {1, 0, 0, 1, 1, 1}));
  CHECK(c.rows() == 2);
  CHECK(c.cols() == 3);
  check_close(c, {1, 2, 3, 3, 4, 7});
}

TEST_CASE("matmul_nn_ref multiplies (hand-worked 2x3 by 3x2)") {
  // [[1,2,3],[4,5,6]] · [[1,0],[0,1],[1,1]] = [[4,5],[10,11]]
  const matrix c = matmul_nn_ref(mat(2, 3, {1, 2, 3, 4, 5, 6}), mat(3, 2, {1, 0, 0, 1, 1, 1}));
  check_close(c, {4, 5, 10, 11});
}

TEST_CASE("matrices of 2 MiB or more sit on 2 MiB boundaries (offered as huge pages)") {
  const std::size_t two_mib = std::size_t{2} << 20;
  for (const std::size_t bytes : {two_mib, 3 * two_mib / 2 + 4, 3 * two_mib}) {
    void* p = matrix_allocate_bytes(bytes);
    CHECK(reinterpret_cast<std::uintptr_t>(p) % two_mib == 0);
    static_cast<char*>(p)[bytes - 1] = 1;  // the whole size is usable
    matrix_release_bytes(p, bytes);
  }
  const matrix activations(1024, 768);  // GPT-2's n × d at n = 1,024: 3 MiB
  CHECK(reinterpret_cast<std::uintptr_t>(activations.data()) % two_mib == 0);
}

TEST_CASE("smaller blocks start on a 64-byte line (the kernels' packed panels of B)") {
  // malloc's 16 bytes would have many of them straddle lines, so look at several at once
  std::vector<void*> blocks;
  const std::size_t sizes[] = {0, 1, 4, 100, 4096 + 4, 786432, (std::size_t{2} << 20) - 4};
  for (int round = 0; round < 4; ++round)
    for (const std::size_t bytes : sizes) {
      void* p = matrix_allocate_bytes(bytes);
      CHECK(reinterpret_cast<std::uintptr_t>(p) % 64 == 0);
      if (bytes > 0) static_cast<char*>(p)[bytes - 1] = 1;  // the whole size is usable
      blocks.push_back(p);
    }
  for (std::size_t i = 0; i < blocks.size(); ++i)
    matrix_release_bytes(blocks[i], sizes[i % (sizeof sizes / sizeof sizes[0])]);
  const matrix row(1, 3);
  CHECK(reinterpret_cast<std::uintptr_t>(row.data()) % 64 == 0);
}

TEST_CASE("columns, bias, dot and norm") {
  const matrix m = mat(2, 3, {1, 2, 3, 4, 5, 6});
  check_close(m.columns(1, 2), {2, 3, 5, 6});
  matrix b = m;
  add_row_bias(b, {1, 0, -1});
  check_close(b, {2, 2, 2, 5, 5, 5});
  const float x[] = {3, 4};
  CHECK(l2_norm(x, 2) == doctest::Approx(5.0));
  CHECK(dot(x, x, 2) == doctest::Approx(25.0));
  CHECK_THROWS(matmul_nt_ref(mat(1, 2, {1, 2}), mat(1, 3, {1, 2, 3})));
}
