// The explorer page's blobs read back another way (base64 and zlib's own uncompress): f32 gives
// the floats bit for bit, u16 every weight within 1/131070; the thumbnails' means; a page past
// the limit refused naming its stacks.
#include <doctest/doctest.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "error.h"
#include "helpers.h"
#include "io/base64.h"
#include "render/model_page.h"
#include "render/model_view.h"
#include "render/page_blobs.h"

using namespace attnviz;

namespace {

std::vector<unsigned char> unpack(const std::string& text, std::size_t size) {
  std::string packed;
  REQUIRE(decode_base64(text, packed));
  std::vector<unsigned char> out(size);
  uLongf got = size;
  REQUIRE(uncompress(out.data(), &got, reinterpret_cast<const Bytef*>(packed.data()),
                     packed.size()) == Z_OK);
  REQUIRE(got == size);
  return out;
}

}  // namespace

TEST_CASE("f32 blobs hold every float bit for bit, in byte planes") {
  const std::vector<float> v{0.0f, 1.0f, 0.125f, 3.0e-8f, 0.999999f, 0.3333333f};
  const auto planes = unpack(page_blob(v.data(), v.size(), page_encoding::f32), v.size() * 4);
  for (std::size_t k = 0; k < v.size(); ++k) {
    std::uint32_t bits = 0;
    for (std::size_t b = 0; b < 4; ++b) bits |= std::uint32_t{planes[b * v.size() + k]} << (8 * b);
    float x = 0.0f;
    std::memcpy(&x, &bits, 4);
    CHECK(x == v[k]);
  }
}

TEST_CASE("u16 blobs hold every weight within 1/131070") {
  const matrix m = attnviz::testing::random_matrix(1, 5000, 4);
  std::vector<float> v(m.data(), m.data() + m.size());
  for (float& x : v) x = std::fabs(x);
  v[0] = 0.0f;
  v[1] = 1.0f;
  const auto planes = unpack(page_blob(v.data(), v.size(), page_encoding::u16), v.size() * 2);
  double worst = 0.0;
  for (std::size_t k = 0; k < v.size(); ++k) {
    const double q = planes[k] + 256.0 * planes[v.size() + k];
    worst = std::max(worst, std::fabs(q / 65535.0 - v[k]));
  }
  CHECK(worst <= 1.0 / 131070.0 + 1e-12);
  CHECK(planes[0] == 0);
  CHECK(planes[1] == 255);
  CHECK(planes[v.size() + 1] == 255);
}

TEST_CASE("a thumbnail's pixel is the mean of the visible cells it covers") {
  // 4 × 4 causal map of entries 10 i + j; a 2 × 2 thumbnail
  std::vector<float> a(16);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j) a[i * 4 + j] = static_cast<float>(10 * i + j);
  const std::vector<double> t = thumbnail_means(a.data(), 4, 4, true, 2);
  CHECK(t[0] == doctest::Approx((0.0 + 10 + 11) / 3));       // rows 0-1, cols 0-1: j <= i
  CHECK(std::isnan(t[1]));                                   // rows 0-1, cols 2-3: all hidden
  CHECK(t[2] == doctest::Approx((20.0 + 21 + 30 + 31) / 4));
  CHECK(t[3] == doctest::Approx((22.0 + 32 + 33) / 3));
  // more pixels than cells: each pixel one cell
  const std::vector<double> big = thumbnail_means(a.data(), 4, 4, false, 8);
  CHECK(big[7 * 8 + 7] == 33.0);
  CHECK(big[0] == 0.0);
}

TEST_CASE("a page past the limit is refused, naming its stacks") {
  page_stack enc, cross;
  enc.name = "encoder";
  enc.layers = 12;
  enc.heads = 16;
  enc.n = 700;
  cross = enc;
  cross.name = "cross";
  cross.n_keys = 800;
  CHECK(page_weights({enc, cross}) == 12u * 16 * 700 * 700 + 12u * 16 * 700 * 800);
  CHECK_THROWS_WITH_AS(check_model_page_size({enc, cross}),
                       doctest::Contains("cross 12 × 16 × 700 × 800"), usage_error);
  enc.n = 100;
  cross.n = 100;
  CHECK_NOTHROW(check_model_page_size({enc, cross}));
}
