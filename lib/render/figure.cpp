#include "render/figure.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "io/base64.h"
#include "render/font.h"
#include "render/glyph_runs.h"
#include "text/utf8.h"

namespace attnviz {

void figure::rect(int x, int y, int w, int h, rgb fill) {
  fig_item it;
  it.what = fig_item::kind::rect;
  it.x = x, it.y = y, it.w = w, it.h = h, it.color = fill;
  items_.push_back(std::move(it));
}

void figure::frame(int x, int y, int w, int h, int thickness, rgb color) {
  fig_item it;
  it.what = fig_item::kind::frame;
  it.x = x, it.y = y, it.w = w, it.h = h, it.thickness = thickness, it.color = color;
  items_.push_back(std::move(it));
}

void figure::text(int x, int y, std::u32string s, rgb color, int scale, text_direction dir) {
  fig_item it;
  it.what = fig_item::kind::text;
  it.x = x, it.y = y, it.color = color, it.scale = scale, it.dir = dir;
  it.text = std::move(s);
  items_.push_back(std::move(it));
}

void figure::image(int x, int y, int w, int h,
                   std::shared_ptr<const std::vector<std::uint8_t>> rgb) {
  if (!rgb || rgb->size() != static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3)
    throw std::logic_error("figure::image: pixel count does not match the size");
  fig_item it;
  it.what = fig_item::kind::image;
  it.x = x, it.y = y, it.w = w, it.h = h;
  it.pixels = std::move(rgb);
  items_.push_back(std::move(it));
}

void figure::line(int x1, int y1, int x2, int y2, double width, rgb color, double opacity) {
  fig_item it;
  it.what = fig_item::kind::line;
  it.x = x1, it.y = y1, it.x2 = x2, it.y2 = y2, it.width = width, it.color = color;
  it.opacity = opacity;
  items_.push_back(std::move(it));
}

void figure::append(const figure& other, int dx, int dy) {
  for (fig_item it : other.items_) {
    it.x += dx;
    it.y += dy;
    it.x2 += dx;
    it.y2 += dy;
    items_.push_back(std::move(it));
  }
}

namespace {

// c over the pixel at (x, y) with coverage a in [0, 1] (clipped).
void blend(canvas& img, int x, int y, rgb c, double a) {
  if (x < 0 || y < 0 || x >= img.width() || y >= img.height() || a <= 0.0) return;
  const rgb under = img.get(x, y);
  auto mix = [a](std::uint8_t top, std::uint8_t bottom) {
    return static_cast<std::uint8_t>(std::lround(a * top + (1.0 - a) * bottom));
  };
  img.set(x, y, rgb{mix(c.r, under.r), mix(c.g, under.g), mix(c.b, under.b)});
}

// An anti-aliased line: along its major axis, one pixel at a time, the pixels across it covered
// by how far their centre is from the line's centre, against its half-width measured across
// that axis.
void draw_line(canvas& img, const fig_item& it) {
  const double x1 = it.x, y1 = it.y, x2 = it.x2, y2 = it.y2;
  const bool steep = std::fabs(y2 - y1) > std::fabs(x2 - x1);
  const double a1 = steep ? y1 : x1, b1 = steep ? x1 : y1, a2 = steep ? y2 : x2, b2 = steep ? x2 : y2;
  const double lo = std::min(a1, a2), hi = std::max(a1, a2);
  const double slope = a2 == a1 ? 0.0 : (b2 - b1) / (a2 - a1);
  const double half = it.width / 2.0 * std::sqrt(1.0 + slope * slope);
  for (auto a = static_cast<int>(std::floor(lo)); a <= static_cast<int>(std::ceil(hi)); ++a) {
    const double centre = b1 + (a - a1) * slope;
    for (auto b = static_cast<int>(std::floor(centre - half - 1)); b <= std::ceil(centre + half + 1);
         ++b) {
      const double cover = std::clamp(half + 0.5 - std::fabs(b - centre), 0.0, 1.0);
      if (steep)
        blend(img, b, a, it.color, cover * it.opacity);
      else
        blend(img, a, b, it.color, cover * it.opacity);
    }
  }
}

}  // namespace

canvas rasterize(const figure& fig) {
  canvas img(fig.width(), fig.height(), fig.background());
  const bitmap_font& font = bitmap_font::unifont();
  for (const auto& it : fig.items()) {
    switch (it.what) {
      case fig_item::kind::rect:
        img.fill_rect(it.x, it.y, it.w, it.h, it.color);
        break;
      case fig_item::kind::frame:
        img.stroke_rect(it.x, it.y, it.w, it.h, it.thickness, it.color);
        break;
      case fig_item::kind::text:
        img.draw_text(it.x, it.y, it.text, it.color, font, it.dir, it.scale);
        break;
      case fig_item::kind::image:
        img.blit(it.x, it.y, it.w, it.h, it.pixels->data());
        break;
      case fig_item::kind::line:
        draw_line(img, it);
        break;
    }
  }
  return img;
}

namespace {

std::string hex(rgb c) {
  return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
}

std::string xml_escape(std::u32string_view text) {
  std::string out;
  for (char32_t cp : text) {
    switch (cp) {
      case U'&':
        out += "&amp;";
        break;
      case U'<':
        out += "&lt;";
        break;
      case U'>':
        out += "&gt;";
        break;
      case U'"':
        out += "&quot;";
        break;
      default:
        // XML 1.0 forbids most controls and U+FFFE/U+FFFF: show them as U+FFFD
        if ((cp < 0x20 && cp != 0x9 && cp != 0xa && cp != 0xd) || cp == 0xfffe || cp == 0xffff)
          cp = 0xfffd;
        append_utf8(out, cp);
    }
  }
  return out;
}

}  // namespace

std::string to_svg(const figure& fig, const svg_options& options) {
  const bitmap_font& font = bitmap_font::unifont();
  const std::string extent =
      options.dpi > 0
          ? fmt::format("width=\"{:.4g}in\" height=\"{:.4g}in\"",
                        static_cast<double>(fig.width()) / options.dpi,
                        static_cast<double>(fig.height()) / options.dpi)
          : fmt::format("width=\"{}\" height=\"{}\"", fig.width(), fig.height());
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" "
      "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" {3} "
      "viewBox=\"0 0 {0} {1}\" shape-rendering=\"crispEdges\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"{2}\"/>\n"
      "<g font-family=\"Unifont, 'DejaVu Sans Mono', monospace\" xml:space=\"preserve\">\n",
      fig.width(), fig.height(), hex(fig.background()), extent);
  for (const auto& it : fig.items()) {
    if (it.what == fig_item::kind::image) {
      canvas raster(it.w, it.h, rgb{});
      raster.blit(0, 0, it.w, it.h, it.pixels->data());
      out += fmt::format(
          "<image x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "style=\"image-rendering:pixelated\" xlink:href=\"data:image/png;base64,{}\"/>\n",
          it.x, it.y, it.w, it.h, base64(encode_png(raster)));
    } else if (it.what == fig_item::kind::line) {
      out += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{:g}\" "
          "stroke-opacity=\"{:.3f}\" shape-rendering=\"geometricPrecision\"/>\n",
          it.x, it.y, it.x2, it.y2, hex(it.color), it.width, it.opacity);
    } else if (it.what == fig_item::kind::rect) {
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", it.x,
                         it.y, it.w, it.h, hex(it.color));
    } else if (it.what == fig_item::kind::frame) {
      const double half = it.thickness / 2.0;
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{}\" "
          "stroke-width=\"{}\"/>\n",
          it.x + half, it.y + half, it.w - it.thickness, it.h - it.thickness, hex(it.color),
          it.thickness);
    } else if (!it.text.empty() && options.text == svg_text::paths) {
      std::string d;
      for (const auto& b : glyph_boxes(it))
        d += fmt::format("M{} {}h{}v{}h-{}z", b.x, b.y, b.w, b.h, b.w);
      out += fmt::format("<path fill=\"{}\" d=\"{}\"><title>{}</title></path>\n", hex(it.color),
                         d, xml_escape(it.text));
    } else if (!it.text.empty()) {
      const int size = bitmap_font::height * it.scale;
      const int width = font.text_width(it.text) * it.scale;
      const int baseline = it.y + 14 * it.scale;  // Unifont: 14 px ascent, 2 px descent
      const std::string rotate = it.dir == text_direction::upward
                                     ? fmt::format(" transform=\"rotate(-90 {} {})\"", it.x, it.y)
                                     : std::string();
      out += fmt::format(
          "<text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\" textLength=\"{}\" "
          "lengthAdjust=\"spacingAndGlyphs\"{}>{}</text>\n",
          it.x, baseline, size, hex(it.color), width, rotate, xml_escape(it.text));
    }
  }
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace attnviz
