#include <doctest/doctest.h>

#include "helpers.h"
#include "render/grid.h"

using namespace attnviz;
using attnviz::testing::mat;

namespace {
heatmap_spec panel(const matrix& m, const char* title) {
  heatmap_spec p;
  p.values = &m;
  p.row_labels = {"a", "b"};
  p.col_labels = {"x", "y", "z"};
  p.title = title;
  p.cell = 30;
  return p;
}
std::size_t frames(const figure& f) {
  std::size_t n = 0;
  for (const auto& it : f.items()) n += it.what == fig_item::kind::frame;
  return n;
}
}  // namespace

TEST_CASE("automatic columns leave few empty places") {
  CHECK(auto_grid_cols(1) == 1);
  CHECK(auto_grid_cols(2) == 2);
  CHECK(auto_grid_cols(3) == 3);
  CHECK(auto_grid_cols(4) == 2);
  CHECK(auto_grid_cols(6) == 3);
  CHECK(auto_grid_cols(7) == 4);
  CHECK(auto_grid_cols(8) == 4);
  CHECK(auto_grid_cols(12) == 4);
}

TEST_CASE("shared scale: one range, one colour bar; panel scale: a bar per panel") {
  const matrix a = mat(2, 3, {0.1f, 0.2f, 0.7f, 0.3f, 0.3f, 0.4f});
  const matrix b = mat(2, 3, {0.05f, 0.05f, 0.9f, 0.2f, 0.2f, 0.6f});
  grid_spec g;
  g.panels = {panel(a, "A"), panel(b, "B"), panel(a, "C")};
  g.title = "grid";
  g.cols = 2;
  const figure shared = grid_figure(g);
  const figure one = heatmap_figure(panel(a, "A"));
  heatmap_spec no_bar = panel(a, "A");
  no_bar.colorbar = false;
  const figure panel_no_bar = heatmap_figure(no_bar);
  // two columns of panels without bars, plus one bar
  CHECK(shared.width() > 2 * panel_no_bar.width());
  CHECK(shared.width() < 2 * one.width());
  // frames: every panel's grid frame + one colour bar frame
  CHECK(frames(shared) == 3 + 1);
  g.scale = scale_mode::panel;
  const figure per_panel = grid_figure(g);
  CHECK(frames(per_panel) == 3 * 2);
  CHECK(per_panel.width() == 2 * one.width());
  // shared: the same weight gets the same colour in every panel (range [0, 1] for both)
  const canvas img = rasterize(shared);
  const heatmap_layout L = layout_heatmap(no_bar);
  // panel A sits below the grid title: margin 16 + title 16 + 4 + 4
  const rgb in_a = img.get(L.grid_x + 2 * 30 + 15, 16 + 16 + 4 + 4 + L.grid_y + 15);
  CHECK(in_a == colormap::viridis().at(0.7));
}
