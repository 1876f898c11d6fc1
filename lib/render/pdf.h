// PDF 1.4 of a figure: one page, every item as vector drawing, so editors (Inkscape,
// Illustrator, LaTeX's \includegraphics) take it as is and it prints sharp at any size.
//
//   rect / frame  filled / stroked rectangles          line   a stroked line, its opacity
//   text          text in an embedded font: the subset of the bundled Unifont that the labels
//                 use (font_subset.h, as the HTML pages embed it; glyphs whose outlines are
//                 their pixels), so CJK and every other label look the same in every viewer and
//                 can be selected, searched and copied (a ToUnicode map), at any size
//   image         an RGB image XObject (pooled maps, the model view's thumbnails)
//
// The page is width × height pixels at `dpi` (1 px = 72/dpi pt; 96, the CSS pixel, by
// default). Streams are deflated; the file has no dates, so the same figure gives the same
// bytes.
#pragma once

#include <string>

#include "render/figure.h"

namespace attnviz {

inline constexpr int pdf_default_dpi = 96;

std::string to_pdf(const figure& fig, int dpi = pdf_default_dpi);

}  // namespace attnviz
