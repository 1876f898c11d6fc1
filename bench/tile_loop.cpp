// Where the AVX-512 register tile's k loop loses time: the loop of micro<6> (lib/kernels/gemm.inc,
// 6 rows × 64 columns: per step 4 vector loads of a packed panel of B, 6 broadcasts of A, 24
// FMAs) written out with intrinsics, run over B panels and A strips of several sizes, each timed
// against a loop of the same 24 FMAs on registers only, alternating within each round so that a
// host whose speed drifts still gives the ratios. One thread.
//
//   g++ -O3 -march=native -std=c++17 bench/tile_loop.cpp -o /tmp/tile_loop && /tmp/tile_loop 15
//
// Prints, for each case, the loop's speed over the register-only loop's (median of the rounds,
// lowest-highest). A case's A is `rows` rows `lda` floats apart, run as strips of 6 rows, one
// strip a pass over the panel (as the panel path runs every strip of A over a panel of B). A second
// table runs other register tiles (R rows × 16·V columns, R·V accumulators of the 32 registers)
// over the same A: whether a taller or narrower tile than 6 × 64 loses less to A's broadcasts.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>

namespace {

using clock_type = std::chrono::steady_clock;
float sink;

// Keeps the accumulators alive (GCC 12's _mm512_reduce_add_ps warns from its own header).
template <int N>
void keep(const __m512 (&acc)[N]) {
  alignas(64) float lanes[16];
  for (const __m512& x : acc) {
    _mm512_store_ps(lanes, x);
    for (float f : lanes) sink += f;
  }
}

// 24 accumulators, each step 24 FMAs on registers (the FMA bound of the tile).
__attribute__((noinline)) void registers_only(long steps) {
  __m512 acc[24];
  for (auto& x : acc) x = _mm512_setzero_ps();
  const __m512 b[4] = {_mm512_set1_ps(1e-7f), _mm512_set1_ps(2e-7f), _mm512_set1_ps(3e-7f),
                       _mm512_set1_ps(4e-7f)};
  __m512 a = _mm512_set1_ps(0.5f);
  for (long s = 0; s < steps; ++s) {
    for (int r = 0; r < 6; ++r)
      for (int v = 0; v < 4; ++v) acc[r * 4 + v] = _mm512_fmadd_ps(a, b[v], acc[r * 4 + v]);
    __asm__ volatile("" : "+v"(a));  // a new a each step, as the tile's broadcasts are
  }
  keep(acc);
}

// The tile's loop: passes over a kc × 16V panel of B, strip after strip of R rows of A (per step
// V loads of B, R broadcasts of A, R·V FMAs). micro<6> is R = 6, V = 4.
template <int R, int V>
__attribute__((noinline)) void tile(const float* a0, long lda, long strips, const float* b, long kc,
                                    long passes) {
  __m512 acc[R * V];
  for (auto& x : acc) x = _mm512_setzero_ps();
  for (long pass = 0; pass < passes; ++pass) {
    const float* a = a0 + (pass % strips) * R * lda;
    for (long p = 0; p < kc; ++p) {
      __m512 bv[V];
      for (int v = 0; v < V; ++v) bv[v] = _mm512_load_ps(b + p * V * 16 + v * 16);
      for (int r = 0; r < R; ++r) {
        const __m512 ar = _mm512_set1_ps(a[r * lda + p]);
        for (int v = 0; v < V; ++v) acc[r * V + v] = _mm512_fmadd_ps(ar, bv[v], acc[r * V + v]);
      }
    }
  }
  keep(acc);
}

// A case: B a kc × 16V panel; A `rows` rows `lda` floats apart, run as rows / R strips of R rows.
struct case_shape {
  const char* what;
  long kc, lda, rows;
};

const case_shape CASES[] = {
    {"B 16 KiB (L1), A one strip", 64, 64, 6},
    {"B 128 KiB (L2), A one strip", 512, 512, 6},
    {"B 512 KiB (L2), A one strip", 2048, 2048, 6},
    {"B 2 MiB, A one strip", 8192, 8192, 6},
    {"B 16 MiB, A one strip", 65536, 65536, 6},
    {"B 128 KiB, A 96 rows, lda 768 (in L2)", 512, 768, 96},
    {"B 128 KiB, A 96 rows, lda 3072 (in L2)", 512, 3072, 96},
    {"B 128 KiB, A 1020 rows, lda 768 (3 MiB)", 512, 768, 1020},
    {"B 128 KiB, A 1020 rows, lda 3072 (12 MiB)", 512, 3072, 1020},
};

// What every tile shape runs: the strips of A the panel path reads, in L2 and streamed.
const case_shape SHAPE_CASES[] = {
    {"kc 512, A 96 rows, lda 768 (in L2)", 512, 768, 96},
    {"kc 512, A 1020 rows, lda 768 (3 MiB)", 512, 768, 1020},
    {"kc 512, A 1020 rows, lda 3072 (12 MiB)", 512, 3072, 1020},
    {"kc 256, A 1020 rows, lda 768 (3 MiB)", 256, 768, 1020},
};

template <class F>
double seconds_of(F&& f) {
  const auto t0 = clock_type::now();
  f();
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

constexpr long STEPS = 8'000'000;  // register-only steps: about 0.05 s at 2 GHz, 12 cycles a step

// The R × 16V tile over `count` cases, each round as many FMAs as the register-only loop timed
// just before it; prints each case's speed over that loop's and returns the loop's GFLOP/s a round.
template <int R, int V>
std::vector<double> table(int rounds, const case_shape* cases, std::size_t count, const float* a,
                          const float* b) {
  const long steps = STEPS * 24 / (R * V);
  std::vector<std::vector<double>> ratio(count);
  std::vector<double> peak;
  for (int round = 0; round < rounds; ++round) {
    const double base = seconds_of([&] { registers_only(STEPS); });
    peak.push_back(STEPS * 48.0 * 16 / base / 1e9);
    for (std::size_t i = 0; i < count; ++i) {
      const case_shape& c = cases[i];
      const long strips = std::max(1L, c.rows / R), passes = steps / c.kc;
      tile<R, V>(a, c.lda, strips, b, c.kc, strips);  // warm
      const double t = seconds_of([&] { tile<R, V>(a, c.lda, strips, b, c.kc, passes); });
      ratio[i].push_back(static_cast<double>(passes * c.kc) * R * V / t / (STEPS * 24.0 / base));
    }
  }
  char name[16];
  std::snprintf(name, sizeof name, "%d x %d", R, V * 16);
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<double>& r = ratio[i];
    std::sort(r.begin(), r.end());
    std::printf("%-7s %-44s %.3f of it (%.3f-%.3f)\n", name, cases[i].what, r[r.size() / 2],
                r.front(), r.back());
  }
  return peak;
}

template <int R, int V>
void shape_table(int rounds, const float* a, const float* b) {
  table<R, V>(rounds, SHAPE_CASES, sizeof SHAPE_CASES / sizeof SHAPE_CASES[0], a, b);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  const long b_floats = 65536L * 64, a_floats = 6L * 170 * 3072;
  auto* b = static_cast<float*>(std::aligned_alloc(64, b_floats * sizeof(float)));
  auto* a = static_cast<float*>(std::aligned_alloc(64, a_floats * sizeof(float)));
  for (long i = 0; i < b_floats; ++i) b[i] = 1e-6f * static_cast<float>(i % 7);
  for (long i = 0; i < a_floats; ++i) a[i] = 1e-3f * static_cast<float>(i % 5);
  std::vector<double> peak = table<6, 4>(rounds, CASES, sizeof CASES / sizeof CASES[0], a, b);
  std::sort(peak.begin(), peak.end());
  std::printf("register-only loop, 1 thread: %.1f GFLOP/s (median; %.1f-%.1f)\n",
              peak[peak.size() / 2], peak.front(), peak.back());
  std::puts("other register tiles (rows x columns), each against the register-only loop:");
  shape_table<6, 4>(rounds, a, b);
  shape_table<12, 2>(rounds, a, b);
  shape_table<8, 3>(rounds, a, b);
  shape_table<14, 2>(rounds, a, b);
  std::fprintf(stderr, "(%g)\n", static_cast<double>(sink));
  std::free(a);
  std::free(b);
  return 0;
}
#else
int main() {
  std::puts("tile_loop: built without AVX-512 (-march=native on an AVX-512 CPU)");
  return 0;
}
#endif
