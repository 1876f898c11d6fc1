// render/font.h: the bundled bitmap font's glyphs and widths.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "render/font.h"
#include "text/utf8.h"

using namespace attnviz;

TEST_CASE("unifont: narrow Latin, wide CJK, a fallback for what it lacks") {
  const bitmap_font& f = bitmap_font::unifont();
  CHECK(f.size() > 50000);
  CHECK(f.get(U'A').width == 8);
  CHECK(f.get(U'机').width == 16);
  CHECK(f.get(U'ж').width == 8);
  CHECK(f.text_width(U"ab机") == 32);
  CHECK_FALSE(f.has(0x10400));      // outside the BMP subset
  CHECK(f.get(0x10400).width > 0);  // drawn as U+FFFD, never a crash
  CHECK(fit_text(U"short", 80, f) == U"short");
  const auto cut = fit_text(U"internationalisation", 80, f);
  CHECK(cut.back() == U'…');
  CHECK(f.text_width(cut) <= 80);
}

TEST_CASE(
    "a .hex text out of order is found by code point; a code point named twice keeps its "
    "last glyph") {
  const std::string narrow_a = "0041:" + std::string(30, '0') + "FF";  // last row lit
  const std::string wide_b = "0042:" + std::string(64, 'F');
  const std::string first_a = "0041:" + std::string(32, '0');  // blank, overridden below
  const bitmap_font f(wide_b + "\n" + first_a + "\n" + narrow_a + "\n0020:" + std::string(32, '0'));
  CHECK(f.size() == 3);
  CHECK(f.has(U'A'));
  CHECK(f.has(U' '));
  CHECK_FALSE(f.has(U'C'));
  CHECK(f.get(U'B').width == 16);
  CHECK(f.get(U'A').width == 8);
  CHECK(f.get(U'A').rows[15] == 0xFF00);
  CHECK(f.get(U'A').rows[0] == 0);
  CHECK(f.get(U'C').width == 8);  // the hollow box: no U+FFFD in this font
  CHECK(f.get(U'C').rows[2] == 0x7e00);
}

TEST_CASE("unifont: every glyph decodes, with the width its line gives") {
  const bitmap_font& f = bitmap_font::unifont();
  std::size_t seen = 0;
  for (char32_t cp = 0; cp <= 0xffff; ++cp) {
    if (!f.has(cp)) continue;
    ++seen;
    const glyph g = f.get(cp);  // throws on a character that is not a hex digit
    REQUIRE(g.width == f.width(cp));
  }
  CHECK(seen == f.size());
  CHECK_THROWS_AS(bitmap_font("0041:" + std::string(31, '0') + "G").get(U'A'), std::runtime_error);
  CHECK_THROWS_AS(bitmap_font("0041:" + std::string(30, '0')), std::runtime_error);
  CHECK_THROWS_AS(bitmap_font("zz:" + std::string(32, '0')), std::runtime_error);
}
