#include "jobs/product_bench_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "error.h"
#include "jobs/bench_stats.h"
#include "params/rng.h"
#include "stage_times.h"

namespace attnviz {
namespace {

constexpr std::size_t FRESH_BYTES = std::size_t{256} << 20;  // the copies of B together

// Copies of B (n×k elements of `bytes` each) filled from one seeded stream: floats uniform in
// [-1, 1), BF16 their top halves, F16 built from random bits with exponents 10-14 (magnitudes
// in [2^-5, 1)). Returned as raw bytes, copy after copy.
std::vector<unsigned char> fill_b(const product_bench_config& c, std::size_t copies,
                                  std::size_t bytes) {
  splitmix64 rng(c.seed, "bench.product.b");
  const std::size_t count = c.n * c.k, one = count * bytes;
  std::vector<unsigned char> out(one * copies);
  for (std::size_t i = 0; i < count; ++i) {
    const auto f = static_cast<float>(rng.uniform(1.0));
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    if (c.weights == kernels::element_type::f32) {
      std::memcpy(out.data() + i * 4, &bits, 4);
      continue;
    }
    std::uint16_t h = static_cast<std::uint16_t>(bits >> 16);  // BF16: the float's top half
    if (c.weights == kernels::element_type::f16)
      h = static_cast<std::uint16_t>((bits >> 31) << 15 | (10 + (bits >> 8) % 5) << 10 |
                                     (bits & 0x3ffu));
    std::memcpy(out.data() + i * 2, &h, 2);
  }
  for (std::size_t copy = 1; copy < copies; ++copy)
    std::memcpy(out.data() + copy * one, out.data(), one);
  return out;
}

std::string hash_hex(const std::vector<float>& c) {
  std::string_view bytes(reinterpret_cast<const char*>(c.data()), c.size() * sizeof(float));
  return fmt::format("{:016x}", fnv1a64(bytes));
}

// Median and quartiles (nearest rank) of the paired speeds.
void summarise(product_bench_blocking& b, std::vector<double> speeds, double gflop) {
  b.median_s = median_of(b.seconds);
  b.gflops = b.median_s > 0 ? gflop / b.median_s : 0.0;
  std::sort(speeds.begin(), speeds.end());
  const std::size_t q = speeds.size() / 4;
  b.speed_median = median_of(speeds);
  b.speed_q1 = speeds[q];
  b.speed_q3 = speeds[speeds.size() - 1 - q];
}

}  // namespace

void parse_product_shape(const std::string& text, product_bench_config& config) {
  std::size_t dims[3] = {0, 0, 0}, i = 0, at = 0;
  for (; i < 3 && at <= text.size(); ++i) {
    const std::size_t end = i < 2 ? text.find('x', at) : text.size();
    const std::string part = text.substr(at, end == std::string::npos ? 0 : end - at);
    if (end == std::string::npos || part.empty() || part.size() > 6 ||
        part.find_first_not_of("0123456789") != std::string::npos || std::stoul(part) == 0)
      throw usage_error(
          fmt::format("{} '{}' is not MxNxK (three sizes from 1 to 999999, as in "
                      "1024x3072x768)",
                      param("product"), text));
    dims[i] = std::stoul(part);
    at = end + 1;
  }
  config.m = dims[0];
  config.n = dims[1];
  config.k = dims[2];
}

product_bench_report product_bench_job(const product_bench_config& config) {
  if (config.rounds == 0) throw usage_error(param("rounds") + " must be at least 1");
  if (config.blockings.empty()) throw usage_error(param("blockings") + " names none");
  const std::string started = kernels::active_blocking().forced;
  for (const std::string& spec : config.blockings)  // every spec checked before any timing
    kernels::use_blocking(spec.empty() ? started : spec);
  kernels::use_blocking(started);

  product_bench_report report;
  report.threads = kernels::threads();
  report.isa = std::string(kernels::active_isa());
  report.gflop =
      2.0 * static_cast<double>(config.m * config.n) * static_cast<double>(config.k) / 1e9;
  const std::size_t bytes = config.weights == kernels::element_type::f32 ? 4 : 2;
  const std::size_t one_b = config.n * config.k * bytes;
  report.b_copies = std::max<std::size_t>(1, (FRESH_BYTES + one_b - 1) / one_b);
  const std::vector<unsigned char> b = fill_b(config, report.b_copies, bytes);
  std::vector<float> a(config.m * config.k), c(config.m * config.n, 0.0f);
  splitmix64 rng(config.seed, "bench.product.a");
  for (float& v : a) v = static_cast<float>(rng.uniform(1.0));

  std::size_t call = 0;
  const auto product = [&] {
    const unsigned char* bp = b.data() + (call++ % report.b_copies) * one_b;
    kernels::gemm(config.m, config.n, config.k, 1.0f, a.data(), config.k, bp, config.weights,
                  config.k, true, 0.0f, c.data(), config.n);
  };
  const std::size_t count = config.blockings.size();
  report.blockings.resize(count);
  std::vector<std::vector<double>> speeds(count);
  for (std::size_t round = 0; round < config.warmup + config.rounds; ++round) {
    for (std::size_t i = 0; i < count; ++i) {
      product_bench_blocking& r = report.blockings[i];
      kernels::use_blocking(config.blockings[i].empty() ? started : config.blockings[i]);
      stage_clock clock;
      product();
      const double seconds = clock.lap();
      if (round < config.warmup) continue;
      r.seconds.push_back(seconds);
      speeds[i].push_back(report.blockings[0].seconds.back() / seconds);
      if (round + 1 == config.warmup + config.rounds) {
        r.spec = config.blockings[i];
        r.sizes = kernels::active_blocking();
        r.plan = kernels::plan_product(config.m, config.n, config.k, report.threads);
        r.c_fnv1a = hash_hex(c);
      }
    }
  }
  kernels::use_blocking(started);
  for (std::size_t i = 0; i < count; ++i) summarise(report.blockings[i], speeds[i], report.gflop);
  return report;
}

}  // namespace attnviz
