#include "render/pdf.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "io/zlib_stream.h"
#include "render/font.h"
#include "render/font_subset.h"

namespace attnviz {
namespace {

std::string colour(rgb c, const char* op) {
  return fmt::format("{:.4g} {:.4g} {:.4g} {}\n", c.r / 255.0, c.g / 255.0, c.b / 255.0, op);
}

// The objects of one file, numbered from 1 in the order added.
class pdf_objects {
 public:
  int add(std::string body) {
    bodies_.push_back(std::move(body));
    return static_cast<int>(bodies_.size());
  }
  int add_stream(const std::string& dict, const std::string& data) {
    const std::string packed = zlib_stream(data);
    return add(fmt::format("<< {} /Filter /FlateDecode /Length {} >>\nstream\n", dict,
                           packed.size()) +
               packed + "\nendstream");
  }
  void set(int id, std::string body) { bodies_.at(static_cast<std::size_t>(id - 1)) = std::move(body); }

  std::string file(int root) const {
    std::string out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
      offsets.push_back(out.size());
      out += fmt::format("{} 0 obj\n", i + 1) + bodies_[i] + "\nendobj\n";
    }
    const std::size_t xref = out.size();
    out += fmt::format("xref\n0 {}\n0000000000 65535 f \n", bodies_.size() + 1);
    for (std::size_t o : offsets) out += fmt::format("{:010d} 00000 n \n", o);
    out += fmt::format("trailer\n<< /Size {} /Root {} 0 R >>\nstartxref\n{}\n%%EOF\n",
                       bodies_.size() + 1, root, xref);
    return out;
  }

 private:
  std::vector<std::string> bodies_;
};

// The labels' font: the Unifont subset of every character the figure's texts use, as a Type 0
// font (Identity-H: each 2-byte code is a glyph id, glyph i + 1 the i-th character of
// unifont_subset_order), with each glyph's width and a ToUnicode map, so a reader draws the
// same pixels as the PNG and can select, search and copy every label.
struct pdf_font {
  std::unordered_map<char32_t, int> gid;  // the characters the subset holds
  int object = 0;                          // the Type 0 font (0: the figure has no text)
};

std::u32string figure_characters(const figure& fig) {
  std::u32string all;
  for (const auto& it : fig.items())
    if (it.what == fig_item::kind::text) all += it.text;
  return all;
}

// A subset's name tag: six capitals from its characters (the same characters, the same tag).
std::string subset_tag(const std::vector<char32_t>& order) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char32_t cp : order) h = (h ^ cp) * 1099511628211ull;
  std::string tag;
  for (int k = 0; k < 6; ++k, h /= 26) tag += static_cast<char>('A' + h % 26);
  return tag;
}

// /W's widths (1/1000 em; a 16 px glyph is one em) of glyphs 1 … n.
std::string glyph_widths(const std::vector<char32_t>& order) {
  const bitmap_font& font = bitmap_font::unifont();
  std::string w = "[1 [";
  for (const char32_t cp : order) w += fmt::format("{} ", font.width(cp) * 1000 / 16);
  return w + "]]";
}

// Glyph id -> Unicode, 100 entries a block as the CMap format allows.
std::string to_unicode_cmap(const std::vector<char32_t>& order) {
  std::string map =
      "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo << "
      "/Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n/CMapName /Adobe-Identity-UCS "
      "def\n/CMapType 2 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n";
  for (std::size_t at = 0; at < order.size(); at += 100) {
    const std::size_t end = std::min(order.size(), at + 100);
    map += fmt::format("{} beginbfchar\n", end - at);
    for (std::size_t i = at; i < end; ++i)
      map += fmt::format("<{:04X}> <{:04X}>\n", i + 1, static_cast<std::uint32_t>(order[i]));
    map += "endbfchar\n";
  }
  return map + "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n";
}

pdf_font add_font(pdf_objects& objects, const figure& fig) {
  pdf_font f;
  const std::u32string characters = figure_characters(fig);
  if (characters.empty()) return f;
  const std::vector<char32_t> order = unifont_subset_order(characters);
  for (std::size_t i = 0; i < order.size(); ++i) f.gid[order[i]] = static_cast<int>(i + 1);
  const std::string name = subset_tag(order) + "+" + label_font_family;
  const std::string ttf = unifont_subset_ttf(characters);
  const int file = objects.add_stream(fmt::format("/Length1 {}", ttf.size()), ttf);
  const int descriptor = objects.add(fmt::format(
      "<< /Type /FontDescriptor /FontName /{} /Flags 4 /FontBBox [0 -125 1000 875] "
      "/ItalicAngle 0 /Ascent 875 /Descent -125 /CapHeight 875 /StemV 80 /FontFile2 {} 0 R >>",
      name, file));
  const int glyphs = objects.add(fmt::format(
      "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /{} /CIDSystemInfo << /Registry (Adobe) "
      "/Ordering (Identity) /Supplement 0 >> /FontDescriptor {} 0 R /DW {} /W {} "
      "/CIDToGIDMap /Identity >>",
      name, descriptor, bitmap_font::unifont().width(0xfffd) * 1000 / 16, glyph_widths(order)));
  const int unicode = objects.add_stream("", to_unicode_cmap(order));
  f.object = objects.add(fmt::format("<< /Type /Font /Subtype /Type0 /BaseFont /{} /Encoding "
                                     "/Identity-H /DescendantFonts [{} 0 R] /ToUnicode {} 0 R >>",
                                     name, glyphs, unicode));
  return f;
}

// A text item as text: the font at one em = 16 px × scale, its baseline 14 px × scale below the
// top (Unifont's ascent). The page's y runs down, so the text matrix flips y back: horizontal
// text [k 0 0 −k x y + 14s], upward text (read bottom to top) [0 −k −k 0 x + 14s y].
std::string text_ops(const fig_item& it, const pdf_font& f) {
  if (it.text.empty()) return {};
  const int s = it.scale, k = 16 * s;
  std::string codes;
  for (const char32_t cp : it.text) {
    const auto g = f.gid.find(cp);
    codes += fmt::format("{:04X}", g == f.gid.end() ? 0 : g->second);
  }
  const std::string matrix =
      it.dir == text_direction::horizontal
          ? fmt::format("{} 0 0 {} {} {}", k, -k, it.x, it.y + 14 * s)
          : fmt::format("0 {} {} 0 {} {}", -k, -k, it.x + 14 * s, it.y);
  return colour(it.color, "rg") + fmt::format("BT /F1 1 Tf {} Tm <{}> Tj ET\n", matrix, codes);
}

// The page's resource dictionary: its images, opacity states and font (each only when used).
std::string page_resources(const std::string& xobjects, const std::string& states, int font) {
  std::string resources = "<<";
  if (!xobjects.empty()) resources += " /XObject << " + xobjects + ">>";
  if (!states.empty()) resources += " /ExtGState << " + states + ">>";
  if (font) resources += fmt::format(" /Font << /F1 {} 0 R >>", font);
  return resources + " >>";
}

}  // namespace

std::string to_pdf(const figure& fig, int dpi) {
  if (dpi <= 0) throw std::invalid_argument("to_pdf: dpi must be positive");
  pdf_objects objects;
  const int catalog = objects.add("");
  const int pages = objects.add("");
  const int page = objects.add("");

  const double pt = 72.0 / dpi;
  const double page_w = fig.width() * pt, page_h = fig.height() * pt;
  std::string content =
      fmt::format("{:.6g} 0 0 {:.6g} 0 {:.6g} cm\n", pt, -pt, page_h);  // pixels, y down
  content += colour(fig.background(), "rg");
  content += fmt::format("0 0 {} {} re f\n", fig.width(), fig.height());

  const pdf_font font = add_font(objects, fig);
  std::string xobjects, states;
  std::map<int, std::string> opacity_state;  // opacity in 1/1000 -> /G name
  int images = 0;
  for (const auto& it : fig.items()) {
    switch (it.what) {
      case fig_item::kind::rect:
        if (it.w <= 0 || it.h <= 0) break;
        content += colour(it.color, "rg");
        content += fmt::format("{} {} {} {} re f\n", it.x, it.y, it.w, it.h);
        break;
      case fig_item::kind::frame: {
        const double t = it.thickness, half = t / 2.0;
        content += colour(it.color, "RG");
        content += fmt::format("{:g} w {:g} {:g} {:g} {:g} re S\n", t, it.x + half, it.y + half,
                               it.w - t, it.h - t);
        break;
      }
      case fig_item::kind::text:
        content += text_ops(it, font);
        break;
      case fig_item::kind::image: {
        const std::string name = fmt::format("Im{}", images++);
        const int id = objects.add_stream(
            fmt::format("/Type /XObject /Subtype /Image /Width {} /Height {} /ColorSpace "
                        "/DeviceRGB /BitsPerComponent 8",
                        it.w, it.h),
            std::string(it.pixels->begin(), it.pixels->end()));
        xobjects += fmt::format("/{} {} 0 R ", name, id);
        // the unit square, row 0 at the top
        content += fmt::format("q {} 0 0 {} {} {} cm /{} Do Q\n", it.w, -it.h, it.x, it.y + it.h,
                               name);
        break;
      }
      case fig_item::kind::line: {
        const int key = static_cast<int>(it.opacity * 1000.0 + 0.5);
        auto [at, fresh] = opacity_state.emplace(key, fmt::format("G{}", opacity_state.size()));
        if (fresh)
          states += fmt::format("/{} {} 0 R ", at->second,
                                objects.add(fmt::format("<< /Type /ExtGState /CA {:.3f} /ca {:.3f} >>",
                                                        key / 1000.0, key / 1000.0)));
        content += fmt::format("q /{} gs ", at->second) + colour(it.color, "RG");
        content += fmt::format("{:g} w 1 J {} {} m {} {} l S Q\n", it.width, it.x, it.y, it.x2,
                               it.y2);
        break;
      }
    }
  }
  const int contents = objects.add_stream("", content);
  const std::string resources = page_resources(xobjects, states, font.object);
  objects.set(catalog, fmt::format("<< /Type /Catalog /Pages {} 0 R >>", pages));
  objects.set(pages, fmt::format("<< /Type /Pages /Kids [{} 0 R] /Count 1 >>", page));
  objects.set(page, fmt::format("<< /Type /Page /Parent {} 0 R /MediaBox [0 0 {:.6g} {:.6g}] "
                                "/Contents {} 0 R /Resources {} >>",
                                pages, page_w, page_h, contents, resources));
  return objects.file(catalog);
}

}  // namespace attnviz
