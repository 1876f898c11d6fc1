// The cache blocking (kernels.h, struct blocking): sizes derived from the caches by the rules of
// gemm.inc's blocking_of, forced sizes and caches, clear errors for a bad ATTNVIZ_BLOCKING
// entry, and the promise that matters most: every blocking gives the same bytes, for products
// on both of gemm's paths, over float, F16 and BF16 weights, for SwiGLU's fused product and for
// the fused attention kernel.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "error.h"
#include "helpers.h"
#include "kernels/isa_table.h"
#include "kernels/kernels.h"

using namespace attnviz;
using attnviz::testing::for_each_isa;
using attnviz::testing::random_matrix;

namespace blocking_test {

// Restores the machine's blocking however a test ends.
struct machine_blocking_after {
  ~machine_blocking_after() { kernels::use_blocking(""); }
};

// Blockings far from the machine's both ways, and the degenerate smallest sizes.
const char* const blockings[] = {"l1d=16K,l2=128K,l3=1M",
                                 "l1d=32K,l2=512K,l3=32M",
                                 "l2=8M,l3=512M",
                                 "panels=1,panel_depth=1,mc=1,panel_a=1,attention=1",
                                 "panels=8,panel_depth=100000,mc=100000,panel_a=1G,attention=10M",
                                 "panels=3"};

void hide_later(const void*, std::size_t i, float* e, std::size_t n_k) {
  for (std::size_t j = i + 1; j < n_k; ++j) e[j] = -std::numeric_limits<float>::infinity();
}
void later_span(const void*, std::size_t i, std::size_t n_k, std::size_t* first, std::size_t* end) {
  *first = 0;
  *end = i + 1 < n_k ? i + 1 : n_k;
}

// Every output of one round: products on the panel path (37 rows) and past it (600 and 1100
// rows, which a small panel_a moves to the packed path), float and 16-bit B, both layouts; and
// a causal 2-head attention with scores kept and one streamed.
std::vector<float> outputs() {
  std::vector<float> out;
  // n = 530: 34 panels of 16 (AVX2) or 67 of 8 (generic): on 2 threads groups of 3 or 7
  // panels (panel_group) and a ragged last group; k = 700: chunks of panel_depth and a partial
  // kc block.
  const std::size_t n = 530, k = 700;
  for (std::size_t m : {std::size_t{37}, std::size_t{600}, std::size_t{1100}})
    for (bool trans : {false, true}) {
      const matrix a = random_matrix(m, k, 31);
      const matrix b = trans ? random_matrix(n, k, 32) : random_matrix(k, n, 32);
      std::vector<float> c(m * n, 0.5f);
      kernels::gemm(m, n, k, 0.75f, a.data(), k, b.data(), b.cols(), trans, 0.25f, c.data(), n);
      out.insert(out.end(), c.begin(), c.end());
      std::vector<std::uint16_t> half(b.size());
      for (std::size_t i = 0; i < half.size(); ++i) {  // the float's high half
        std::uint32_t bits;
        std::memcpy(&bits, b.data() + i, sizeof bits);
        half[i] = static_cast<std::uint16_t>(bits >> 16);
      }
      kernels::gemm(m, n, k, 1.0f, a.data(), k, half.data(), kernels::element_type::bf16, b.cols(),
                    trans, 0.0f, c.data(), n);
      out.insert(out.end(), c.begin(), c.end());
      if (!trans) continue;
      // SwiGLU's fused product (gated.inc): B as the gate, its BF16 copy as the up projection
      kernels::b_operand gate, up;
      gate.data = b.data();
      up.data = half.data();
      up.type = kernels::element_type::bf16;
      gate.ldb = up.ldb = k;
      kernels::gemm_swiglu(m, n, k, a.data(), k, gate, up, c.data(), n);
      out.insert(out.end(), c.begin(), c.end());
      up.data = b.data();
      up.type = kernels::element_type::f32;
      kernels::gemm_swiglu(m, n, k, a.data(), k, gate, up, c.data(), n);
      out.insert(out.end(), c.begin(), c.end());
    }
  const std::size_t heads = 2, n_q = 300, n_k = 300, d = 24;
  const matrix q = random_matrix(n_q, heads * d, 33), kk = random_matrix(n_k, heads * d, 34),
               v = random_matrix(n_k, heads * d, 35);
  std::vector<float> scores(heads * n_q * n_k), weights(n_q * n_k), context(heads * n_q * d);
  float* sp[] = {scores.data(), scores.data() + n_q * n_k};
  float* wp[] = {weights.data(), nullptr};  // head 1's weights streamed, not kept
  float* cp[] = {context.data(), context.data() + n_q * d};
  kernels::attention_args args;
  args.heads = heads;
  args.n_q = n_q;
  args.n_k = n_k;
  args.d_k = args.d_v = d;
  args.q = q.data();
  args.k = kk.data();
  args.v = v.data();
  args.ldq = args.ldk = args.ldv = heads * d;
  args.ldc = d;
  args.scale = 0.2f;
  args.mask_row = hide_later;
  args.mask_span = later_span;
  args.mask_is_span = true;
  args.weights = wp;
  args.context = cp;
  REQUIRE(kernels::attention_softmax(args));
  out.insert(out.end(), weights.begin(), weights.end());
  out.insert(out.end(), context.begin(), context.end());
  args.scores = sp;
  args.mask_is_span = false;
  REQUIRE(kernels::attention_softmax(args));
  out.insert(out.end(), scores.begin(), scores.end());
  out.insert(out.end(), context.begin(), context.end());
  return out;
}

}  // namespace blocking_test

using namespace blocking_test;

TEST_CASE("every blocking gives the same bytes, on every instruction set and path") {
  machine_blocking_after restore;
  for_each_isa([] {
    kernels::use_blocking("");
    const std::vector<float> machine = outputs();
    for (const char* spec : blockings) {
      INFO("blocking " << spec);
      kernels::use_blocking(spec);
      const std::vector<float> other = outputs();
      REQUIRE(other.size() == machine.size());
      CHECK(std::memcmp(other.data(), machine.data(), machine.size() * sizeof(float)) == 0);
    }
    kernels::use_blocking("");
  });
}

TEST_CASE("the sizes follow the caches: the rules worked by hand for 1 MiB of L2, less with less") {
  machine_blocking_after restore;
  for_each_isa([] {
    kernels::use_blocking("l1d=48K,l2=1M,l3=32M");
    const kernels::blocking big = kernels::active_blocking();
    CHECK(big.caches_from == "blocking");
    CHECK(big.l2 == 1024 * 1024);
    const bool avx512 = std::string(kernels::active_isa()) == "avx512";
    CHECK(big.kc == (avx512 ? 512u : 256u));  // AVX-512's 6 × 64 tile runs twice as deep
    CHECK(big.panel_a_bytes == 8u << 20);
    CHECK(big.attention_floats == 24576);  // 3/32 of 1 MiB
    // panels: as many as fill 256 KiB one kc block deep (at most 8); panel_depth: the group's
    // rows in 256 KiB, a multiple of kc
    if (avx512) {
      CHECK(big.panels == 2);          // 2 × 64 floats × 512 rows × 4 bytes = 256 KiB
      CHECK(big.panel_depth == 512);   // 2 panels × 64 floats × 512 rows = 256 KiB
      CHECK(big.mc == 48);             // 96 KiB of A: 48 rows of 512 floats
    }
    if (std::string(kernels::active_isa()) == "avx2") {
      CHECK(big.panels == 8);         // 16 would fill 256 KiB 256 rows deep; at most 8
      CHECK(big.panel_depth == 512);  // 8 × 16 floats × 512 rows = 256 KiB
    }
    if (std::string(kernels::active_isa()) == "generic") {
      CHECK(big.panels == 8);          // 8-float panels: 32 would fit
      CHECK(big.panel_depth == 1024);  // 8 × 8 floats × 1024 rows = 256 KiB
    }
    kernels::use_blocking("l1d=32K,l2=256K,l3=16M");
    const kernels::blocking small = kernels::active_blocking();
    CHECK(small.panels == (avx512 ? 1u : std::string(kernels::active_isa()) == "avx2" ? 4u : 8u));
    CHECK(small.mc < big.mc);
    CHECK(small.mc > 0);
    CHECK(small.panel_depth <= big.panel_depth);
    CHECK(small.panel_depth % small.kc == 0);
    CHECK(small.attention_floats < big.attention_floats);
    CHECK(small.panel_a_bytes == 4u << 20);
    // Forced sizes win over the caches; the caches stay the machine's.
    kernels::use_blocking("mc=30,panel_a=3M");
    const kernels::blocking forced = kernels::active_blocking();
    CHECK(forced.mc == 30);  // a multiple of every instruction set's 6 rows
    CHECK(forced.panel_a_bytes == 3u << 20);
    CHECK(forced.forced == "mc=30,panel_a=3M");
    CHECK(forced.caches_from != "blocking");
    CHECK(kernels::describe(forced).find("(forced: mc=30,panel_a=3M)") != std::string::npos);
  });
}

TEST_CASE("panel groups: at most the blocking's panels, four groups a thread, shares even") {
  using kernels::panel_group;
  // GPT-2's QKV on AVX-512 (2304 columns, 36 panels of 64), 2 threads: 4 would make nine groups,
  // 20 panels for one thread against 16; 3 makes twelve, 18 each. 2 panels allowed: 2.
  CHECK(panel_group(36, 4, 2) == 3);
  CHECK(panel_group(36, 2, 2) == 2);
  CHECK(panel_group(48, 4, 2) == 4);   // twelve groups of 4: 24 panels each
  CHECK(panel_group(12, 4, 2) == 1);   // 12 / (4 × 2) = 1: one panel a group
  CHECK(panel_group(16, 8, 2) == 2);   // at least four groups a thread: 8 groups of 2
  CHECK(panel_group(128, 1, 2) == 1);  // the blocking allows one
  // 67 panels, up to 8, 2 threads: an even share is 34; 8 gives 40 (5 groups), 7 gives 35
  // (10 groups of 7, the first thread's five are whole), within 1/16 of 34.
  CHECK(panel_group(67, 8, 2) == 7);
  CHECK(panel_group(36, 4, 1) == 4);  // one thread: no share to even out
  CHECK(panel_group(36, 4, 0) == 4);  // 0 threads is taken as 1
  CHECK(panel_group(20, 4, 3) == 1);  // 20 / 12 = 1
  // 3 threads, 96 panels, up to 8: an even share is 32 (allowed 34); 8 gives 12 groups, 4
  // each, 32; 7 gives 14 groups, 5 for the busiest, 35; 8 it is.
  CHECK(panel_group(96, 8, 3) == 8);
  CHECK(panel_group(0, 4, 2) == 1);
}

TEST_CASE("the plan: one row by gemv, few rows or a small A by panel groups, else tiled") {
  machine_blocking_after restore;
  using kernels::product_path;
  for_each_isa([] {
    kernels::use_blocking("panels=4,panel_a=8M");
    const std::string_view isa = kernels::active_isa();
    const std::size_t nr = isa == "avx512" ? 64 : isa == "avx2" ? 16 : 8;
    // GPT-2's QKV, 2304 columns: 36 panels of 64 (groups of 3 on 2 threads, panel_group's
    // first case), 144 of 16 or 288 of 8 (18 or 36 groups of 4 a thread, even).
    const kernels::product_plan qkv = kernels::plan_product(1024, 2304, 768, 2);
    CHECK(qkv.path == product_path::panel);
    CHECK(qkv.nr == nr);
    CHECK(qkv.panels == 2304 / nr);
    CHECK(qkv.group == (nr == 64 ? 3 : 4));
    CHECK(kernels::plan_product(1024, 2304, 768, 1).group == 4);  // one thread: no share
    CHECK(kernels::plan_product(1, 2304, 768, 2).path == product_path::gemv);
    CHECK(kernels::plan_product(1, 2304, 0, 2).path == product_path::panel);  // scales C only
    // A of 1024 × 3072 floats is 12 MiB, over panel_a's 8 MiB: tiled; 512 rows stay (few rows)
    const kernels::product_plan down = kernels::plan_product(1024, 768, 3072, 2);
    CHECK(down.path == product_path::tiled);
    CHECK(down.group == 0);
    CHECK(kernels::plan_product(512, 768, 3072, 2).path == product_path::panel);
    CHECK(kernels::plan_product(100, nr, 64, 2).path == product_path::tiled);  // one panel
    CHECK(kernels::plan_product(0, 8, 8, 2).path == product_path::none);
    CHECK(kernels::plan_product(8, 0, 8, 2).path == product_path::none);
    CHECK(kernels::path_name(product_path::tiled) == "tiled");
  });
}

TEST_CASE("a bad blocking entry is a usage error naming it; the blocking in use is kept") {
  machine_blocking_after restore;
  kernels::use_blocking("");
  const std::string before = kernels::describe(kernels::active_blocking());
  for (const char* bad : {"l2", "l2=", "l2=0", "l2=12X", "l4=1M", "mc=-3", "l2=512K,,mc=6"}) {
    INFO(bad);
    try {
      kernels::use_blocking(bad);
      FAIL("accepted");
    } catch (const usage_error& e) {
      CHECK(std::string(e.what()).find("is not KEY=SIZE") != std::string::npos);
    }
    CHECK(kernels::describe(kernels::active_blocking()) == before);
  }
  kernels::use_blocking("l2=512KB,l3=2g");
  const kernels::blocking b = kernels::active_blocking();
  CHECK(b.l2 == 512 * 1024);
  CHECK(b.l3 == std::size_t{2} << 30);
}

// sysconf's L3 is glibc's cpuid reading, which some hypervisors fill with every die's L3 summed
// (508 MiB on a 2-vCPU Zen 5 guest), and /sys gives a whole package's (105 MiB on a 2-vCPU Xeon
// guest): taken as at most 32 MiB, smaller ones as they are.
TEST_CASE("an L3 that the machine reports is taken as at most 32 MiB") {
  constexpr std::size_t MiB = std::size_t{1} << 20;
  CHECK(kernels::l3_for_blocking(508 * MiB) == 32 * MiB);
  CHECK(kernels::l3_for_blocking(33 * MiB) == 32 * MiB);
  CHECK(kernels::l3_for_blocking(32 * MiB) == 32 * MiB);
  CHECK(kernels::l3_for_blocking(16 * MiB) == 16 * MiB);
  CHECK(kernels::l3_for_blocking(0) == 0);
}
