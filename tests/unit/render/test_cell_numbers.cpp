// render/cell_numbers.h: each format by hand, the choice between them by cell size, blank cells
// (no room, or a non-zero value that would read as zero) and the note that says so.
#include <doctest/doctest.h>

#include "helpers.h"
#include "render/cell_numbers.h"

using namespace attnviz;
using attnviz::testing::mat;

TEST_CASE("formats by hand") {
  CHECK(format_cell_number(0.123, number_style::fixed2) == "0.12");
  CHECK(format_cell_number(0.123, number_style::fixed1) == "0.1");
  CHECK(format_cell_number(0.123, number_style::bare2) == ".12");
  CHECK(format_cell_number(-0.123, number_style::bare2) == "-.12");
  CHECK(format_cell_number(1.0, number_style::bare1) == "1.0");
  CHECK(format_cell_number(0.123, number_style::percent) == "12");
  CHECK(format_cell_number(1.0, number_style::percent) == "100");
  CHECK(format_cell_number(0.00031, number_style::sci) == "3e-4");
  CHECK(format_cell_number(-250.0, number_style::sci) == "-2e2");  // round half to even
  CHECK(format_cell_number(12.0, number_style::sci) == "1e1");
  CHECK(format_cell_number(-0.001, number_style::fixed1) == "0.0");  // no "-0.0"
}

TEST_CASE("the format follows the cell size; automatic writes every cell or none") {
  const matrix w = mat(2, 2, {0.03f, 0.5f, 0.25f, 0.22f});
  heatmap_spec spec;
  spec.values = &w;
  // 48 px: two decimals everywhere (0.03 is honest at 0.01)
  cell_numbers c = plan_cell_numbers(spec, 48, 1);
  CHECK(c.texts == std::vector<std::string>{"0.03", "0.50", "0.25", "0.22"});
  CHECK(c.note.empty());
  // 30 px: one decimal would write 0.03 as "0.0": automatic writes nothing ...
  CHECK_FALSE(plan_cell_numbers(spec, 30, 1).any);
  // ... on takes ".03" (bare, two decimals: 3 characters = 28 px)
  spec.annotate = annotate_mode::on;
  c = plan_cell_numbers(spec, 30, 1);
  CHECK(c.texts == std::vector<std::string>{".03", ".50", ".25", ".22"});
  CHECK(c.note == "numbers without the leading 0 (.12 = 0.12)");
  // 20 px (2 characters): percent
  c = plan_cell_numbers(spec, 20, 1);
  CHECK(c.texts == std::vector<std::string>{"3", "50", "25", "22"});
  CHECK(c.note == "numbers in percent (12 = 0.12)");
  // 12 px (one character): percent writes 3 only; the rest blank, said once
  c = plan_cell_numbers(spec, 12, 1);
  CHECK(c.blank == 3);
  CHECK(c.note == "numbers in percent (12 = 0.12); 3 of 4 cells blank: no room");
}

TEST_CASE("a value that would read as zero is blank, never 0") {
  const matrix w = mat(1, 4, {0.004f, 0.0f, 0.6f, 0.396f});
  heatmap_spec spec;
  spec.values = &w;
  spec.annotate = annotate_mode::on;
  const cell_numbers c = plan_cell_numbers(spec, 20, 1);  // percent
  CHECK(c.texts == std::vector<std::string>{"", "0", "60", "40"});
  CHECK(c.note == "numbers in percent (12 = 0.12); 1 of 4 cells blank: below 0.5 %");
}

TEST_CASE("scores outside [0, 1] never become percent; hidden cells stay empty") {
  const matrix s = mat(2, 2, {-3.5f, 120.0f, 0.0004f, 7.0f});
  heatmap_spec spec;
  spec.values = &s;
  spec.annotate = annotate_mode::on;
  spec.hidden = {false, true, false, false};
  // 4 characters: two decimals leave -3.50 without room and read 0.0004 as 0.00; one decimal
  // writes -3.5 and 7.0 and leaves 0.0004 blank
  const cell_numbers c = plan_cell_numbers(spec, 36, 1);
  CHECK(c.texts == std::vector<std::string>{"-3.5", "", "", "7.0"});
  CHECK(c.note == "1 of 3 cells blank: below 0.05");
  const matrix tiny = mat(1, 2, {0.00031f, 0.00052f});  // only one significant digit fits
  spec.values = &tiny;
  spec.hidden.clear();
  CHECK(plan_cell_numbers(spec, 36, 1).texts == std::vector<std::string>{"3e-4", "5e-4"});
  CHECK(plan_cell_numbers(spec, 36, 1).note == "numbers as 3e-4 = 0.0003");
}
