// render/font.h: the bundled bitmap font's glyphs and widths.
#include <doctest/doctest.h>

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
