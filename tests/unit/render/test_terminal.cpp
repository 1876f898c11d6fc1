#include <doctest/doctest.h>
#include <fmt/format.h>

#include "helpers.h"
#include "render/colormap.h"
#include "render/terminal.h"

using namespace attnviz;
using attnviz::testing::mat;

TEST_CASE("colour mode: none without a terminal or with NO_COLOR; 24-bit when COLORTERM says so") {
  CHECK(detect_term_colors(false, nullptr, "truecolor") == term_colors::none);
  CHECK(detect_term_colors(true, "1", "truecolor") == term_colors::none);
  CHECK(detect_term_colors(true, "", "truecolor") == term_colors::truecolor);  // empty = unset
  CHECK(detect_term_colors(true, nullptr, "24bit") == term_colors::truecolor);
  CHECK(detect_term_colors(true, nullptr, nullptr) == term_colors::palette256);
}

TEST_CASE("256-colour palette: cube corners and the grey ramp") {
  CHECK(nearest_palette256({0, 0, 0}) == 16);
  CHECK(nearest_palette256({255, 255, 255}) == 231);
  CHECK(nearest_palette256({255, 0, 0}) == 196);
  CHECK(nearest_palette256({0, 0, 255}) == 21);
  CHECK(nearest_palette256({128, 128, 128}) == 244);  // grey 128 exactly on the ramp
  CHECK(nearest_palette256({95, 135, 175}) == 16 + 36 * 1 + 6 * 2 + 3);
}

TEST_CASE("colour view: a cell per value in the colormap's colour, labels on both axes") {
  const matrix w = mat(2, 2, {0.0f, 1.0f, 1.0f, 0.0f});
  heatmap_spec spec;
  spec.values = &w;
  spec.row_labels = {"机器", "cat"};
  spec.col_labels = {"学", "dog"};
  spec.title = "t";
  const std::string out = render_terminal(spec, term_colors::truecolor);
  CHECK(out.find("\x1b[48;2;68;1;84m  ") != std::string::npos);     // viridis(0)
  CHECK(out.find("\x1b[48;2;253;231;37m  ") != std::string::npos);  // viridis(1)
  CHECK(out.find("机器 ") != std::string::npos);
  CHECK(out.find("学d") != std::string::npos);  // wide character fills its two columns
  const std::string p256 = render_terminal(spec, term_colors::palette256);
  CHECK(p256.find("\x1b[48;5;") != std::string::npos);
  CHECK(p256.find("\x1b[48;2;") == std::string::npos);
}

TEST_CASE("plain view: the numbers and the chosen keys, no escape codes") {
  const matrix w = mat(2, 2, {0.25f, 0.75f, 1.0f, 0.0f});
  heatmap_spec spec;
  spec.values = &w;
  spec.row_labels = {"a", "b"};
  spec.col_labels = {"x", "y"};
  spec.marked_col_per_row = {1, 0};
  const std::string out = render_terminal(spec, term_colors::none);
  CHECK(out.find('\x1b') == std::string::npos);
  CHECK(out.find("a   0.250   0.750   -> y") != std::string::npos);
  CHECK(out.find("b   1.000   0.000   -> x") != std::string::npos);
}

TEST_CASE("colour view under a power scale: the cell's colour and the scale named") {
  const matrix w = mat(1, 2, {0.25f, 1.0f});
  heatmap_spec spec;
  spec.values = &w;
  spec.row_labels = {"a"};
  spec.col_labels = {"b", "c"};
  spec.scale.mapping = colour_mapping::power;
  spec.scale.gamma = 0.5;
  const std::string out = render_terminal(spec, term_colors::truecolor);
  const rgb half = colormap::viridis().at(0.5);  // √0.25 of [0, 1]
  CHECK(out.find(fmt::format("\x1b[48;2;{};{};{}m  ", half.r, half.g, half.b)) !=
        std::string::npos);
  CHECK(out.find("(power=0.5 colour scale)") != std::string::npos);
}
