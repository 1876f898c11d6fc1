#include "jobs/seq2seq_alti.h"

#include <algorithm>

#include "measures/alti_plus.h"
#include "measures/measure.h"
#include "model/forward.h"

namespace attnviz {

namespace seq2seq_alti_parts {

// What ALTI showed one stack's heads ([L, H, rows, keys], each head its layer's map), and the
// layers' maps alone ([L, rows, keys]).
struct shown_stack {
  matrix maps;
  std::vector<float> layers;
};

measure_shape shape_of(std::size_t layers, std::size_t heads, std::size_t rows, std::size_t keys,
                       std::size_t width, bool cross) {
  measure_shape s;
  s.layers = layers;
  s.heads = heads;
  s.n = rows;
  s.keys = keys;
  s.cross = cross;
  s.width = width;
  return s;
}

std::vector<float> layer_maps(const matrix& maps, const measure_shape& s) {
  const std::size_t size = s.n * s.key_count();
  std::vector<float> out(s.layers * size);
  for (std::size_t l = 0; l < s.layers; ++l)  // head 0 holds the layer's map
    std::copy(maps.data() + l * s.heads * size, maps.data() + l * s.heads * size + size,
              out.begin() + static_cast<std::ptrdiff_t>(l * size));
  return out;
}

}  // namespace seq2seq_alti_parts

seq2seq_alti measure_seq2seq_alti(const hf_model& m, const std::vector<std::int64_t>& source,
                                  seq2seq_forward& f) {
  using namespace seq2seq_alti_parts;
  const measure_spec& alti = measure_named("alti", "measure");
  const std::size_t d = m.config.d_model, Le = f.encoder_layers, He = f.encoder_heads;
  const std::size_t Ld = f.decoder_layers, Hd = f.decoder_heads, ns = f.ns, nt = f.nt;
  const measure_shape enc = shape_of(Le, He, ns, ns, d, false),
                      self = shape_of(Ld, Hd, nt, nt, d, false),
                      cross = shape_of(Ld, Hd, nt, ns, d, true);
  matrix enc_maps(Le * He * ns, ns), self_maps(Ld * Hd * nt, nt), cross_maps(Ld * Hd * nt, ns);
  array_taps enc_views(enc_maps.data(), He, ns, ns), none(nullptr, He, ns, ns);
  array_taps self_views(self_maps.data(), Hd, nt, nt), cross_views(cross_maps.data(), Hd, nt, ns),
      none_d(nullptr, Hd, nt, nt);
  {
    const auto taps = alti.make(enc, enc_views, none);
    run_model(m, source, progress_style::quiet, nullptr, taps.get());
  }
  const auto self_taps = alti.make(self, self_views, none_d);
  const auto cross_taps = alti.make(cross, cross_views, none_d);
  trace_decoder(m, f, self_taps.get(), cross_taps.get());

  seq2seq_alti r;
  r.encoder_layers = Le;
  r.decoder_layers = Ld;
  r.ns = ns;
  r.nt = nt;
  r.encoder = layer_maps(enc_maps, enc);
  r.decoder = layer_maps(self_maps, self);
  r.cross = layer_maps(cross_maps, cross);
  r.residual = cross_taps->residual_shares();
  alti_plus_maps chain{
      Le, Ld, ns, nt, r.encoder.data(), r.decoder.data(), r.cross.data(), r.residual.data()};
  r.contributions = alti_plus(chain);
  r.source_share = source_shares(r.contributions, ns, nt);
  r.encoder_weights = std::move(f.encoder_attention);
  r.decoder_weights = std::move(f.decoder_attention);
  r.cross_weights = std::move(f.cross_attention);
  f.encoder_attention = std::move(enc_maps);
  f.decoder_attention = std::move(self_maps);
  f.cross_attention = std::move(cross_maps);
  return r;
}

}  // namespace attnviz
