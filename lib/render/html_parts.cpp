#include "render/html_parts.h"

#include <fmt/format.h>

#include <cstdlib>

#include "io/base64.h"
#include "render/font_subset.h"
#include "text/utf8.h"

namespace attnviz {

std::string escape_html(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string script_safe(std::string json) {
  for (std::size_t pos = json.find("</"); pos != std::string::npos; pos = json.find("</", pos))
    json.replace(pos, 2, "<\\/");
  return json;
}

nlohmann::ordered_json colormap_json(const colormap& c) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < c.size(); ++i) {
    const rgb e = c.entry(i);
    out.push_back(fmt::format("#{:02x}{:02x}{:02x}", e.r, e.g, e.b));
  }
  return out;
}

namespace {

// What every page's style starts with: the text, the title block, the row of selectors, the
// scrolling box of a large map, the footer.
constexpr const char* base_style = R"(
body{font:14px/1.45 AttnVizUnifont,system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:20px;margin:0 0 2px}
.sub{color:#666;margin:0 0 14px}
.controls{display:flex;gap:18px;flex-wrap:wrap;margin-bottom:12px}
.controls label{display:flex;gap:6px;align-items:center}
.controls label[hidden]{display:none}
.scroll{max-width:min(100%,960px);max-height:80vh;overflow:auto}
footer{margin-top:22px;color:#888;font-size:12px})";

}  // namespace

std::string html_head(const std::string& title, const char* style) {
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; font-src data:\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page += fmt::format("<title>{}</title>\n<style>{}{}</style>\n</head>\n<body>\n",
                      escape_html(title), base_style, style);
  return page;
}

std::string html_title_block(const std::string& title, const std::string& subtitle) {
  return fmt::format("<h1>{}</h1>\n<p class=\"sub\">{}</p>\n", escape_html(title),
                     escape_html(subtitle));
}

double page_number(float x) { return std::strtod(fmt::format("{:.6g}", x).c_str(), nullptr); }

std::string html_tail(const nlohmann::ordered_json& data, const char* script,
                      const std::string& blobs) {
  std::string page =
      "<footer>Made by attn-viz; everything on this page is in this one file and it makes no "
      "network request.</footer>\n";
  page += blobs;
  page += "<script type=\"application/json\" id=\"attnviz-data\">" +
          script_safe(data.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) +
          "</script>\n";
  // the page's script runs once the embedded font (when there is one) is ready, so the canvases
  // draw their labels with it; then <html data-ready="1">
  page += fmt::format(
      "<script>(function () {{\nfunction run() {{{}\ndocument.documentElement.setAttribute("
      "\"data-ready\", \"1\");\nwindow.attnvizReadyAt = performance.now();\n}}\nvar font = document.getElementById(\"attnviz-font\");\n"
      "if (font && document.fonts && document.fonts.load) document.fonts.load(\"16px {}\")"
      ".then(run, run);\nelse run();\n}})();</script>\n</body>\n</html>\n",
      script, label_font_family);
  return page;
}

std::string with_label_font(std::string page) {
  std::u32string used;
  for (char32_t cp : decode_utf8_lossy(page))
    if (cp > 0x7e) used += cp;
  if (used.empty()) return page;
  const std::string face = fmt::format(
      "<style id=\"attnviz-font\">@font-face{{font-family:{};src:url(data:font/ttf;base64,{}) "
      "format(\"truetype\")}}</style>\n",
      label_font_family, base64(unifont_subset_ttf(used)));
  const std::size_t at = page.find("</head>");
  if (at != std::string::npos) page.insert(at, face);
  return page;
}

}  // namespace attnviz
