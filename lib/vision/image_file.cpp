#include "vision/image_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>

#include "error.h"
#include "io/file_io.h"

// Debian's libstb-dev header, its implementation compiled here alone (no unity batch: its
// internal names stay in this file), reading from memory only, PNG, JPEG and BMP only (the
// fewer decoders, the less of stb's code a hostile file reaches).
#define STBI_NO_STDIO
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_FAILURE_USERMSG
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

namespace attnviz {
namespace image_file_parts {
namespace {

// The first bytes of a file that is no picture, as a message shows them.
std::string first_bytes(const std::string& bytes) {
  std::string shown;
  for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    shown +=
        c >= 32 && c < 127 ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
  }
  return shown;
}

std::size_t be16(const std::string& b, std::size_t at) {
  return (static_cast<std::size_t>(static_cast<unsigned char>(b[at])) << 8) |
         static_cast<unsigned char>(b[at + 1]);
}

// What the JPEG walk has seen so far: which Huffman tables are defined (class 0 DC, 1 AC; ids
// 0-3) and whether the frame is progressive.
struct jpeg_walk {
  bool defined[2][4] = {};
  bool progressive = false;
};

// A JPEG's Huffman tables (one DHT segment's, from t to end) checked before stb_image reads
// them: this version (Debian's 2022-09 snapshot) never checks that a table's 16 counts add up to
// at most 256 codes, and writes past the table for one that does not. Each table defined is
// noted in `walk`.
void check_huffman_tables(const std::string& b, std::size_t t, std::size_t end,
                          const std::string& source, jpeg_walk& walk) {
  while (t < end) {  // as stb: a table starts while the segment has bytes left, and is read whole
    std::size_t codes = 0;  // from the file, past the segment's end if need be
    for (std::size_t i = 0; i < 16 && t + 1 + i < b.size(); ++i)
      codes += static_cast<unsigned char>(b[t + 1 + i]);
    if (codes > 256)
      throw input_error::at_offset(
          source, t,
          fmt::format("is a damaged JPEG: a Huffman table declares {} codes (at most 256)", codes));
    const auto kind = t < b.size() ? static_cast<unsigned char>(b[t]) : 0;  // 0 past the end
    if (kind >> 4 <= 1 && (kind & 15) <= 3) walk.defined[kind >> 4][kind & 15] = true;
    t += 17 + codes;
  }
}

// A scan (SOS segment from `at`) may only use Huffman tables defined before it: stb_image
// leaves its tables uninitialised (its decoder state is malloc'd, not cleared) and would decode
// with whatever the memory held, reading far outside its arrays. Which tables a scan decodes
// with: both for a sequential frame; in a progressive one the DC table for a first DC scan, the
// AC table for any AC scan, none for a DC refinement.
void check_scan_tables(const std::string& b, std::size_t at, const std::string& source,
                       const jpeg_walk& walk) {
  const std::size_t n = b.size();
  if (at + 5 > n) return;
  const std::size_t count = static_cast<unsigned char>(b[at + 4]);
  const std::size_t tail = at + 5 + 2 * count;
  if (tail + 3 > n) return;  // stb refuses it
  const std::size_t ss = static_cast<unsigned char>(b[tail]);
  const std::size_t ah = static_cast<unsigned char>(b[tail + 2]) >> 4;
  const bool dc = !walk.progressive || (ss == 0 && ah == 0);
  const bool ac = !walk.progressive || ss > 0;
  for (std::size_t c = 0; c < count; ++c) {
    const auto tables = static_cast<unsigned char>(b[at + 6 + 2 * c]);
    const std::size_t td = tables >> 4, ta = tables & 15;
    if (td > 3 || ta > 3) return;  // stb refuses it
    const bool missing_dc = dc && !walk.defined[0][td], missing_ac = ac && !walk.defined[1][ta];
    if (missing_dc || missing_ac)
      throw input_error::at_offset(
          source, at,
          fmt::format("is a damaged JPEG: a scan decodes with Huffman table {} {} before any "
                      "table defines it",
                      missing_dc ? "DC" : "AC", missing_dc ? td : ta));
  }
}

// A JPEG's markers walked as stb walks them: bytes before a 0xFF skipped, fill bytes skipped,
// segments by their lengths (a table begun inside a DHT segment read whole, past the segment's
// end if need be, and 0 past the file's), and after a scan header the entropy-coded bytes up to
// the next marker that is not a stuffed 0xFF 0x00 or a restart; the tables and scans checked.
void check_jpeg_tables(const std::string& b, const std::string& source) {
  const std::size_t n = b.size();
  jpeg_walk walk;
  std::size_t at = 0;  // SOI, after any fill, is a marker without a length
  while (at + 1 < n) {
    const auto marker = static_cast<unsigned char>(b[at + 1]);
    if (static_cast<unsigned char>(b[at]) != 0xFF || marker == 0xFF) {
      ++at;
      continue;
    }
    if (marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD9)) {
      at += 2;  // no length
      continue;
    }
    if (at + 4 > n) return;
    const std::size_t end = at + 2 + be16(b, at + 2);
    if (marker == 0xC4) check_huffman_tables(b, at + 4, end, source, walk);
    if (marker == 0xC2) walk.progressive = true;
    if (marker == 0xDA) check_scan_tables(b, at, source, walk);
    at = std::max(end, at + 4);
    if (marker != 0xDA) continue;
    while (at + 1 < n) {  // the entropy-coded data after a scan header
      const auto next = static_cast<unsigned char>(b[at + 1]);
      if (static_cast<unsigned char>(b[at]) == 0xFF && next != 0x00 && next != 0xFF &&
          (next < 0xD0 || next > 0xD7))
        break;
      ++at;
    }
  }
}

std::size_t be32(const std::string& b, std::size_t at) {
  return (be16(b, at) << 16) | be16(b, at + 2);
}

// A PNG's chunks checked before stb_image reads them: each declared length must fit in the
// file. stb grows its buffer for the compressed data to a chunk's declared length (up to 1 GiB,
// doubled) before it finds the bytes missing, so a few hundred bytes could claim gigabytes.
void check_png_chunks(const std::string& b, const std::string& source) {
  const std::size_t n = b.size();
  std::size_t at = 8;  // after the signature
  while (at + 8 <= n) {
    const std::size_t length = be32(b, at);
    const std::string type = b.substr(at + 4, 4);
    if (length > n - at - 8 || n - at - 8 - length < 4)
      throw input_error::at_offset(
          source, at,
          fmt::format("is a damaged PNG: its chunk \"{}\" declares {} bytes of data and a "
                      "checksum, but the file has {} bytes after the chunk's header",
                      first_bytes(type), length, n - at - 8));
    if (type == "IEND") return;
    at += 12 + length;
  }
}

std::uint64_t le(const std::string& b, std::size_t at, std::size_t bytes) {
  std::uint64_t v = 0;
  for (std::size_t k = bytes; k-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[at + k]);
  return v;
}

// A BMP's pixel rows checked against the file's length before stb_image reads them: stb reads
// past the end as zeros, so a truncated file (or a header declaring millions of pixels in a few
// bytes) would decode to black rows instead of being refused. Rows are padded to 4 bytes; they
// start at the header's data offset. Only the uncompressed and bit-field layouts stb reads.
void check_bmp_length(const std::string& b, const std::string& source) {
  if (b.size() < 30) return;  // stb refuses it
  const std::uint64_t offset = le(b, 10, 4), header = le(b, 14, 4);
  const bool core = header == 12;  // OS/2's: 16-bit sizes
  const std::uint64_t width = core ? le(b, 18, 2) : le(b, 18, 4);
  auto height = static_cast<std::int64_t>(core ? le(b, 20, 2) : le(b, 22, 4));
  if (!core && height >= (std::int64_t{1} << 31)) height = (std::int64_t{1} << 32) - height;
  const std::uint64_t bits = le(b, core ? 24 : 28, 2);
  if (width == 0 || height <= 0 || bits == 0 || width > (1u << 26) || height > (1 << 26)) return;
  const std::uint64_t row = (width * bits + 31) / 32 * 4;
  const std::uint64_t needed = offset + row * static_cast<std::uint64_t>(height);
  if (needed > b.size())
    throw input_error(source, fmt::format("is a damaged BMP: its header declares {} × {} pixels "
                                          "of {} bits ({} bytes from byte {}), but the file "
                                          "has {} bytes",
                                          width, height, bits, needed - offset, offset, b.size()));
}

}  // namespace
}  // namespace image_file_parts

rgb_image decode_image(const std::string& bytes, const std::string& source,
                       std::uint64_t max_pixels) {
  using namespace image_file_parts;
  if (bytes.empty()) throw input_error(source, "is empty (expected a PNG, JPEG or BMP picture)");
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw input_error(source, "is larger than 2 GiB (expected a PNG, JPEG or BMP picture)");
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int length = static_cast<int>(bytes.size());
  // stb takes any run of 0xFF before the SOI marker: every file starting 0xFF is walked
  if (!bytes.empty() && static_cast<unsigned char>(bytes[0]) == 0xFF)
    check_jpeg_tables(bytes, source);
  static const std::string png_signature("\x89PNG\r\n\x1a\n", 8);
  if (bytes.compare(0, 8, png_signature) == 0) check_png_chunks(bytes, source);
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(data, length, &w, &h, &channels))
    throw input_error(source, fmt::format("is not a picture attn-viz reads: its first bytes are "
                                          "\"{}\" (expected PNG, JPEG or BMP)",
                                          first_bytes(bytes)));
  const auto pixels = static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(h);
  if (w <= 0 || h <= 0 || pixels > max_pixels)
    throw input_error(source, fmt::format("declares {} × {} pixels (at most {} pixels are read)", w,
                                          h, max_pixels));
  if (bytes.compare(0, 2, "BM") == 0) check_bmp_length(bytes, source);
  std::unique_ptr<stbi_uc, void (*)(void*)> decoded(
      stbi_load_from_memory(data, length, &w, &h, &channels, 3), stbi_image_free);
  if (!decoded)
    throw input_error(source, fmt::format("is a damaged picture: {}", stbi_failure_reason()));
  rgb_image image;
  image.width = static_cast<std::size_t>(w);
  image.height = static_cast<std::size_t>(h);
  image.rgb.assign(decoded.get(), decoded.get() + image.width * image.height * 3);
  return image;
}

rgb_image read_image(const std::string& path) {
  require_regular_file(path);
  return decode_image(read_whole_file(path), path);
}

}  // namespace attnviz
