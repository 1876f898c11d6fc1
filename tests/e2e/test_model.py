#!/usr/bin/env python3
"""attn-viz model against an independent PyTorch forward pass (tests/data/make_hf_models.py):
tiny checkpoints of every family in Hugging Face's exact names, shapes and file layouts (GPT-2
with and without its prefix, F16 and sharded; BERT with its masked-LM head, and with old
gamma/beta names in BF16; Llama with grouped-query attention in BF16; Qwen2 with q/k/v biases
and tied embeddings, sharded; Mistral with head_dim and a sliding window in F16). Every layer's
every head's weights and the last hidden state agree to 1e-4 (measured: about 1e-6), and so do
the top predictions.

Always checks the checked-in set tests/data/hf/ (seed 0); where torch can be imported, also
makes a fresh set with another seed and checks it. Then the --npy contract (shapes, dtypes,
tokens), JSON against the arrays, the figure, and the refusals: exit 2, one line, nothing
written."""
import json
import os
import re
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import read_safetensors  # noqa: E402
from harness import import_numpy, main, png_size  # noqa: E402

np = import_numpy()
TOLERANCE = 1e-4
NORMS_TOLERANCE = 1e-5  # relative to the largest (measured: about 1e-6)


def ids_of(folder):
    return ",".join(str(i) for i in np.load(os.path.join(folder, "reference.npz"))["ids"])


def check_folder(env, folder):
    ref = np.load(os.path.join(folder, "reference.npz"))
    name = os.path.basename(folder)
    out = env.path("npy-" + name)
    args = ["model", "--model", folder, "--ids", ids_of(folder), "--npy", out, "--quiet"]
    has_head = ref["top_probs"].sum() > 0
    if has_head:
        args += ["--top-k", "3"]
    stdout, _ = env.run(*args)
    attention = np.load(os.path.join(out, "attention.npy"))
    hidden = np.load(os.path.join(out, "hidden.npy"))
    assert attention.dtype == np.float32 and attention.shape == ref["attention"].shape, attention.shape
    da = np.abs(attention - ref["attention"]).max()
    dh = np.abs(hidden - ref["hidden"]).max() / max(1.0, np.abs(ref["hidden"]).max())
    print(f"  {name}: {attention.shape}: max |weights diff| {da:.2e}, hidden {dh:.2e}")
    assert da <= TOLERANCE and dh <= TOLERANCE, (da, dh)
    assert np.allclose(attention.sum(-1), 1.0, atol=1e-5)
    ids = np.load(os.path.join(out, "token_ids.npy"))
    assert ids.dtype == np.int64 and (ids == ref["ids"]).all()
    tokens = json.load(open(os.path.join(out, "tokens.json"), encoding="utf-8"))
    assert len(tokens) == len(ids) and all(isinstance(t, str) and t for t in tokens)
    if "norms" in ref.files:
        check_norms(env, folder, ref, attention)
    if "contrib" in ref.files:
        check_contrib(env, folder, ref, attention)
    if "alti" in ref.files:
        check_alti(env, folder, ref)
    if "value_zeroing" in ref.files:
        check_value_zeroing(env, folder, ref)
    if "lens_ids" in ref.files:
        check_logit_lens(env, folder, ref)
    if has_head:  # the printed top 3 are the reference's, with its probabilities
        probs = ref["top_probs"]
        want = list(np.argsort(-probs)[:3])
        lines = [l.split() for l in stdout.splitlines() if l.strip()[:2].strip().rstrip(".").isdigit()]
        got = [int(l[2]) for l in lines]
        assert got == want, (got, want, stdout)
        for l, w in zip(lines, want):
            assert abs(float(l[-1]) - probs[w]) < 1e-4, (l, probs[w])


def check_norms(env, folder, ref, weights):
    """--measure norms against the reference's value-weighted norms (Kobayashi et al. 2020,
    formed there as full vectors, in float64): norms.npy per head, norms_layer.npy per layer,
    within 1e-4 of the largest; attention.npy still the weights, to the byte; the JSON's maps
    (what every view reads) the per-head norms with each row scaled to sum to 1."""
    name = os.path.basename(folder)
    out = env.path("norms-" + name)
    env.run("model", "--model", folder, "--ids", ids_of(folder), "--measure", "norms", "--npy", out,
            "--json", out + ".json", "--quiet")
    got = np.load(os.path.join(out, "norms.npy"))
    layer = np.load(os.path.join(out, "norms_layer.npy"))
    assert got.dtype == np.float32 and got.shape == ref["norms"].shape, got.shape
    assert layer.shape == ref["norms_layer"].shape, layer.shape
    dn = np.abs(got - ref["norms"]).max() / np.abs(ref["norms"]).max()
    dl = np.abs(layer - ref["norms_layer"]).max() / np.abs(ref["norms_layer"]).max()
    print(f"  {name}: norms {got.shape}: max relative diff {dn:.2e}, per layer {dl:.2e}")
    assert dn <= NORMS_TOLERANCE and dl <= NORMS_TOLERANCE, (dn, dl)
    assert np.array_equal(np.load(os.path.join(out, "attention.npy")), weights)
    doc = json.load(open(out + ".json", encoding="utf-8"))
    assert doc["measure"] == "norms"
    shown = np.array([l["heads"] for l in doc["layers"]], dtype=np.float64)
    want = ref["norms"] / ref["norms"].sum(-1, keepdims=True)
    assert np.abs(shown - want).max() <= TOLERANCE, np.abs(shown - want).max()
    assert np.allclose(shown.sum(-1), 1.0, atol=1e-5)
    assert (shown[ref["attention"] == 0] == 0).all(), "a masked key got a share"


def check_contrib(env, folder, ref, weights):
    """--measure contrib against the reference's residual- and norm-aware contributions
    (Kobayashi et al. 2021, formed there as full vectors through the sublayer's residual and
    norm, in float64): contrib.npy [L, n, n] within 1e-5, rows summing to 1, masked keys 0; every
    head of a layer shows the layer's map in the JSON; attention.npy still the weights; --view
    rollout the plain product of the layers' maps."""
    name = os.path.basename(folder)
    out = env.path("contrib-" + name)
    env.run("model", "--model", folder, "--ids", ids_of(folder), "--measure", "contrib", "--npy",
            out, "--json", out + ".json", "--quiet")
    got = np.load(os.path.join(out, "contrib.npy"))
    want = ref["contrib"]
    assert got.dtype == np.float32 and got.shape == want.shape, got.shape
    diff = np.abs(got - want).max()
    print(f"  {name}: contrib {got.shape}: max diff {diff:.2e}; the diagonal's mean share "
          f"{np.mean([np.diag(m).mean() for m in want]):.2f}")
    assert diff <= NORMS_TOLERANCE, diff
    assert np.allclose(got.sum(-1), 1.0, atol=1e-5)
    assert (got[ref["attention"].max(1) == 0] == 0).all(), "a key masked in every head got a share"
    assert np.array_equal(np.load(os.path.join(out, "attention.npy")), weights)
    doc = json.load(open(out + ".json", encoding="utf-8"))
    assert doc["measure"] == "contrib"
    shown = np.array([l["heads"] for l in doc["layers"]], dtype=np.float64)
    assert np.abs(shown - got[:, None]).max() <= TOLERANCE, np.abs(shown - got[:, None]).max()
    # rollout chains the contributions as they are (they count the residual already)
    env.run("model", "--model", folder, "--ids", ids_of(folder), "--measure", "contrib", "--view",
            "rollout", "--npy", out + "-rollout", "--quiet")
    chained = want[0]
    for layer in want[1:]:
        chained = layer @ chained
    rolled = np.load(os.path.join(out + "-rollout", "view.npy"))
    assert np.abs(rolled - chained).max() <= TOLERANCE, np.abs(rolled - chained).max()


def check_alti(env, folder, ref):
    """--measure alti against the reference's ALTI (Ferrando et al. 2022: the L1 distance of
    each vector T_ij, formed there in float64, from the sublayer's result as the forward
    computed it): alti.npy [L, n, n] within 1e-5, rows summing to 1, keys no head sees 0;
    alti_rollout.npy the product of the layers' maps, and --view rollout the same."""
    name = os.path.basename(folder)
    out = env.path("alti-" + name)
    env.run("model", "--model", folder, "--ids", ids_of(folder), "--measure", "alti", "--npy", out,
            "--quiet")
    got, want = np.load(os.path.join(out, "alti.npy")), ref["alti"]
    assert got.dtype == np.float32 and got.shape == want.shape, got.shape
    diff = np.abs(got - want).max()
    assert np.allclose(got.sum(-1), 1.0, atol=1e-5)
    assert (got[ref["attention"].max(1) == 0] == 0).all(), "a key masked in every head got a share"
    chained = want[0]
    for layer in want[1:]:
        chained = layer @ chained
    rollout = np.load(os.path.join(out, "alti_rollout.npy"))
    dr = np.abs(rollout - chained).max()
    print(f"  {name}: alti {got.shape}: max diff {diff:.2e}, rollout {dr:.2e}")
    assert diff <= NORMS_TOLERANCE and dr <= NORMS_TOLERANCE, (diff, dr)
    env.run("model", "--model", folder, "--ids", ids_of(folder), "--measure", "alti", "--view",
            "rollout", "--npy", out + "-rollout", "--quiet")
    rolled = np.load(os.path.join(out + "-rollout", "view.npy"))
    assert np.abs(rolled - chained).max() <= TOLERANCE, np.abs(rolled - chained).max()


def check_value_zeroing(env, folder, ref):
    """--measure value-zeroing against the reference's (Mohebbi et al. 2023, by its definition:
    the whole float64 forward run once more for each layer and key with that key's value vector
    zeroed in every head, the cosine distance of the layer's outputs): value_zeroing.npy
    [L, n, n] within 1e-5 (measured: at most 1.5e-6), rows summing to 1, keys no head sees 0;
    --view rollout chains the layers' maps as they are."""
    name = os.path.basename(folder)
    out = env.path("vz-" + name)
    env.run("model", "--model", folder, "--ids", ids_of(folder), "--measure", "value-zeroing",
            "--view", "rollout", "--npy", out, "--quiet")
    got, want = np.load(os.path.join(out, "value_zeroing.npy")), ref["value_zeroing"]
    assert got.dtype == np.float32 and got.shape == want.shape, got.shape
    diff = np.abs(got - want).max()
    print(f"  {name}: value zeroing {got.shape}: max diff {diff:.2e}")
    assert diff <= NORMS_TOLERANCE, diff
    assert np.allclose(got.sum(-1), 1.0, atol=1e-5)
    assert (got[ref["attention"].max(1) == 0] == 0).all(), "a key masked in every head got a share"
    chained = want[0]
    for layer in want[1:]:
        chained = layer @ chained
    rolled = np.load(os.path.join(out, "view.npy"))
    assert np.abs(rolled - chained).max() <= TOLERANCE, np.abs(rolled - chained).max()


def check_logit_lens(env, folder, ref):
    """--logit-lens against the reference's (each layer's input through its own final norm and
    output embeddings, float64): the top token wherever the reference's two largest logits are
    more than 1e-3 apart, its probability within 1e-4, the rank of the output's top token within
    the reference's interval for logits 1e-4 apart; the last row is the model's own prediction."""
    name = os.path.basename(folder)
    out = env.path("lens-" + name)
    env.run("model", "--model", folder, "--ids", ids_of(folder), "--logit-lens", "--npy", out,
            "--quiet")
    ids = np.load(os.path.join(out, "logit_lens.npy"))
    probs = np.load(os.path.join(out, "logit_lens_prob.npy"))
    rank = np.load(os.path.join(out, "logit_lens_rank.npy"))
    assert ids.dtype == np.int64 and ids.shape == ref["lens_ids"].shape, ids.shape
    clear = ref["lens_gap"] > 1e-3
    assert clear.mean() > 0.9, clear.mean()
    assert (ids[clear] == ref["lens_ids"][clear]).all()
    dp = np.abs(probs - ref["lens_probs"]).max()
    assert dp <= TOLERANCE, dp
    assert ((rank >= ref["lens_rank_lo"]) & (rank <= ref["lens_rank_hi"])).all()
    assert (rank[-1] == 0).all()
    print(f"  {name}: logit lens {ids.shape}: top tokens agree ({clear.sum()} clear cells), "
          f"max |p diff| {dp:.1e}")


def test_checked_in_models(env):
    root = os.path.join(env.data, "hf")
    for name in sorted(os.listdir(root)):
        check_folder(env, os.path.join(root, name))


def test_fresh_models_when_torch_is_installed(env):
    try:
        import torch  # noqa: F401
    except ImportError:
        print("  (torch not installed here: only the checked-in models were compared)")
        return
    sys.path.insert(0, env.data)
    import make_hf_models
    root = env.path("fresh")
    make_hf_models.make(root, seed=7)
    for name in sorted(os.listdir(root)):
        check_folder(env, os.path.join(root, name))


def test_json_holds_the_same_maps_and_the_figure_draws_one_head(env):
    folder = os.path.join(env.data, "hf", "llama_bf16_gqa")
    out = env.path("llama-npy")
    env.run("model", "--model", folder, "--ids", ids_of(folder), "--npy", out, "--json",
            env.path("llama.json"), "--png", env.path("l1h3.png"), "--svg", env.path("l1h3.svg"),
            "--layer", "1", "--head", "3", "--quiet")
    doc = json.load(open(env.path("llama.json"), encoding="utf-8"))
    attention = np.load(os.path.join(out, "attention.npy"))
    maps = np.array([layer["heads"] for layer in doc["layers"]], dtype=np.float32)
    assert maps.shape == attention.shape and np.array_equal(maps, attention)
    assert doc["model"]["model_type"] == "llama" and doc["model"]["kv_heads"] == 2
    assert doc["tokens"] == json.load(open(os.path.join(out, "tokens.json"), encoding="utf-8"))
    assert doc["tokens"][0] == "<s>"
    w, h = png_size(env.path("l1h3.png"))
    assert w > 200 and h > 200
    svg = open(env.path("l1h3.svg"), encoding="utf-8").read()
    assert "layer 1 · head 3" in svg


def test_same_input_same_bytes(env):
    folder = os.path.join(env.data, "hf", "gpt2_f16_sharded")
    for k in ("a", "b"):
        env.run("model", "--model", folder, "--ids", ids_of(folder), "--npy", env.path("same-" + k),
                "--json", env.path(f"same-{k}.json"), "--quiet")
    for f in ("attention.npy", "token_ids.npy", "tokens.json", "hidden.npy"):
        assert open(env.path("same-a/" + f), "rb").read() == open(env.path("same-b/" + f), "rb").read()
    assert open(env.path("same-a.json"), "rb").read() == open(env.path("same-b.json"), "rb").read()


def refuse(env, args, *words):
    _, err = env.run("model", *args, "--npy", env.path("refused"), expect=2)
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1 and lines[0].startswith("attn-viz: error:"), err
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not os.path.exists(env.path("refused")), "something was written"
    return lines[0]


def broken_copy(env, name, source="gpt2_f32"):
    folder = env.path(name)
    shutil.copytree(os.path.join(env.data, "hf", source), folder)
    return folder


def test_measures_are_refused_where_they_cannot_run(env):
    """--measure: an unknown name gets the nearest; a measure other than the weights reads one
    forward of a decoder-only or encoder model over a fixed text, and feeds every view but
    received-rollout."""
    good = os.path.join(env.data, "hf", "gpt2_f32")
    ids = ids_of(good)
    refuse(env, ["--model", good, "--ids", ids, "--measure", "norm"], "--measure", "norms")
    refuse(env, ["--model", good, "--ids", ids, "--measure", "norms", "--generate", "2"],
           "--measure norms", "generat")
    refuse(env, ["--model", good, "--ids", ids, "--measure", "norms", "--view", "received-rollout"],
           "--view received-rollout", "--measure norms")
    bart = os.path.join(env.data, "seq2seq", "bart_f32")
    refuse(env, ["--model", bart, "--ids", "5,6,7", "--measure", "norms"], "--measure norms",
           "--target")
    refuse(env, ["--model", bart, "--ids", "5,6,7", "--target-ids", "5,6", "--measure", "norms",
                 "--stack", "encoder"], "--measure norms", "cross attention", "--stack encoder")


def test_logit_lens_is_printed_and_refused_where_it_cannot_run(env):
    """Without outputs the lens is printed at the prediction row, a line per layer ending on the
    model's own prediction; it reads one forward of a fixed text."""
    good = os.path.join(env.data, "hf", "gpt2_f32")
    ids = ids_of(good)
    stdout, _ = env.run("model", "--model", good, "--ids", ids, "--logit-lens", "--quiet")
    lines = stdout.splitlines()
    at = [i for i, l in enumerate(lines) if l.startswith("logit lens after position")]
    assert len(at) == 1, stdout
    rows = lines[at[0] + 1:at[0] + 4]  # 2 layers and the output
    assert [r.split()[0] for r in rows] == ["layer", "layer", "output"], rows
    assert rows[-1].rstrip().endswith("rank 0"), rows
    refuse(env, ["--model", good, "--ids", ids, "--logit-lens", "--generate", "2"], "--logit-lens",
           "generat")
    refuse(env, ["--model", good, "--ids", ids, "--view", "logit-lens", "--term"], "--term")
    # the figure: a cell per layer and position holding the top token (SVG keeps it as text),
    # view.npy the probabilities of logit_lens_prob.npy
    out = env.path("lens-view")
    env.run("model", "--model", good, "--ids", ids, "--view", "logit-lens", "--svg",
            env.path("lens.svg"), "--png", env.path("lens.png"), "--npy", out, "--quiet")
    view = np.load(os.path.join(out, "view.npy"))
    assert np.array_equal(view, np.load(os.path.join(out, "logit_lens_prob.npy")))
    w, h = png_size(env.path("lens.png"))
    assert w > 9 * 40 and h > 3 * 40, (w, h)
    svg = open(env.path("lens.svg"), encoding="utf-8").read()
    assert "logit lens · gpt2_f32" in svg and ">output<" in svg and ">layer 0<" in svg
    top = np.load(os.path.join(out, "logit_lens.npy"))
    vocab = {v: k for k, v in json.load(open(os.path.join(good, "vocab.json"))).items()}
    for i in range(top.shape[1]):
        assert f">{vocab[int(top[-1, i])]}<" in svg, vocab[int(top[-1, i])]
    _, err = env.run("draw", "--weights", os.path.join(out, "attention.npy"), "--view", "logit-lens", "--png",
                     env.path("no.png"), expect=2)
    assert "attn-viz model" in err and not os.path.exists(env.path("no.png")), err
    # an encoder-decoder's decoder has a lens too (tests/e2e/test_seq2seq.py checks its numbers),
    # after a generation as after a given target; its encoder has no output embeddings to read
    bart = os.path.join(env.data, "seq2seq", "bart_f32")
    stdout, _ = env.run("model", "--model", bart, "--ids", "5,6,7", "--logit-lens", "--max-new", "3")
    assert "logit lens of the decoder" in stdout, stdout
    refuse(env, ["--model", bart, "--ids", "5,6,7", "--target-ids", "5,6", "--view", "logit-lens",
                 "--stack", "encoder", "--png", env.path("enc.png")], "--view logit-lens")


def test_bad_models_and_ids_are_refused_with_one_message(env):
    good = os.path.join(env.data, "hf", "gpt2_f32")
    ids = ids_of(good)
    refuse(env, ["--model", good, "--ids", "1,96"], "96", "vocabulary")
    refuse(env, ["--model", good, "--ids", ",".join(["1"] * 41)], "41 tokens", "40 positions")
    refuse(env, ["--model", good, "--ids", "1,x"], "--ids", "'x'")
    refuse(env, ["--model", good, "--ids", ids, "--layer", "2"], "--layer 2", "2 layers")
    refuse(env, ["--model", env.path("nowhere"), "--ids", ids], "nowhere")
    # a file that is not GGUF, whatever its name says: what it is not, what it starts with
    fake = env.path("renamed.gguf")
    shutil.copy(os.path.join(good, "model.safetensors"), fake)
    refuse(env, ["--model", fake, "--ids", ids], "renamed.gguf: is not a GGUF file, which starts with 'GGUF': "
           "it starts with ", "as a .safetensors file does", "Hugging Face model folder")
    with open(env.path("empty.gguf"), "wb"):
        pass
    refuse(env, ["--model", env.path("empty.gguf"), "--ids", ids], "is not a GGUF file, which starts with 'GGUF': it is empty")
    # an unsupported family, listing the supported ones
    folder = broken_copy(env, "xlnet")
    cfg = json.load(open(os.path.join(folder, "config.json")))
    cfg["model_type"] = "xlnet"
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    refuse(env, ["--model", folder, "--ids", ids], "model_type", "gpt2, bert, roberta", "llama", "bart",
           "t5", "'xlnet'")
    # an activation attn-viz does not run
    folder = broken_copy(env, "relu")
    cfg["model_type"] = "gpt2"
    cfg["activation_function"] = "quick_gelu"
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    refuse(env, ["--model", folder, "--ids", ids], "activation_function", "'quick_gelu'")
    # a missing tensor, named with the file it was expected in
    folder = broken_copy(env, "missing")
    path = os.path.join(folder, "model.safetensors")
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    del header["transformer.h.1.mlp.c_fc.bias"]
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + data[8 + n:])
    refuse(env, ["--model", folder, "--ids", ids], "model.safetensors", "h.1.mlp.c_fc.bias", "[128]")
    # a wrong shape
    folder = broken_copy(env, "shape")
    cfg = json.load(open(os.path.join(folder, "config.json")))
    cfg["n_embd"] = 40
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    refuse(env, ["--model", folder, "--ids", ids], "wte.weight", "expected [96, 40]")
    # a pickle only
    folder = env.path("pickle")
    os.makedirs(folder)
    shutil.copy(os.path.join(good, "config.json"), folder)
    open(os.path.join(folder, "pytorch_model.bin"), "wb").write(b"\x80\x02}q\x00.")
    refuse(env, ["--model", folder, "--ids", ids], "pytorch_model.bin", "model.safetensors")
    # config.json that does not parse, with the byte offset
    folder = broken_copy(env, "badjson")
    open(os.path.join(folder, "config.json"), "w").write('{"model_type": "gpt2",')
    refuse(env, ["--model", folder, "--ids", ids], "config.json", "byte")
    # a shard named in the index but missing
    folder = broken_copy(env, "noshard", "gpt2_f16_sharded")
    os.remove(os.path.join(folder, "model-00002-of-00002.safetensors"))
    refuse(env, ["--model", folder, "--ids", ids_of(folder)], "model-00002-of-00002.safetensors")
    # a RoPE scaling it does not apply (YaRN) is refused rather than ignored
    folder = broken_copy(env, "scaled", "llama_bf16_gqa")
    cfg = json.load(open(os.path.join(folder, "config.json")))
    cfg["rope_scaling"] = {"rope_type": "yarn", "factor": 8.0}
    json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
    refuse(env, ["--model", folder, "--ids", ids_of(folder)], "rope_scaling", "linear and llama3")


def test_the_newer_families_refuse_what_they_do_not_run(env):
    """Each switch a family reads and runs one way only is refused naming the key and value;
    a missing tensor of a new family is named with its file."""
    def with_config(source, name, **changes):
        folder = broken_copy(env, name, source)
        cfg = json.load(open(os.path.join(folder, "config.json")))
        cfg.update(changes)
        json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
        return folder

    cases = [("pythia_bf16_sharded", {"attention_bias": False}, ["attention_bias"]),
             ("pythia_bf16_sharded", {"rotary_pct": 0.05}, ["rotary_pct", "even"]),
             ("pythia_bf16_sharded", {"hidden_act": "quick_gelu"}, ["hidden_act", "quick_gelu"]),
             ("opt_f32_prenorm", {"enable_bias": False}, ["enable_bias"]),
             ("opt_f32_prenorm", {"layer_norm_elementwise_affine": False}, ["layer_norm_elementwise_affine"]),
             ("phi_f32_gqa", {"qk_layernorm": True}, ["qk_layernorm"]),
             ("phi_f32_gqa", {"partial_rotary_factor": 1.5}, ["partial_rotary_factor"]),
             ("gptj_f16", {"rotary_dim": 3}, ["rotary_dim", "even"]),
             ("gptj_f16", {"rotary_dim": 16}, ["rotary_dim", "8"]),
             ("falcon_f32_multiquery", {"alibi": True}, ["alibi"]),
             ("falcon_new_bf16_grouped", {"num_ln_in_parallel_attn": 3}, ["num_ln_in_parallel_attn"]),
             ("gemma_bf16_mqa", {"hidden_activation": "silu"}, ["hidden_activation", "silu"]),
             ("phi3_bf16_window", {"rope_scaling": {"type": "longrope", "short_factor": [1.0],
                                                    "long_factor": [1.0]}}, ["rope_scaling", "longrope"])]
    for k, (source, change, words) in enumerate(cases):
        folder = with_config(source, f"refused-{k}", **change)
        refuse(env, ["--model", folder, "--ids", ids_of(folder)], "config.json", *words)
    # OPT-350m's layout without its project_in: named with the file
    folder = broken_copy(env, "noproject", "opt_f16_postnorm_projected")
    path = os.path.join(folder, "model.safetensors")
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    del header["model.decoder.project_in.weight"]
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    open(path, "wb").write(struct.pack("<Q", len(text)) + text + data[8 + n:])
    refuse(env, ["--model", folder, "--ids", ids_of(folder)], "model.safetensors", "project_in")


def plant(folder, tensor, index, value):
    """Writes `value` (a float: nan, inf) into element `index` (a tuple) of `tensor` in the
    folder's model.safetensors, in the tensor's own dtype."""
    path = os.path.join(folder, "model.safetensors")
    data = bytearray(open(path, "rb").read())
    (n,) = struct.unpack("<Q", data[:8])
    e = json.loads(data[8:8 + n])[tensor]
    flat = int(np.ravel_multi_index(index, e["shape"]))
    if e["dtype"] == "F32":
        raw = struct.pack("<f", value)
    elif e["dtype"] == "F16":
        raw = np.array([value], "<f2").tobytes()
    else:
        raw = struct.pack("<f", value)[2:]  # bfloat16: the upper half of the float32
    width = len(raw)
    at = 8 + n + e["data_offsets"][0] + flat * width
    data[at:at + width] = raw
    open(path, "wb").write(bytes(data))


def test_nan_or_inf_in_the_weights_is_named_with_its_tensor_and_element(env):
    """A damaged checkpoint is named where it is damaged — tensor, element, value, file — not
    reported as overflowing scores. Checked when the tensor is first converted or first used: a
    projection's NaN through its output (one pass over that, SwiGLU's fused gate-and-up product
    too), a bias, norm or embedding row as it is read."""
    cases = [("gpt2_f32", "h.0.attn.c_attn.weight", (3, 5), float("nan"), "NaN at [3, 5]"),
             ("gpt2_f32", "h.1.mlp.c_proj.bias", (7,), float("-inf"), "-inf at [7]"),
             ("gpt2_f32", "h.0.ln_1.weight", (0,), float("inf"), "+inf at [0]"),
             ("llama_bf16_gqa", "model.layers.1.self_attn.q_proj.weight", (2, 1), float("inf"),
              "+inf at [2, 1]"),
             ("llama_bf16_gqa", "model.embed_tokens.weight", None, float("nan"), "NaN at "),
             # SwiGLU's gate and up through one fused product: either matrix named
             ("llama_bf16_gqa", "model.layers.0.mlp.gate_proj.weight", (1, 2), float("nan"),
              "NaN at [1, 2]"),
             ("llama_bf16_gqa", "model.layers.1.mlp.up_proj.weight", (4, 3), float("-inf"),
              "-inf at [4, 3]"),
             # Phi-3's fused [gate | up]: a row of the up half
             ("phi3_bf16_window", "model.layers.0.mlp.gate_up_proj.weight", (85, 3), float("inf"),
              "+inf at [85, 3]")]
    for k, (source, tensor, index, value, words) in enumerate(cases):
        folder = broken_copy(env, f"nan-{k}", source)
        ids = ids_of(folder)
        header = read_safetensors(os.path.join(folder, "model.safetensors"))
        name = next(t for t in header if t.endswith(tensor))
        if index is None:  # the embedding row of the third token
            index = (int(ids.split(",")[2]), 4)
            words += f"[{index[0]}, 4]"
        plant(folder, name, index, value)
        line = refuse(env, ["--model", folder, "--ids", ids], f"'{name}'", words, "model.safetensors")
        assert "overflow" not in line, line


def test_a_run_without_outputs_shows_something(env):
    """model with no output flag: the most likely next tokens and the outputs to ask for."""
    out, _ = env.run("model", "--model", os.path.join(env.samples, "kjv-gpt"), "--text",
                     "And God said, Let there be")
    lines = out.splitlines()
    assert lines[1].startswith("after position"), out
    assert re.match(r"\s+1\. \S.*p = 0\.\d{4}$", lines[2]), out
    assert "nothing written" in out and "--png FILE" in out and "--html FILE" in out, out
    # a model without an LM head (BERT without cls.predictions): no predictions, still the list
    out, _ = env.run("model", "--model", os.path.join(env.data, "hf", "bert_f32"), "--ids", "1,2,3")
    assert "nothing written" in out, out


if __name__ == "__main__":
    sys.exit(main(globals()))
