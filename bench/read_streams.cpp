// Read bandwidth with several streams a thread: the memory ceiling of attn-viz's matrix–vector
// path (a generation step), which reads a group of rows of the weights at once — four streams
// a thread where ../shared/bench/membw.cpp's `read` walks one. Each thread sums its half of a
// 1 GiB float array as S equal segments read side by side; the best of 5 passes after one to
// warm up, for S = 1, 2, 4, 8 and 16.
//
// Build: g++ -O2 -march=native -fopenmp read_streams.cpp -o read_streams
// Output: one line a stream count, "read_streams THREADS STREAMS GB/s".
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

typedef float v8 __attribute__((vector_size(32)));

// Σ of S segments of `len` floats starting `seg` floats apart, a cache line (16 floats, two
// independent sums so the adds' latency does not bound the reads) a step each.
static float sum_segments(const float* p, std::size_t seg, std::size_t len, int streams) {
  v8 acc[16][2] = {};
  for (std::size_t i = 0; i + 16 <= len; i += 16)
    for (int s = 0; s < streams; ++s) {
      v8 x, y;
      std::memcpy(&x, p + s * seg + i, sizeof x);
      std::memcpy(&y, p + s * seg + i + 8, sizeof y);
      acc[s][0] += x;
      acc[s][1] += y;
    }
  float total = 0.0f;
  for (int s = 0; s < streams; ++s)
    for (int l = 0; l < 8; ++l) total += acc[s][0][l] + acc[s][1][l];
  return total;
}

int main() {
  const std::size_t n = std::size_t{1} << 28;  // 1 GiB
  float* p = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
  if (!p) return 1;
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) p[i] = 1.0f;  // touched by the thread that reads it
  const int threads = omp_get_max_threads();
  for (int streams : {1, 2, 4, 8, 16}) {
    double best = 0.0;
    float check = 0.0f;
    for (int pass = 0; pass < 6; ++pass) {
      const auto t0 = std::chrono::steady_clock::now();
      float total = 0.0f;
#pragma omp parallel reduction(+ : total)
      {
        const std::size_t part = n / omp_get_num_threads();
        const std::size_t seg = part / streams / 16 * 16;
        total += sum_segments(p + omp_get_thread_num() * part, seg, seg, streams);
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (pass > 0) best = std::max(best, n * sizeof(float) / s / 1e9);
      check = total;
    }
    std::printf("read_streams %d %d %.1f\n", threads, streams, best);
    if (check <= 0.0f) return 1;  // keeps the sums
  }
  std::free(p);
  return 0;
}
