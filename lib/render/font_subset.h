// A TrueType font made from the bundled Unifont bitmaps, holding only the characters asked for:
// what an HTML page embeds (@font-face, a data: URL) so its labels in any script look the same
// in every browser, whatever fonts the reader has.
//
// Each glyph's pixels become square outlines: a run of set pixels in a row is one rectangle
// (clockwise, on-curve points), 64 font units per pixel, 1024 units per em (a 16 px glyph is
// one em), ascent 14 px and descent 2 px as Unifont draws them; narrow glyphs advance 8 px,
// wide (CJK) 16. Glyph 0 is .notdef (U+FFFD's picture). Tables: cmap (format 4, so code
// points of the Basic Multilingual Plane; others are left out), glyf, head, hhea, hmtx, loca,
// maxp, name, OS/2, post, with their checksums; a fixed creation date, so the same characters
// give the same bytes.
#pragma once

#include <string>
#include <vector>

namespace attnviz {

inline constexpr const char* label_font_family = "AttnVizUnifont";

// The font's bytes for `characters` (duplicates and code points past U+FFFF ignored).
std::string unifont_subset_ttf(const std::u32string& characters);
// The characters that font holds, in glyph order: glyph i + 1 is the i-th (glyph 0 is .notdef,
// U+FFFD's picture, which stands for every other character).
std::vector<char32_t> unifont_subset_order(const std::u32string& characters);

}  // namespace attnviz
