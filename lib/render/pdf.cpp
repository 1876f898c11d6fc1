#include "render/pdf.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <vector>

#include "io/zlib_stream.h"
#include "render/glyph_runs.h"

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
      case fig_item::kind::text: {
        const auto boxes = glyph_boxes(it);
        if (boxes.empty()) break;
        content += colour(it.color, "rg");
        for (const auto& b : boxes) content += fmt::format("{} {} {} {} re\n", b.x, b.y, b.w, b.h);
        content += "f\n";
        break;
      }
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
  std::string resources = "<<";
  if (!xobjects.empty()) resources += " /XObject << " + xobjects + ">>";
  if (!states.empty()) resources += " /ExtGState << " + states + ">>";
  resources += " >>";
  objects.set(catalog, fmt::format("<< /Type /Catalog /Pages {} 0 R >>", pages));
  objects.set(pages, fmt::format("<< /Type /Pages /Kids [{} 0 R] /Count 1 >>", page));
  objects.set(page, fmt::format("<< /Type /Page /Parent {} 0 R /MediaBox [0 0 {:.6g} {:.6g}] "
                                "/Contents {} 0 R /Resources {} >>",
                                pages, page_w, page_h, contents, resources));
  return objects.file(catalog);
}

}  // namespace attnviz
