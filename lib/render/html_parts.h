// What every --html page shares: text escaped for HTML, JSON made safe inside <script>, a
// colormap as 256 "#rrggbb" strings, and the document's head with its Content Security Policy
// (default-src 'none': the page can make no request) and inline style.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "render/colormap.h"

namespace attnviz {

std::string escape_html(std::string_view s);
// JSON inside <script>: "</" would end the element early, so it is written "<\/" (the same
// string to a JSON parser).
std::string script_safe(std::string json);
nlohmann::ordered_json colormap_json(const colormap& c);
// "<!DOCTYPE html> … <body>\n": charset, the policy, viewport, the title, and the style every
// page shares (text, title block, selectors, a scrolling box, footer) followed by `style`.
std::string html_head(const std::string& title, const char* style);
// "<h1>title</h1><p class="sub">subtitle</p>", escaped.
std::string html_title_block(const std::string& title, const std::string& subtitle);
// A weight or vector entry for a page's data: x to 6 significant digits (the pages show 4
// decimals; the text stays about 8 bytes a number).
double page_number(float x);
// The footer, `blobs` (elements holding binary data as text, page_blobs.h), the data block
// <script type="application/json" id="attnviz-data">, the script and the end of the document.
// The script runs once the label font (with_label_font) is loaded, then sets
// <html data-ready="1"> and window.attnvizReadyAt (milliseconds since the page began loading:
// the time to the first full drawing, as the benchmarks read it).
std::string html_tail(const nlohmann::ordered_json& data, const char* script,
                      const std::string& blobs = {});
// The whole page with the bundled font's glyphs for every character past ASCII it holds
// (font_subset.h) as an @font-face in its head, so labels in any script look the same in every
// browser; the pages' fonts name AttnVizUnifont first (ASCII falls through to the system's).
// A page of ASCII only is returned as is.
std::string with_label_font(std::string page);

}  // namespace attnviz
