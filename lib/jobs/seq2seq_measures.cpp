#include "jobs/seq2seq_measures.h"

#include <algorithm>
#include <filesystem>

#include "io/npy.h"
#include "io/npy_stream.h"
#include "jobs/model_keep.h"
#include "measures/alti_plus.h"
#include "measures/measure.h"
#include "model/forward.h"

namespace attnviz {

namespace seq2seq_measures_parts {

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

// What value zeroing runs again: an encoder layer (model/forward.h layer_output), a decoder
// layer with a target row's or a source row's value zeroed (model/seq2seq.h
// decoder_layer_output); and a layer's operations a row, as for a decoder-only model of the
// same sizes (the cross attention's products counted like the self-attention's).
void set_layer_runs(const hf_model& m, const seq2seq_forward& f, measure_shape& enc,
                    measure_shape& self, measure_shape& cross) {
  enc.layer_output = [&m](std::size_t l, const matrix& x, std::size_t zeroed) {
    stage_list times;
    return layer_output(m, l, x, zeroed, times);
  };
  self.layer_output = [&m, &f](std::size_t l, const matrix& y, std::size_t zeroed) {
    return decoder_layer_output(m, f, l, y, zeroed, no_row);
  };
  cross.layer_output = [&m, &f](std::size_t l, const matrix& y, std::size_t zeroed) {
    return decoder_layer_output(m, f, l, y, no_row, zeroed);
  };
  enc.layer_row_flops = model_measure_shape(m.config, enc.n).layer_row_flops;
  self.layer_row_flops = cross.layer_row_flops =
      2.0 * model_measure_shape(m.config, self.n).layer_row_flops;
}

}  // namespace seq2seq_measures_parts

bool measures_every_stack(std::string_view measure) {
  return measure_named(measure, "measure").follows_residual;
}

seq2seq_measured measure_every_stack(const hf_model& m, std::string_view measure,
                                     const std::vector<std::int64_t>& source, seq2seq_forward& f) {
  using namespace seq2seq_measures_parts;
  const measure_spec& spec = measure_named(measure, "measure");
  const std::size_t d = m.config.d_model, Le = f.encoder_layers, He = f.encoder_heads;
  const std::size_t Ld = f.decoder_layers, Hd = f.decoder_heads, ns = f.ns, nt = f.nt;
  measure_shape enc = shape_of(Le, He, ns, ns, d, false), self = shape_of(Ld, Hd, nt, nt, d, false),
                cross = shape_of(Ld, Hd, nt, ns, d, true);
  self.causal = true;
  set_layer_runs(m, f, enc, self, cross);
  if (spec.check)
    for (const measure_shape* s : {&enc, &self, &cross}) spec.check(*s);
  matrix enc_maps(Le * He * ns, ns), self_maps(Ld * Hd * nt, nt), cross_maps(Ld * Hd * nt, ns);
  array_taps enc_views(enc_maps.data(), He, ns, ns), no_maps(nullptr, He, ns, ns);
  array_taps self_views(self_maps.data(), Hd, nt, nt), cross_views(cross_maps.data(), Hd, nt, ns),
      none_d(nullptr, Hd, nt, nt);
  {
    const auto taps = spec.make(enc, enc_views, no_maps);
    run_model(m, source, progress_style::quiet, nullptr, taps.get());
  }
  const auto self_taps = spec.make(self, self_views, none_d);
  const auto cross_taps = spec.make(cross, cross_views, none_d);
  trace_decoder(m, f, self_taps.get(), cross_taps.get());

  seq2seq_measured r;
  r.measure = std::string(measure);
  r.encoder_layers = Le;
  r.decoder_layers = Ld;
  r.ns = ns;
  r.nt = nt;
  r.encoder = layer_maps(enc_maps, enc);
  r.decoder = layer_maps(self_maps, self);
  r.cross = layer_maps(cross_maps, cross);
  r.residual = cross_taps->residual_shares();
  if (measure == "alti") {
    alti_plus_maps chain{
        Le, Ld, ns, nt, r.encoder.data(), r.decoder.data(), r.cross.data(), r.residual.data()};
    r.contributions = alti_plus(chain);
    r.source_share = source_shares(r.contributions, ns, nt);
  }
  r.encoder_weights = std::move(f.encoder_attention);
  r.decoder_weights = std::move(f.decoder_attention);
  r.cross_weights = std::move(f.cross_attention);
  f.encoder_attention = std::move(enc_maps);
  f.decoder_attention = std::move(self_maps);
  f.cross_attention = std::move(cross_maps);
  return r;
}

std::unique_ptr<measure_taps> measure_cross_only(const hf_model& m, const measure_spec& spec,
                                                 seq2seq_forward& f, matrix& weights,
                                                 const std::string& npy_dir) {
  weights = f.cross_attention;
  measure_shape shape = seq2seq_measures_parts::shape_of(f.decoder_layers, f.decoder_heads, f.nt,
                                                         f.ns, m.config.d_model, true);
  if (!npy_dir.empty()) {
    shape.npy_dir = npy_dir;
    shape.npy_folder = streamed_folder(npy_dir);
    shape.prefix = "cross_";
  }
  array_taps views(f.cross_attention.data(), f.decoder_heads, f.nt, f.ns);
  array_taps no_maps(nullptr, f.decoder_heads, f.nt, f.ns);
  std::unique_ptr<measure_taps> taps = spec.make(shape, views, no_maps);
  replay_cross_attention(m, f, *taps);
  return taps;
}

seq2seq_forward measured_run(const hf_model& m, const measure_spec& spec,
                             const std::vector<std::int64_t>& source,
                             const std::vector<std::int64_t>& target) {
  seq2seq_forward f = run_seq2seq(m, source, target);
  if (!spec.make) return f;
  if (measures_every_stack(spec.name)) {
    measure_every_stack(m, spec.name, source, f);
  } else {
    matrix weights;
    measure_cross_only(m, spec, f, weights);
  }
  return f;
}

void add_measured_npy(output_batch& batch, const std::string& dir, const seq2seq_measured& a) {
  const auto at = [&](const std::string& name) {
    return (std::filesystem::path(dir) / name).string();
  };
  std::string m = a.measure;  // value-zeroing's files: value_zeroing
  std::replace(m.begin(), m.end(), '-', '_');
  batch.add(at("encoder_" + m + ".npy"),
            npy_float32({a.encoder_layers, a.ns, a.ns}, a.encoder.data()));
  batch.add(at("decoder_" + m + ".npy"),
            npy_float32({a.decoder_layers, a.nt, a.nt}, a.decoder.data()));
  batch.add(at("cross_" + m + ".npy"), npy_float32({a.decoder_layers, a.nt, a.ns}, a.cross.data()));
  if (!a.residual.empty())  // contrib, alti: the cross attention's residual apart
    batch.add(at("cross_" + m + "_residual.npy"),
              npy_float32({a.decoder_layers, a.nt}, a.residual.data()));
  if (a.contributions.empty()) return;
  const std::vector<float> mm(a.contributions.begin(), a.contributions.end()),
      share(a.source_share.begin(), a.source_share.end());
  batch.add(at("alti_plus.npy"), npy_float32({a.nt, a.ns + a.nt}, mm.data()));
  batch.add(at("source_share.npy"), npy_float32({a.nt}, share.data()));
}

}  // namespace attnviz
