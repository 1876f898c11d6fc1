#include "render/font_subset.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "render/font.h"
#include "render/glyph_runs.h"

namespace attnviz {
namespace {

constexpr int units_per_pixel = 64;
constexpr int units_per_em = 16 * units_per_pixel;  // 1024
constexpr int ascent_px = 14, descent_px = 2;

void u16(std::string& out, std::uint32_t v) {
  out += static_cast<char>((v >> 8) & 0xff);
  out += static_cast<char>(v & 0xff);
}
void i16(std::string& out, int v) { u16(out, static_cast<std::uint32_t>(v) & 0xffff); }
void u32(std::string& out, std::uint32_t v) {
  u16(out, v >> 16);
  u16(out, v & 0xffff);
}

std::uint32_t checksum(const std::string& table) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < table.size(); i += 4) {
    std::uint32_t word = 0;
    for (std::size_t k = 0; k < 4; ++k)
      word = (word << 8) | (i + k < table.size() ? static_cast<unsigned char>(table[i + k]) : 0u);
    sum += word;
  }
  return sum;
}

struct outline {
  std::string data;  // the glyf entry (empty for a blank glyph)
  int advance = 8 * units_per_pixel;
  int x_min = 0, y_min = 0, x_max = 0, y_max = 0;
  int points = 0, contours = 0;
};

// One glyph: every run of set pixels in a row as a clockwise rectangle.
outline make_outline(const glyph& g) {
  outline o;
  o.advance = g.width * units_per_pixel;
  struct box {
    int x0, y0, x1, y1;
  };
  std::vector<box> boxes;
  for (const pixel_run& r : glyph_runs(g))
    boxes.push_back({r.start * units_per_pixel, (ascent_px - r.row - 1) * units_per_pixel,
                     r.end * units_per_pixel, (ascent_px - r.row) * units_per_pixel});
  if (boxes.empty()) return o;
  o.x_min = o.y_min = 1 << 20;
  o.x_max = o.y_max = -(1 << 20);
  for (const box& b : boxes) {
    o.x_min = std::min(o.x_min, b.x0);
    o.y_min = std::min(o.y_min, b.y0);
    o.x_max = std::max(o.x_max, b.x1);
    o.y_max = std::max(o.y_max, b.y1);
  }
  o.contours = static_cast<int>(boxes.size());
  o.points = 4 * o.contours;
  std::string& d = o.data;
  i16(d, o.contours);
  i16(d, o.x_min);
  i16(d, o.y_min);
  i16(d, o.x_max);
  i16(d, o.y_max);
  for (int c = 0; c < o.contours; ++c) u16(d, static_cast<std::uint32_t>(4 * c + 3));
  u16(d, 0);  // no instructions
  for (int p = 0; p < o.points; ++p) d += '\x01';  // on curve, 16-bit deltas
  std::vector<std::pair<int, int>> pts;
  for (const box& b : boxes) {  // clockwise: up the left side, along the top, down the right
    pts.emplace_back(b.x0, b.y0);
    pts.emplace_back(b.x0, b.y1);
    pts.emplace_back(b.x1, b.y1);
    pts.emplace_back(b.x1, b.y0);
  }
  int last = 0;
  for (const auto& p : pts) i16(d, p.first - last), last = p.first;
  last = 0;
  for (const auto& p : pts) i16(d, p.second - last), last = p.second;
  while (d.size() % 4 != 0) d += '\0';
  return o;
}

std::string utf16be(const std::string& ascii) {
  std::string out;
  for (char c : ascii) u16(out, static_cast<unsigned char>(c));
  return out;
}

std::string name_table_bytes() {
  const std::pair<int, std::string> names[] = {
      {1, label_font_family}, {2, "Regular"}, {3, std::string(label_font_family) + " Regular"},
      {4, std::string(label_font_family) + " Regular"}, {5, "Version 1.0"},
      {6, label_font_family}};
  std::string records, strings;
  for (const auto& [id, text] : names) {
    const std::string s = utf16be(text);
    u16(records, 3);       // Windows
    u16(records, 1);       // Unicode BMP
    u16(records, 0x409);   // English (US)
    u16(records, static_cast<std::uint32_t>(id));
    u16(records, static_cast<std::uint32_t>(s.size()));
    u16(records, static_cast<std::uint32_t>(strings.size()));
    strings += s;
  }
  std::string t;
  u16(t, 0);
  u16(t, std::size(names));
  u16(t, static_cast<std::uint32_t>(6 + records.size()));
  return t + records + strings;
}

// cmap format 4: one segment per character, then the closing 0xFFFF segment.
std::string cmap_table(const std::vector<char32_t>& cps) {
  const std::size_t segments = cps.size() + 1;
  std::uint32_t search = 1, selector = 0;
  while (search * 2 <= segments) search *= 2, ++selector;
  std::string sub;
  u16(sub, 4);
  u16(sub, static_cast<std::uint32_t>(16 + 8 * segments));
  u16(sub, 0);
  u16(sub, static_cast<std::uint32_t>(2 * segments));
  u16(sub, 2 * search);
  u16(sub, selector);
  u16(sub, static_cast<std::uint32_t>(2 * segments - 2 * search));
  for (char32_t cp : cps) u16(sub, cp);
  u16(sub, 0xffff);
  u16(sub, 0);  // reserved
  for (char32_t cp : cps) u16(sub, cp);
  u16(sub, 0xffff);
  for (std::size_t i = 0; i < cps.size(); ++i)
    u16(sub, static_cast<std::uint32_t>(i + 1 - cps[i]) & 0xffff);  // glyph i + 1
  u16(sub, 1);
  for (std::size_t i = 0; i < segments; ++i) u16(sub, 0);
  std::string t;
  u16(t, 0);
  u16(t, 2);
  u16(t, 0);  // Unicode, BMP
  u16(t, 3);
  u32(t, 20);
  u16(t, 3);  // Windows, Unicode BMP
  u16(t, 1);
  u32(t, 20);
  return t + sub;
}

}  // namespace

std::vector<char32_t> unifont_subset_order(const std::u32string& characters) {
  const bitmap_font& font = bitmap_font::unifont();
  std::set<char32_t> wanted;
  for (char32_t cp : characters)
    if (cp <= 0xfffd && cp >= 0x20 && font.has(cp)) wanted.insert(cp);
  return {wanted.begin(), wanted.end()};
}

std::string unifont_subset_ttf(const std::u32string& characters) {
  const bitmap_font& font = bitmap_font::unifont();
  const std::vector<char32_t> cps = unifont_subset_order(characters);

  std::vector<outline> glyphs;
  glyphs.push_back(make_outline(font.get(0xfffd)));  // .notdef
  for (char32_t cp : cps) glyphs.push_back(make_outline(font.get(cp)));
  const auto n = static_cast<std::uint32_t>(glyphs.size());

  std::string glyf, loca;
  int x_min = 0, y_min = -descent_px * units_per_pixel, x_max = 0, y_max = ascent_px * units_per_pixel;
  int max_points = 0, max_contours = 0, max_advance = 0, min_lsb = 0, min_rsb = 0, max_extent = 0;
  long total_advance = 0;
  for (const outline& o : glyphs) {
    u32(loca, static_cast<std::uint32_t>(glyf.size()));
    glyf += o.data;
    max_points = std::max(max_points, o.points);
    max_contours = std::max(max_contours, o.contours);
    max_advance = std::max(max_advance, o.advance);
    total_advance += o.advance;
    if (!o.data.empty()) {
      x_min = std::min(x_min, o.x_min);
      y_min = std::min(y_min, o.y_min);
      x_max = std::max(x_max, o.x_max);
      y_max = std::max(y_max, o.y_max);
      min_lsb = std::min(min_lsb, o.x_min);
      min_rsb = std::min(min_rsb, o.advance - o.x_max);
      max_extent = std::max(max_extent, o.x_max);
    }
  }
  u32(loca, static_cast<std::uint32_t>(glyf.size()));

  std::string hmtx;
  for (const outline& o : glyphs) {
    u16(hmtx, static_cast<std::uint32_t>(o.advance));
    i16(hmtx, o.data.empty() ? 0 : o.x_min);
  }

  std::string head;
  u32(head, 0x00010000);
  u32(head, 0x00010000);
  u32(head, 0);  // checkSumAdjustment, set below
  u32(head, 0x5f0f3cf5);
  u16(head, 0x000b);  // baseline at 0, lsb at 0, integer scaling
  u16(head, units_per_em);
  // created and modified: a fixed date (2026-01-01, seconds since 1904), so the bytes never change
  for (int k = 0; k < 2; ++k) u32(head, 0), u32(head, 3850070400u);
  i16(head, x_min), i16(head, y_min), i16(head, x_max), i16(head, y_max);
  u16(head, 0);   // macStyle
  u16(head, 8);   // lowestRecPPEM
  i16(head, 2);   // fontDirectionHint
  i16(head, 1);   // long loca offsets
  i16(head, 0);

  std::string hhea;
  u32(hhea, 0x00010000);
  i16(hhea, ascent_px * units_per_pixel);
  i16(hhea, -descent_px * units_per_pixel);
  i16(hhea, 0);
  u16(hhea, static_cast<std::uint32_t>(max_advance));
  i16(hhea, min_lsb), i16(hhea, min_rsb), i16(hhea, max_extent);
  i16(hhea, 1), i16(hhea, 0), i16(hhea, 0);
  for (int k = 0; k < 4; ++k) i16(hhea, 0);
  i16(hhea, 0);
  u16(hhea, n);

  std::string maxp;
  u32(maxp, 0x00010000);
  u16(maxp, n);
  u16(maxp, static_cast<std::uint32_t>(max_points));
  u16(maxp, static_cast<std::uint32_t>(max_contours));
  u16(maxp, 0), u16(maxp, 0);
  u16(maxp, 2);  // maxZones
  for (int k = 0; k < 8; ++k) u16(maxp, 0);

  std::string os2;
  u16(os2, 4);
  i16(os2, static_cast<int>(total_advance / static_cast<long>(n)));
  u16(os2, 400), u16(os2, 5), u16(os2, 0);
  for (int v : {650, 700, 0, 140, 650, 700, 0, 480, 50, 250}) i16(os2, v);
  i16(os2, 0);
  os2 += std::string(10, '\0');  // panose
  for (int k = 0; k < 4; ++k) u32(os2, 0);
  os2 += "NONE";
  u16(os2, 0x40);  // regular
  u16(os2, cps.empty() ? 0xfffd : std::min<std::uint32_t>(cps.front(), 0xffff));
  u16(os2, cps.empty() ? 0xfffd : std::min<std::uint32_t>(cps.back(), 0xffff));
  i16(os2, ascent_px * units_per_pixel), i16(os2, -descent_px * units_per_pixel), i16(os2, 0);
  u16(os2, ascent_px * units_per_pixel), u16(os2, descent_px * units_per_pixel);
  u32(os2, 1), u32(os2, 0);  // code page: Latin 1
  i16(os2, 8 * units_per_pixel), i16(os2, 10 * units_per_pixel);
  u16(os2, 0), u16(os2, 32), u16(os2, 1);

  std::string post;
  u32(post, 0x00030000);
  u32(post, 0);
  i16(post, -units_per_pixel * 2), i16(post, units_per_pixel);
  for (int k = 0; k < 5; ++k) u32(post, 0);

  std::map<std::string, std::string> tables = {{"OS/2", os2},
                                               {"cmap", cmap_table(cps)},
                                               {"glyf", glyf},
                                               {"head", head},
                                               {"hhea", hhea},
                                               {"hmtx", hmtx},
                                               {"loca", loca},
                                               {"maxp", maxp},
                                               {"name", name_table_bytes()},
                                               {"post", post}};
  const auto count = static_cast<std::uint32_t>(tables.size());
  std::uint32_t search = 1, selector = 0;
  while (search * 2 <= count) search *= 2, ++selector;
  std::string out;
  u32(out, 0x00010000);
  u16(out, count);
  u16(out, search * 16);
  u16(out, selector);
  u16(out, count * 16 - search * 16);
  std::size_t offset = 12 + 16 * tables.size();
  std::string body;
  std::size_t head_at = 0;
  for (const auto& [tag, data] : tables) {  // std::map: sorted by tag, as the format asks
    out += tag;
    u32(out, checksum(data));
    u32(out, static_cast<std::uint32_t>(offset + body.size()));
    u32(out, static_cast<std::uint32_t>(data.size()));
    if (tag == "head") head_at = offset + body.size();
    body += data;
    while (body.size() % 4 != 0) body += '\0';
  }
  out += body;
  const std::uint32_t adjust = 0xb1b0afbau - checksum(out);
  for (int k = 0; k < 4; ++k)
    out[head_at + 8 + static_cast<std::size_t>(k)] = static_cast<char>((adjust >> (24 - 8 * k)) & 0xff);
  return out;
}

}  // namespace attnviz
