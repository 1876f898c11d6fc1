#!/usr/bin/env python3
"""attn-viz model on encoder-decoder checkpoints against an independent PyTorch forward pass
(tests/data/make_seq2seq_models.py): tiny BART (F32), mBART (BF16), Marian (F16 with its
sinusoids stored, F32 without them), T5 v1.0 (tied, F32) and mT5 (gated-gelu, untied, BF16 in
two shards) in Hugging Face's names. Under teacher forcing every map of
the three stacks (encoder, decoder, cross) and the decoder's hidden state agree to 1e-4
(measured: about 1e-6), and so do the logits recomputed from that hidden state; greedy
generation (with its key/value cache) gives the reference loop's tokens (which reruns the whole
decoder each step), and its maps equal teacher forcing on the generated tokens.

Always checks the checked-in set tests/data/seq2seq/ (seed 0); where torch can be imported, also
makes a fresh set with another seed. Then the JSON against the arrays, same input same bytes,
and the refusals: exit 2, one line, nothing written."""
import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import start_browser  # noqa: E402
from formats import colormap, page_aggregate, page_maps, read_safetensors, shown_tokens, varint  # noqa: E402
from harness import import_numpy, main  # noqa: E402

np = import_numpy()
TOLERANCE = 1e-4
STACKS = (("encoder_attention", "encoder"), ("decoder_attention", "decoder"),
          ("cross_attention", "cross"))


def ids(a):
    return ",".join(str(int(i)) for i in a)


def arrays(out):
    return {name: np.load(os.path.join(out, name + ".npy")) for name, _ in STACKS}


def tensors_of(folder):
    index = os.path.join(folder, "model.safetensors.index.json")
    if not os.path.exists(index):
        return read_safetensors(os.path.join(folder, "model.safetensors"))
    t = {}
    for shard in sorted(set(json.load(open(index))["weight_map"].values())):
        t.update(read_safetensors(os.path.join(folder, shard)))
    return t


def logits_of(folder, hidden):
    """BART's layout: lm_head (tied to model.shared) times the hidden rows, plus
    final_logits_bias; T5: lm_head, or shared times the rows scaled by d^-1/2 when tied."""
    t = tensors_of(folder)
    h = hidden.astype(np.float64)
    if "shared.weight" in t:
        if "lm_head.weight" in t:
            return h @ t["lm_head.weight"].T
        return (h * h.shape[1] ** -0.5) @ t["shared.weight"].T
    return h @ t["model.shared.weight"].T + t["final_logits_bias"][0]


def check_folder(env, folder):
    ref = np.load(os.path.join(folder, "reference.npz"))
    name = os.path.basename(folder)
    out = env.path("tf-" + name)
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids",
            ids(ref["target"]), "--npy", out, "--quiet")
    got = arrays(out)
    worst = 0.0
    for npy, key in STACKS:
        a = got[npy]
        assert a.dtype == np.float32 and a.shape == ref[key].shape, (npy, a.shape, ref[key].shape)
        worst = max(worst, float(np.abs(a - ref[key]).max()))
        assert np.allclose(a.sum(-1), 1.0, atol=1e-5), npy
        # the attention each token receives: every map's column sums (cross: each source token's)
        received = np.load(os.path.join(out, npy.replace("attention", "received") + ".npy"))
        want = a.astype(np.float64).sum(-2)
        assert received.shape == want.shape and np.abs(received - want).max() <= 1e-5, npy
    decoder = got["decoder_attention"]
    assert (decoder[..., np.triu_indices(decoder.shape[-1], 1)[0], np.triu_indices(decoder.shape[-1], 1)[1]] == 0).all()
    hidden = np.load(os.path.join(out, "decoder_hidden.npy"))
    dh = np.abs(hidden - ref["decoder_hidden"]).max() / max(1.0, np.abs(ref["decoder_hidden"]).max())
    logits = logits_of(folder, hidden)
    dl = np.abs(logits - ref["logits"]).max() / max(1.0, np.abs(ref["logits"]).max())
    assert worst <= TOLERANCE and dh <= TOLERANCE and dl <= TOLERANCE, (worst, dh, dl)
    assert (np.load(os.path.join(out, "source_ids.npy")) == ref["source"]).all()
    assert (np.load(os.path.join(out, "target_ids.npy")) == ref["target"]).all()
    tokens = json.load(open(os.path.join(out, "target_tokens.json"), encoding="utf-8"))
    assert tokens == [f"t{i}" for i in ref["target"]], tokens
    if "cross_norms" in ref.files:
        check_cross_norms(env, folder, ref, got["cross_attention"])
    if "alti_plus" in ref.files:
        check_alti_plus(env, folder, ref, got)
    if "contrib_cross" in ref.files:
        check_contrib(env, folder, ref, got)
    if "value_zeroing_cross" in ref.files:
        check_value_zeroing(env, folder, ref)
    if "lens_top" in ref.files:
        check_decoder_lens(env, folder, ref)
    # greedy generation with the cache: the reference loop's tokens, and the maps of teacher
    # forcing on them
    gen = env.path("gen-" + name)
    stdout, _ = env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--max-new",
                        str(int(ref["max_new"])), "--npy", gen, "--quiet")
    generated = np.load(os.path.join(gen, "target_ids.npy"))
    assert generated.tolist() == ref["greedy"].tolist(), (generated, ref["greedy"])
    assert "(generated)" in stdout, stdout
    forced = env.path("forced-" + name)
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids", ids(generated),
            "--npy", forced, "--quiet")
    dg = max(float(np.abs(a - b).max()) for a, b in zip(arrays(gen).values(), arrays(forced).values()))
    assert dg <= 1e-5, dg
    print(f"  {name}: maps {worst:.1e}, hidden {dh:.1e}, logits {dl:.1e}; greedy "
          f"{generated.tolist()} as the reference loop; generated vs teacher-forced maps {dg:.1e}")


def check_cross_norms(env, folder, ref, weights):
    """--measure norms on the cross attention against the reference's value-weighted norms
    (vectors formed one by one, float64): cross_norms.npy and cross_norms_layer.npy within 1e-5
    of the largest, cross_attention.npy still the weights, the JSON's cross maps (what the views
    and the alignment read) the norms with each row scaled to sum to 1."""
    name = os.path.basename(folder)
    out = env.path("norms-" + name)
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids",
            ids(ref["target"]), "--measure", "norms", "--npy", out, "--json", out + ".json",
            "--quiet")
    per_head = np.load(os.path.join(out, "cross_norms.npy"))
    per_layer = np.load(os.path.join(out, "cross_norms_layer.npy"))
    assert per_head.shape == ref["cross_norms"].shape and per_layer.shape == ref["cross_norms_layer"].shape
    dn = np.abs(per_head - ref["cross_norms"]).max() / np.abs(ref["cross_norms"]).max()
    dl = np.abs(per_layer - ref["cross_norms_layer"]).max() / np.abs(ref["cross_norms_layer"]).max()
    assert dn <= 1e-5 and dl <= 1e-5, (dn, dl)
    assert np.array_equal(np.load(os.path.join(out, "cross_attention.npy")), weights)
    doc = json.load(open(out + ".json", encoding="utf-8"))
    assert doc["cross_measure"] == "norms"
    shown = np.array(doc["cross_attention"], dtype=np.float64)
    want = ref["cross_norms"] / ref["cross_norms"].sum(-1, keepdims=True)
    assert np.abs(shown - want).max() <= 1e-5, np.abs(shown - want).max()
    print(f"  {name}: cross norms {per_head.shape}: max relative diff {dn:.1e}, per layer {dl:.1e}")



def check_decoder_lens(env, folder, ref):
    """--logit-lens on an encoder-decoder: each decoder layer's input through the decoder's final
    norm and the output embeddings, against the reference's (the top token wherever its two
    best logits are 1e-3 apart, the probability within 1e-5); the last row is the model's own
    output (its argmax of the logits); printed as a table, drawn by --view logit-lens."""
    name = os.path.basename(folder)
    out = env.path("lens-" + name)
    stdout, _ = env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids",
                        ids(ref["target"]), "--logit-lens", "--npy", out, "--top-k", "3")
    top = np.load(os.path.join(out, "decoder_logit_lens.npy"))
    prob = np.load(os.path.join(out, "decoder_logit_lens_prob.npy"))
    layers, nt = ref["lens_top"].shape
    assert top.shape == (layers + 1, nt) and prob.shape == top.shape
    clear = ref["lens_gap"] > 1e-3
    assert (top[:-1][clear] == ref["lens_top"][clear]).all(), (top, ref["lens_top"])
    assert np.abs(prob[:-1] - ref["lens_prob"]).max() <= 1e-5
    assert (top[-1] == ref["logits"].argmax(-1)).all()
    assert "logit lens of the decoder" in stdout and stdout.count("\n") >= nt + 2, stdout
    png = env.path("lens-" + name + ".png")
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids",
            ids(ref["target"]), "--view", "logit-lens", "--stack", "decoder", "--png", png, "-q")
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    print(f"  {name}: decoder lens {top.shape}, {int(clear.sum())} of {clear.size} top tokens "
          f"clear of a tie, all agree")


def check_contrib(env, folder, ref, weights):
    """--measure contrib on an encoder-decoder against the reference's |T_ij| of every attention
    sub-layer (Kobayashi et al. 2021, the vectors formed one by one, float64): each stack's
    per-layer maps and the cross attention's residual shares within 1e-5, the weights' files
    untouched, the JSON naming the measure."""
    name = os.path.basename(folder)
    out = env.path("contrib-" + name)
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids",
            ids(ref["target"]), "--measure", "contrib", "--npy", out, "--json", out + ".json",
            "--quiet")
    worst = 0.0
    for stack in ("encoder", "decoder", "cross"):
        got = np.load(os.path.join(out, f"{stack}_contrib.npy"))
        assert got.shape == ref["contrib_" + stack].shape, (stack, got.shape)
        worst = max(worst, float(np.abs(got - ref["contrib_" + stack]).max()))
    residual = np.load(os.path.join(out, "cross_contrib_residual.npy"))
    worst = max(worst, float(np.abs(residual - ref["contrib_cross_residual"]).max()))
    assert worst <= 1e-5, worst
    for npy in ("encoder_attention", "decoder_attention", "cross_attention"):
        assert np.array_equal(np.load(os.path.join(out, npy + ".npy")), weights[npy]), npy
    doc = json.load(open(out + ".json", encoding="utf-8"))
    assert doc["measure"] == "contrib" and "source_share" not in doc
    assert not os.path.exists(os.path.join(out, "source_share.npy"))
    print(f"  {name}: contrib in every stack within {worst:.1e}")


def check_value_zeroing(env, folder, ref):
    """--measure value-zeroing on an encoder-decoder against a float64 loop that runs the whole
    reference forward again for every layer and key with that key's value vector zeroed (in the
    encoder, the decoder's self-attention, or a source row in its cross attention): each stack's
    per-layer maps within 1e-5."""
    name = os.path.basename(folder)
    out = env.path("vz-" + name)
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids",
            ids(ref["target"]), "--measure", "value-zeroing", "--npy", out, "--quiet")
    worst = 0.0
    for stack in ("encoder", "decoder", "cross"):
        got = np.load(os.path.join(out, f"{stack}_value_zeroing.npy"))
        want = ref["value_zeroing_" + stack]
        assert got.shape == want.shape, (stack, got.shape, want.shape)
        worst = max(worst, float(np.abs(got - want).max()))
    assert worst <= 1e-5, worst
    assert not os.path.exists(os.path.join(out, "cross_value_zeroing_residual.npy"))
    print(f"  {name}: value zeroing in every stack within {worst:.1e}")


def check_alti_plus(env, folder, ref, weights):
    """--measure alti on an encoder-decoder against the reference's ALTI of every attention
    sub-layer (each key's vector formed one by one, float64) and its ALTI+ composition: the
    three stacks' per-layer maps, the cross attention's residual shares, M and each target row's
    source share within 1e-5; the *_attention.npy files still the weights; the JSON's maps (what
    the views read) ALTI's, every head showing its layer's map."""
    name = os.path.basename(folder)
    out = env.path("alti-" + name)
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids",
            ids(ref["target"]), "--measure", "alti", "--npy", out, "--json", out + ".json",
            "--html", out + ".html", "--quiet")
    # the page: the weights' three stacks, then ALTI's, opening on ALTI's cross attention
    html, data = page_data(out + ".html")
    names = [st["name"] for st in data["stacks"]]
    assert len(names) == 6 and all(n.endswith(" · weights") for n in names[:3]) and \
        all(n.endswith(" · alti") for n in names[3:]), names
    assert data["start"]["stack"] == 5
    for k, npy in enumerate(("encoder_attention", "decoder_attention", "cross_attention")):
        assert np.array_equal(page_maps(html, data, data["stacks"][k]), weights[npy]), npy
    for k, key in enumerate(("alti_encoder", "alti_decoder", "alti_cross")):
        shown = page_maps(html, data, data["stacks"][3 + k])
        assert np.abs(shown - ref[key][:, None]).max() <= 1e-5, key
    worst = 0.0
    for npy, key in (("encoder_alti", "alti_encoder"), ("decoder_alti", "alti_decoder"),
                     ("cross_alti", "alti_cross"), ("cross_alti_residual", "alti_cross_residual"),
                     ("alti_plus", "alti_plus"), ("source_share", "source_share")):
        got = np.load(os.path.join(out, npy + ".npy"))
        assert got.shape == ref[key].shape, (npy, got.shape, ref[key].shape)
        worst = max(worst, float(np.abs(got - ref[key]).max()))
    assert worst <= 1e-5, worst
    assert np.allclose(np.load(os.path.join(out, "alti_plus.npy")).sum(-1), 1.0, atol=1e-5)
    for npy in ("encoder_attention", "decoder_attention", "cross_attention"):
        assert np.array_equal(np.load(os.path.join(out, npy + ".npy")), weights[npy]), npy
    doc = json.load(open(out + ".json", encoding="utf-8"))
    assert doc["measure"] == "alti"
    assert np.abs(np.array(doc["source_share"]) - ref["source_share"]).max() <= 1e-5
    for stack, key in (("encoder_attention", "alti_encoder"), ("decoder_attention", "alti_decoder"),
                       ("cross_attention", "alti_cross")):
        shown = np.array(doc[stack], dtype=np.float64)  # [L, H, rows, keys]
        assert np.abs(shown - ref[key][:, None]).max() <= 1e-5, stack
    share = ref["source_share"]
    # a target as long as the source: still a cross attention (its residual apart from key i)
    same = env.path("alti-same-" + name)
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids",
            ids(ref["source"]), "--measure", "alti", "--npy", same, "--quiet")
    residual = np.load(os.path.join(same, "cross_alti_residual.npy"))
    assert residual.shape == (ref["alti_cross"].shape[0], len(ref["source"]))
    assert np.allclose(np.load(os.path.join(same, "alti_plus.npy")).sum(-1), 1.0, atol=1e-5)
    print(f"  {name}: ALTI+ within {worst:.1e}; source share {share.min():.2f}-{share.max():.2f}")


def test_checked_in_models(env):
    root = os.path.join(env.data, "seq2seq")
    for name in sorted(os.listdir(root)):
        check_folder(env, os.path.join(root, name))


def test_fresh_models_when_torch_is_installed(env):
    try:
        import torch  # noqa: F401
    except ImportError:
        print("  (torch not installed here: only the checked-in models were compared)")
        return
    sys.path.insert(0, env.data)
    import make_seq2seq_models
    root = env.path("fresh")
    make_seq2seq_models.make(root, seed=7)
    for name in sorted(os.listdir(root)):
        check_folder(env, os.path.join(root, name))


def test_json_holds_the_same_maps_and_the_text(env):
    folder = os.path.join(env.data, "seq2seq", "bart_f32")
    ref = np.load(os.path.join(folder, "reference.npz"))
    out = env.path("json-npy")
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--npy", out, "--json",
            env.path("gen.json"), "--max-new", "5", "--quiet")
    doc = json.load(open(env.path("gen.json"), encoding="utf-8"))
    for npy, _ in STACKS:
        assert np.array_equal(np.array(doc[npy], dtype=np.float32), np.load(os.path.join(out, npy + ".npy")))
    assert doc["target"]["generated"] is True and doc["target"]["ids"] == ref["greedy"][:5].tolist()
    assert doc["target"]["decoder_inputs"] == [2] + ref["greedy"][:4].tolist()
    # the forced BOS (0) left out of the text; the vocabulary's names joined
    assert doc["generated_text"] == "".join(f"t{i}" for i in ref["greedy"][1:5]), doc["generated_text"]
    for k in ("a", "b"):
        env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--target-ids",
                ids(ref["target"]), "--npy", env.path("same-" + k), "--json", env.path(f"same-{k}.json"),
                "--quiet")
    for f in sorted(os.listdir(env.path("same-a"))):
        assert open(env.path("same-a/" + f), "rb").read() == open(env.path("same-b/" + f), "rb").read(), f
    assert open(env.path("same-a.json"), "rb").read() == open(env.path("same-b.json"), "rb").read()


def test_generation_stops_at_the_end_token(env):
    """A copy of BART whose final_logits_bias makes </s> (2) win every free step: the forced BOS,
    then </s>, and nothing after it."""
    folder = broken_copy(env, "eos")
    path = os.path.join(folder, "model.safetensors")
    tensors = read_safetensors(path)
    tensors["final_logits_bias"][0, 2] = 100.0
    from formats import write_safetensors
    write_safetensors(path, tensors)
    out = env.path("eos-npy")
    stdout, _ = env.run("model", "--model", folder, "--ids", "5,6,7", "--max-new", "20", "--npy", out,
                        "--quiet")
    assert np.load(os.path.join(out, "target_ids.npy")).tolist() == [0, 2]
    assert np.load(os.path.join(out, "cross_attention.npy")).shape == (2, 2, 2, 3)
    assert "2 target tokens (generated)" in stdout, stdout


def python_alignment(cross, src_tokens, tgt_tokens, method):
    """The word alignment recomputed here: mean cross map, target rows averaged and source
    columns summed per word (when pieces carry SentencePiece's mark, a marked piece begins a
    word and the others continue it; else each piece is a word; specials dropped)."""
    def words(tokens):
        marked = any(t.startswith("\u2581") for t in tokens)
        spans = []
        for k, t in enumerate(tokens):
            if t.startswith("<") and t.endswith(">"):
                continue
            if not marked or t.startswith("\u2581") or not spans or spans[-1][1] != k:
                spans.append([k, k + 1])
            else:
                spans[-1][1] = k + 1
        return spans
    mean = cross.mean(axis=(0, 1)).astype(np.float64)
    rows, cols = words(tgt_tokens), words(src_tokens)
    m = np.array([[mean[r0:r1, c0:c1].sum() / (r1 - r0) for c0, c1 in cols] for r0, r1 in rows])
    pairs = {(int(np.argmax(m[j])), j) for j in range(len(rows))}
    if method == "intersect":
        pairs = {(i, j) for i, j in pairs if int(np.argmax(m[:, i])) == j}
    return sorted(pairs)


def test_alignment_argmax_intersect_and_gold_scores(env):
    folder = os.path.join(env.data, "seq2seq", "t5_f32_tied")
    ref = np.load(os.path.join(folder, "reference.npz"))
    src, tgt = " ".join(f"t{i}" for i in ref["source"]), " ".join(f"t{i}" for i in ref["target"])
    gold = env.path("gold.txt")
    first = env.path("align-first.txt")
    env.run("model", "--model", folder, "--text", src, "--target", tgt, "--align", first, "--quiet")
    predicted = sorted(tuple(int(x) for x in p.split("-")) for p in open(first).read().split())
    # a gold standard that agrees in part: every other predicted pair sure, the rest possible
    # (written i?j and i-j-P), and two sure pairs no method predicts
    sure = set(predicted[0::2]) | {(99 % 20, 11), (98 % 20, 11)}
    sure = {p for p in sure if p not in predicted[1::2]}
    possible = sure | set(predicted[1::2])
    with open(gold, "w") as f:
        items = [f"{i}-{j}" for i, j in sorted(sure)]
        items += [f"{i}?{j}" if k % 2 else f"{i}-{j}-P" for k, (i, j) in enumerate(sorted(possible - sure))]
        f.write(" ".join(items) + "\n")
    for method in ("argmax", "intersect"):
        out = env.path("align-" + method)
        stdout, _ = env.run("model", "--model", folder, "--text", src, "--target", tgt, "--npy", out,
                            "--align", out + ".txt", "--align-method", method, "--gold", gold,
                            "--view", "alignment", "--png", out + ".png", "--quiet")
        cross = np.load(os.path.join(out, "cross_attention.npy"))
        src_tokens = json.load(open(os.path.join(out, "source_tokens.json"), encoding="utf-8"))
        tgt_tokens = json.load(open(os.path.join(out, "target_tokens.json"), encoding="utf-8"))
        want = python_alignment(cross, src_tokens, tgt_tokens, method)
        got = sorted(tuple(int(x) for x in p.split("-")) for p in open(out + ".txt").read().split())
        assert got == want, (method, got, want)
        a = set(got)
        aer = 1 - (len(a & sure) + len(a & possible)) / (len(a) + len(sure))
        assert 0 < aer < 1, aer
        line = [l for l in stdout.splitlines() if l.startswith("alignment (")][0]
        assert f"AER {aer:.3f}" in line and f"precision {len(a & possible) / len(a):.3f}" in line \
            and f"recall {len(a & sure) / len(sure):.3f}" in line, (line, aer)
        print(f"  {method}: {len(got)} pairs as recomputed here; {line}")
    # the word matrix has as many words as the texts: a gold pair past them is refused
    with open(gold, "w") as f:
        f.write("0-0 40-1\n")
    refuse(env, ["--model", folder, "--text", src, "--target", tgt, "--gold", gold], "gold.txt:1",
           "40-1", "words")
    with open(gold, "w") as f:
        f.write("0-0\n1-1\n")
    refuse(env, ["--model", folder, "--text", src, "--target", tgt, "--gold", gold], "gold.txt:2",
           "one line")


def test_the_stacks_draw_their_views(env):
    folder = os.path.join(env.data, "seq2seq", "bart_f32")
    base = ["model", "--model", folder, "--text", "t5 t6 t7 t8 t9", "--target", "t9 t8 t7", "--quiet"]
    env.run(*base, "--stack", "encoder", "--view", "rollout", "--png", env.path("enc.png"),
            "--html", env.path("enc.html"))
    env.run(*base, "--stack", "decoder", "--view", "model", "--svg", env.path("dec.svg"))
    env.run(*base, "--view", "mean", "--layers", "1", "--svg", env.path("cross.svg"))
    assert "layer 0-1" not in open(env.path("cross.svg"), encoding="utf-8").read()
    assert "cross attention mean over layers 1" in open(env.path("cross.svg"), encoding="utf-8").read()
    page = open(env.path("enc.html"), encoding="utf-8").read()
    assert "bart_f32" in page and len(page) > 1000
    stdout, _ = env.run(*base, "--stack", "decoder", "--term")
    assert "t9" in stdout and "t7" in stdout
    refuse(env, base[1:] + ["--view", "model", "--png", env.path("x.png")], "--stack cross", "model")
    refuse(env, base[1:] + ["--term"], "--term", "--stack encoder")
    refuse(env, base[1:] + ["--stack", "encoder", "--view", "alignment", "--png", env.path("x.png")],
           "--view alignment", "--stack encoder")
    gpt2 = os.path.join(env.data, "hf", "gpt2_f32")
    refuse(env, ["--model", gpt2, "--ids", "1,2,3", "--view", "alignment", "--png", env.path("x.png")],
           "--view alignment", "encoder–decoder")


def page_data(path):
    import re
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="attnviz-data">(.*?)</script>', html, re.S)
    assert m, "no data block"
    return html, json.loads(m.group(1))


def js(browser, expression):
    return json.loads(browser.evaluate(f"JSON.stringify({expression})"))


def choose(browser, element, value):
    browser.evaluate(f"(function(){{var s=document.getElementById('{element}');"
                     f"s.value='{value}';s.dispatchEvent(new Event('change'));}})()")


def text_of(browser, element):
    return browser.evaluate(f"document.getElementById('{element}').textContent")


def pixel(browser, x, y):
    return js(browser, f"""(function(){{var c=document.getElementById('map'),
        b=c.getBoundingClientRect(), r=c.width/b.width;
        return Array.from(c.getContext('2d').getImageData(Math.floor(({x}-b.left)*r),
        Math.floor(({y}-b.top)*r),1,1).data).slice(0,3);}})()""")


def test_the_page_holds_the_three_stacks_behind_a_selector(env):
    """--html on an encoder-decoder: one offline page of the encoder, decoder and cross stacks
    (the cross maps target x source), opening on --stack; each stack's maps equal the .npy files;
    in Chromium the Stack selector swaps the layers, heads, tokens and maps: hover values, cell
    colours, the causal mask and the head view's lines checked per stack."""
    folder = os.path.join(env.data, "seq2seq", "bart_f32")
    page, out = env.path("three.html"), env.path("three-npy")
    env.run("model", "--model", folder, "--text", "t5 t6 t7 t8 t9 t10", "--target", "t9 t8 t7",
            "--html", page, "--npy", out, "--layer", "1", "--head", "1", "--quiet")
    got = arrays(out)
    src = shown_tokens(json.load(open(os.path.join(out, "source_tokens.json"))))
    tgt = shown_tokens(json.load(open(os.path.join(out, "target_tokens.json"))))
    html, data = page_data(page)
    assert "default-src 'none'" in html and "<script src" not in html
    stacks = data["stacks"]
    assert [s["name"] for s in stacks] == ["encoder self-attention", "decoder self-attention (causal)",
                                           "cross attention (target → source)"]
    assert data["start"]["stack"] == 2 and data["start"]["layer"] == 1 and data["start"]["head"] == 1
    for st, (npy, _) in zip(stacks, STACKS):
        a = got[npy].astype(np.float64)
        L, H, n, m = a.shape
        assert (st["layers"], st["heads"], st["n"], st.get("n_keys", st["n"])) == (L, H, n, m)
        maps = page_maps(html, data, st)
        assert np.array_equal(maps, a), npy
        mean = page_aggregate(html, data, 0, st)
        assert np.allclose(mean, a.mean(axis=(0, 1)), rtol=1e-5, atol=1e-7), npy
    assert stacks[2]["tokens"] == tgt and stacks[2]["key_tokens"] == src
    assert [g["label"] for g in stacks[2]["aggregates"]] == ["mean of every layer and head",
                                                             "max of every layer and head"]
    assert "rollout through every layer" in [g["label"] for g in stacks[0]["aggregates"]]
    cmap = colormap(env, "viridis")
    browser = start_browser()
    try:
        url = "file://" + os.path.abspath(page)
        browser.open(url)
        assert js(browser, "window.attnviz.state()")["stack"] == 2
        assert text_of(browser, "maptitle") == "cross attention (target → source) · layer 1 · head 1"
        cross = got["cross_attention"].astype(np.float64)
        vmax = stacks[2]["vmax"]
        for i, j in [(0, 0), (2, 5), (1, 3), (len(tgt) - 1, len(src) - 1)]:
            c = js(browser, f"window.attnviz.cellCenter({i}, {j})")
            browser.move_mouse(c["x"], c["y"])
            text = text_of(browser, "hover")
            assert f"query “{tgt[i]}” ({i}) → key “{src[j]}” ({j})" in text, text
            assert f"weight a = {cross[1, 1, i, j]:.4f}" in text, (text, cross[1, 1, i, j])
            want = cmap[min(255, int(cross[1, 1, i, j] / vmax * 256))]
            got_px = pixel(browser, c["x"] + 2, c["y"] + 2)
            assert max(abs(g - w) for g, w in zip(got_px, want)) <= 1, (i, j, got_px, want)
        # the head view of a cross head: target on the left, source on the right
        choose(browser, "draw", "lines")
        expect = [[1, i, j] for i in range(len(tgt)) for j in range(len(src)) if cross[1, 1, i, j] >= 0.01]
        drawn = js(browser, "window.attnviz.lines()")
        assert drawn == expect, (drawn, expect)
        choose(browser, "draw", "map")
        # the encoder: its own tokens, layers, heads; layer and head kept
        choose(browser, "stack", "0")
        assert js(browser, "window.attnviz.state()")["stack"] == 0
        enc = got["encoder_attention"].astype(np.float64)
        assert int(browser.evaluate("document.getElementById('layer').options.length")) == \
            enc.shape[0] + len(stacks[0]["aggregates"])
        assert int(browser.evaluate("document.getElementById('head').options.length")) == enc.shape[1] + 1
        assert text_of(browser, "maptitle") == "encoder self-attention · layer 1 · head 1"
        c = js(browser, "window.attnviz.cellCenter(4, 1)")
        browser.move_mouse(c["x"], c["y"])
        text = text_of(browser, "hover")
        assert f"query “{src[4]}” (4) → key “{src[1]}” (1)" in text, text
        assert f"weight a = {enc[1, 1, 4, 1]:.4f}" in text, text
        # the decoder: causal
        choose(browser, "stack", "1")
        dec = got["decoder_attention"].astype(np.float64)
        c = js(browser, "window.attnviz.cellCenter(0, 2)")
        browser.move_mouse(c["x"], c["y"])
        assert "hidden by the causal mask" in text_of(browser, "hover")
        c = js(browser, "window.attnviz.cellCenter(2, 1)")
        browser.move_mouse(c["x"], c["y"])
        text = text_of(browser, "hover")
        assert f"query “{tgt[2]}” (2) → key “{tgt[1]}” (1)" in text, text
        assert f"weight a = {dec[1, 1, 2, 1]:.4f}" in text, text
        # an aggregate stays chosen across stacks: the mean
        choose(browser, "layer", str(dec.shape[0]))
        choose(browser, "stack", "2")
        assert text_of(browser, "maptitle") == "cross attention (target → source) · mean of every layer and head"
        c = js(browser, "window.attnviz.cellCenter(1, 2)")
        browser.move_mouse(c["x"], c["y"])
        assert f"weight a = {cross[:, :, 1, 2].mean():.4f}" in text_of(browser, "hover")
        assert browser.console_errors() == []
        assert browser.requests() == [url], browser.requests()
    finally:
        browser.close()
    # past 4 M weights over the three stacks the page holds 16-bit weights (render/page_blobs.h)
    marian = os.path.join(env.samples, "rv-kjv-marian")  # 3 + 3 layers x 4 heads: 36 n^2 weights
    big, big_npy = env.path("big.html"), env.path("big-npy")
    env.run("model", "--model", marian, "--ids", ",".join(["5"] * 340), "--target-ids",
            ",".join(["6"] * 340), "--html", big, "--npy", big_npy, "-q")
    html, data = page_data(big)
    assert data["encoding"] == "u16"
    for st, (npy, _) in zip(data["stacks"], STACKS):
        want = np.load(os.path.join(big_npy, npy + ".npy")).astype(np.float64)
        assert np.abs(page_maps(html, data, st) - want).max() <= 1 / 131070 + 1e-9, npy


def test_marian_reads_source_and_target_with_their_own_sentencepiece_files(env):
    """A Marian folder as opus-mt ships it: source.spm, target.spm and one vocab.json. The ids
    must be python3-sentencepiece's pieces mapped through vocab.json (most of them to <unk>'s
    id here), then </s>, as Hugging Face's MarianTokenizer does."""
    try:
        import sentencepiece as spm
    except ImportError:
        print("  (python3-sentencepiece not installed here: skipped)")
        return
    folder = broken_copy(env, "marian-spm", "marian_f32_computed")
    os.remove(os.path.join(folder, "tokenizer.json"))
    spm_dir = os.path.join(env.data, "tokenizers", "spm")
    shutil.copy(os.path.join(spm_dir, "nfkc.model"), os.path.join(folder, "source.spm"))
    shutil.copy(os.path.join(spm_dir, "identity.model"), os.path.join(folder, "target.spm"))
    src_sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, "source.spm"))
    tgt_sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, "target.spm"))
    # 40 ids (the model's vocabulary): </s>, <unk>, then the most frequent pieces of each side
    vocab = {"</s>": 0, "<unk>": 1}
    for sp in (src_sp, tgt_sp):
        for i in range(3, 22):
            vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab = dict(list(vocab.items())[:39])
    vocab["<pad>"] = 39
    # vocab.json must map every piece (issue 44): the others to <unk>'s id, as a vocabulary cut
    # to the model's 40 rows would
    for sp in (src_sp, tgt_sp):
        for i in range(sp.get_piece_size()):
            if not (sp.is_control(i) or sp.is_unknown(i)):
                vocab.setdefault(sp.id_to_piece(i), 1)
    json.dump(vocab, open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8"), ensure_ascii=False)
    texts = [("the Lord is good", "  the  Lord\tis good "), ("Émigré ①", "café, the end.")]
    for source, target in texts:
        out = env.path("marian-spm-out")
        shutil.rmtree(out, ignore_errors=True)
        env.run("model", "--model", folder, "--text", source, "--target", target, "--npy", out, "--quiet")
        for side, sp, text in (("source", src_sp, source), ("target", tgt_sp, target)):
            pieces = sp.encode(text, out_type=str)
            want = [vocab.get(p, 1) for p in pieces] + [0]
            got = np.load(os.path.join(out, f"{side}_ids.npy")).tolist()
            assert got == want, (side, text, got, want)
            tokens = json.load(open(os.path.join(out, f"{side}_tokens.json"), encoding="utf-8"))
            assert tokens == pieces + ["</s>"], (tokens, pieces)
    print(f"  {len(texts)} pairs: source and target ids as sentencepiece + vocab.json give them")


def test_draw_reads_the_cross_attention_file(env):
    folder = os.path.join(env.data, "seq2seq", "bart_f32")
    out = env.path("draw-cross")
    env.run("model", "--model", folder, "--text", "t5 t6 t7 t8 t9", "--target", "t9 t8 t7", "--npy", out,
            "--view", "alignment", "--svg", env.path("model-align.svg"), "--quiet")
    args = ["draw", "--weights", os.path.join(out, "cross_attention.npy"), "--tokens",
            os.path.join(out, "target_tokens.json"), "--key-tokens", os.path.join(out, "source_tokens.json")]
    stdout, _ = env.run(*args, "--view", "alignment", "--svg", env.path("draw-align.svg"))
    assert "2 layers × 2 heads · 3 query × 5 key tokens · cross" in stdout, stdout
    strip = lambda t: "\n".join(l for l in t.splitlines() if "cross_attention.npy" not in l and "bart" not in l)
    drawn = open(env.path("draw-align.svg"), encoding="utf-8").read()
    made = open(env.path("model-align.svg"), encoding="utf-8").read()
    # the same cells, marks and labels as the model's own figure (titles name their sources)
    assert drawn.count("<rect") == made.count("<rect") and ">t9<" in drawn and ">t5<" in drawn
    env.run(*args, "--view", "head", "--layer", "1", "--head", "1", "--png", env.path("draw-head.png"))
    _, err = env.run(*args, "--npy", env.path("nope"), expect=2)
    assert "--npy" in err and not os.path.exists(env.path("nope"))
    _, err = env.run("draw", "--weights", os.path.join(out, "cross_attention.npy"), "--key-tokens",
                     os.path.join(out, "source_tokens.json"), "--png", env.path("x.png"), expect=2)
    assert "--tokens" in err
    _, err = env.run("draw", "--weights", os.path.join(out, "cross_attention.npy"), "--tokens",
                     os.path.join(out, "source_tokens.json"), "--key-tokens",
                     os.path.join(out, "source_tokens.json"), "--png", env.path("x.png"), expect=2)
    assert "holds 5 tokens; the maps have 3 query rows" in err, err
    _, err = env.run("draw", "--weights", os.path.join(out, "cross_attention.npy"), "--png",
                     env.path("x.png"), expect=2)
    assert "--key-tokens" in err, err


def test_compare_ranks_cross_heads_by_alignment_error(env):
    folder = os.path.join(env.data, "seq2seq", "t5_f32_tied")
    src = " ".join(f"t{i}" for i in range(3, 13))
    tgt = "t9 t8 t7 t6 t5"
    gold = env.path("rank-gold.txt")
    with open(gold, "w") as f:
        f.write("0-0 1-1 2?2 3-3 4-4-P 9-4\n")
    out = env.path("rank-npy")
    env.run("model", "--model", folder, "--text", src, "--target", tgt, "--npy", out, "--quiet")
    stdout, _ = env.run("compare", "--model", folder, "--text", src, "--target", tgt, "--stack", "cross",
                        "--gold", gold, "--json", env.path("rank.json"), "--png", env.path("rank.png"), "-q")
    doc = json.load(open(env.path("rank.json")))
    cross = np.load(os.path.join(out, "cross_attention.npy"))
    src_tokens = json.load(open(os.path.join(out, "source_tokens.json"), encoding="utf-8"))
    tgt_tokens = json.load(open(os.path.join(out, "target_tokens.json"), encoding="utf-8"))
    sure = {(0, 0), (1, 1), (3, 3), (9, 4)}
    possible = sure | {(2, 2), (4, 4)}
    aers = []
    for row in doc["heads"]:
        l, h = row["layer"], row["head"]
        a = set(python_alignment(cross[l:l + 1, h:h + 1], src_tokens, tgt_tokens, "argmax"))
        aer = 1 - (len(a & sure) + len(a & possible)) / (len(a) + len(sure))
        assert abs(row["aer"] - aer) < 1e-12, (row, aer)
        aers.append(aer)
    assert aers == sorted(aers) and len(aers) == cross.shape[0] * cross.shape[1]
    assert doc["means"][-1]["label"] == "all heads (mean)"
    assert stdout.splitlines()[1].split()[0:2] == doc["heads"][0]["label"].split()
    # the self-attention stacks compare as a decoder-only model's heads do
    stdout, _ = env.run("compare", "--model", folder, "--text", src, "--target", tgt, "--stack", "decoder",
                        "--between", "layers", "-q")
    assert "decoder" in stdout
    base = ["compare", "--model", folder, "--text", src, "--target", tgt]
    _, err = env.run(*base, "--stack", "cross", expect=2)
    assert "--gold" in err
    _, err = env.run(*base, "--stack", "cross", "--gold", gold, "--between", "layers", expect=2)
    assert "--between heads" in err
    _, err = env.run("compare", "--model", os.path.join(env.data, "hf", "gpt2_f32"), "--ids", "1,2",
                     "--gold", gold, expect=2)
    assert "encoder–decoder" in err


def test_heads_searches_either_self_attention_stack(env):
    folder = os.path.join(env.data, "seq2seq", "bart_f32")
    for stack, layers, heads in (("decoder", 2, 2), ("encoder", 2, 4)):
        stdout, _ = env.run("heads", "--model", folder, "--stack", stack, "--period", "12", "--json",
                            env.path(f"heads-{stack}.json"), "-q")
        doc = json.load(open(env.path(f"heads-{stack}.json")))
        assert doc["model"]["stack"] == stack and len(doc["heads"]) == layers * heads, doc["model"]
        assert f"the {stack}'s heads" in stdout
    # the default is the decoder's; the decoder's maps are those of attn-viz model on the same ids
    stdout, _ = env.run("heads", "--model", folder, "--period", "12", "-q")
    assert "the decoder's heads" in stdout
    _, err = env.run("heads", "--model", folder, "--stack", "cross", expect=2)
    assert "compare --stack cross" in err
    _, err = env.run("heads", "--model", os.path.join(env.data, "hf", "gpt2_f32"), "--stack", "encoder",
                     expect=2)
    assert "--stack" in err and "gpt2" in err


def test_banned_tokens_are_never_generated(env):
    """bad_words_ids (Marian bans its pad token): the greedy choice skips them."""
    folder = broken_copy(env, "banned")
    ref = np.load(os.path.join(folder, "reference.npz"))
    cfg = json.load(open(os.path.join(folder, "config.json")))
    cfg["bad_words_ids"] = [[int(t)] for t in set(ref["greedy"][1:].tolist())]
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    out = env.path("banned-npy")
    env.run("model", "--model", folder, "--ids", ids(ref["source"]), "--max-new", str(int(ref["max_new"])),
            "--npy", out, "--quiet")
    generated = np.load(os.path.join(out, "target_ids.npy")).tolist()
    assert generated[0] == ref["greedy"][0] and not set(generated[1:]) & set(ref["greedy"][1:].tolist()), generated
    cfg["bad_words_ids"] = [[5, 6]]
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    refuse(env, ["--model", folder, "--ids", "5,6"], "bad_words_ids", "[5,6]")


def refuse(env, args, *words):
    _, err = env.run("model", *args, "--npy", env.path("refused"), expect=2)
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("attn-viz: error:"), err
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not os.path.exists(env.path("refused")), "something was written"


def broken_copy(env, name, source="bart_f32"):
    folder = env.path(name)
    shutil.copytree(os.path.join(env.data, "seq2seq", source), folder)
    return folder


def test_bad_inputs_are_refused_with_one_message(env):
    good = os.path.join(env.data, "seq2seq", "bart_f32")
    src = "5,6,7"
    refuse(env, ["--model", good, "--ids", src, "--target-ids", "3,60"], "--target-ids", "60",
           "vocabulary")
    refuse(env, ["--model", good, "--ids", src, "--target-ids", ",".join(["3"] * 33)], "--target-ids",
           "33 tokens", "32 positions")
    refuse(env, ["--model", good, "--ids", src, "--target-ids", "3,x"], "--target-ids", "'x'")
    gpt2 = os.path.join(env.data, "hf", "gpt2_f32")
    refuse(env, ["--model", gpt2, "--ids", src, "--target-ids", "1"], "--target", "encoder–decoder",
           "gpt2")
    # a missing tensor of the decoder, named with its file
    folder = broken_copy(env, "missing")
    path = os.path.join(folder, "model.safetensors")
    tensors = read_safetensors(path)
    del tensors["model.decoder.layers.1.encoder_attn.k_proj.weight"]
    from formats import write_safetensors
    write_safetensors(path, tensors)
    refuse(env, ["--model", folder, "--ids", src, "--target-ids", "3"],
           "model.decoder.layers.1.encoder_attn.k_proj.weight", "model.safetensors")
    # a config switch attn-viz does not run, named with its value
    folder = broken_copy(env, "unshared", "marian_f32_computed")
    cfg = json.load(open(os.path.join(folder, "config.json")))
    cfg["share_encoder_decoder_embeddings"] = False
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    refuse(env, ["--model", folder, "--ids", src], "share_encoder_decoder_embeddings")
    folder = broken_copy(env, "quick", "bart_f32")
    cfg = json.load(open(os.path.join(folder, "config.json")))
    cfg["activation_function"] = "quick_gelu"
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    refuse(env, ["--model", folder, "--ids", src], "activation_function", "'quick_gelu'")
    folder = broken_copy(env, "t5proj", "t5_f32_tied")
    cfg = json.load(open(os.path.join(folder, "config.json")))
    cfg["feed_forward_proj"] = "gated-quick_gelu"
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    refuse(env, ["--model", folder, "--ids", src], "feed_forward_proj", "'quick_gelu'")
    # T5's position table lives in block 0 of each stack
    folder = broken_copy(env, "t5bias", "t5_f32_tied")
    path = os.path.join(folder, "model.safetensors")
    tensors = read_safetensors(path)
    del tensors["decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]
    write_safetensors(path, tensors)
    refuse(env, ["--model", folder, "--ids", src],
           "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight")
    # the commands that read one self-attention stack say so, naming what shows these models
    for args in (["explain", "--model", good, "--text", "t5", "--query", "t5"], ["bench", "--model", good]):
        _, err = env.run(*args, expect=2)
        assert "encoder–decoder model (bart)" in err and "--stack" in err, (args, err)
    # Marian's stored sinusoids must be the formula's
    folder = broken_copy(env, "positions", "marian_f16")
    path = os.path.join(folder, "model.safetensors")
    tensors = read_safetensors(path)
    tensors["model.decoder.embed_positions.weight"] = tensors["model.decoder.embed_positions.weight"] * 0.5
    write_safetensors(path, tensors, "F16")
    refuse(env, ["--model", folder, "--ids", src], "model.decoder.embed_positions.weight",
           "sinusoid")


def test_token_ids_of_the_config_are_checked_before_any_read(env):
    """decoder_start_token_id or forced_bos_token_id past the vocabulary: one message naming the
    key and config.json, for model, model --target and heads (it used to read past the table)."""
    sample = os.path.join(env.samples, "rv-kjv-marian")
    for key in ("decoder_start_token_id", "forced_bos_token_id"):
        for bad in (7669, 8000, 1000000, 1000000000):
            folder = env.path(f"ids-{key}-{bad}")
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(sample, folder)
            cfg = json.load(open(os.path.join(folder, "config.json")))
            cfg[key] = bad
            json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
            for args in (["model", "--model", folder, "--text", "Y dijo Dios", "--max-new", "2"],
                         ["model", "--model", folder, "--text", "Y dijo Dios", "--target", "And God"],
                         ["heads", "--model", folder]):
                _, err = env.run(*args, expect=2)
                lines = [l for l in err.splitlines() if l.strip()]
                assert len(lines) == 1, (args, err)
                assert f"config.json: key '{key}': expected a token id below the vocabulary's 7669" \
                    in lines[0], (args, lines[0])


def score_offset(data):
    """The byte of the first piece's score in a SentencePiece ModelProto: the first field 1
    (pieces) holds field 1 (the piece, a string) and field 2 (its score, 32-bit)."""
    key, at = varint(data, 0)
    assert key == (1 << 3 | 2), key
    end_len, at = varint(data, at)
    end = at + end_len
    while at < end:
        key, at = varint(data, at)
        if key == (2 << 3 | 5):
            return at
        if key & 7 == 2:
            n, at = varint(data, at)
            at += n
        elif key & 7 == 0:
            _, at = varint(data, at)
        elif key & 7 == 5:
            at += 4
    raise AssertionError("no score in the first piece")


def test_a_marian_vocabulary_must_hold_every_piece(env):
    sample = os.path.join(env.samples, "rv-kjv-marian")
    folder = env.path("short-vocab")
    shutil.copytree(sample, folder)
    vocab = json.load(open(os.path.join(folder, "vocab.json"), encoding="utf-8"))
    kept = dict(list(vocab.items())[:100])
    json.dump(kept, open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8"))
    _, err = env.run("model", "--model", folder, "--text", "Y dijo Dios", "--max-new", "2", expect=2)
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1 and "vocab.json: has no id for" in lines[0] and "source.spm" in lines[0] \
        and "must map every piece" in lines[0], err
    # a score that is not a number: the SentencePiece file is refused at the score's byte
    folder = env.path("nan-score")
    shutil.copytree(sample, folder)
    path = os.path.join(folder, "source.spm")
    data = bytearray(open(path, "rb").read())
    data[score_offset(data):score_offset(data) + 4] = struct.pack("<f", float("nan"))
    open(path, "wb").write(bytes(data))
    _, err = env.run("model", "--model", folder, "--text", "Y dijo Dios", "--max-new", "2", expect=2)
    assert "source.spm" in err and "a finite score, got nan" in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
