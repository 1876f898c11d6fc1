#!/usr/bin/env python3
"""attn-viz against PyTorch's torch.nn.MultiheadAttention: a saved state_dict (in_proj_weight,
in_proj_bias, out_proj.weight, out_proj.bias) loads as is with --params and gives the same
per-head weights and the same output, within 1e-5.

Always checks the fixtures tests/data/torch_mha/ made by tests/data/make_torch_mha.py with
Debian's PyTorch; when torch can be imported here, also makes fresh ones with other seeds and
head counts and checks those (so a change in PyTorch or in attn-viz shows up)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import read_safetensors, write_safetensors  # noqa: E402
from harness import import_numpy, main  # noqa: E402

np = import_numpy()
TOLERANCE = 1e-5


def check_case(env, folder, name):
    expected = json.load(open(os.path.join(folder, name + ".json")))
    out = env.path(name + ".out.json")
    weights_file = os.path.join(folder, name + ".safetensors")
    common = ["--heads", str(expected["heads"]), "--params", weights_file, "--json", out,
              "--embeddings", env.embeddings]
    if expected["self"]:
        env.run("run", "--tokens", " ".join(expected["query_tokens"]), *common)
    else:
        env.run("run", "--source", " ".join(expected["key_tokens"]), "--target",
                " ".join(expected["query_tokens"]), *common)
    got = json.load(open(out))
    assert got["query_tokens"] == expected["query_tokens"]
    assert got["key_tokens"] == expected["key_tokens"]
    assert len(got["heads"]) == expected["heads"]
    w_got = np.array([h["weights"] for h in got["heads"]])
    w_want = np.array(expected["weights"])
    assert w_got.shape == w_want.shape, (w_got.shape, w_want.shape)
    dw = np.abs(w_got - w_want).max()
    do = np.abs(np.array(got["output"]) - np.array(expected["output"])).max()
    print(f"  {name}: {expected['producer']}: max |weights diff| {dw:.2e}, "
          f"max |output diff| {do:.2e}")
    assert dw <= TOLERANCE and do <= TOLERANCE, (dw, do)
    # nothing in the state_dict was ignored
    _, err = env.run("run", "--tokens", " ".join(expected["query_tokens"]), "--heads",
                     str(expected["heads"]), "--params", weights_file, "--embeddings",
                     env.embeddings, "--json", env.path("again.json"))
    assert "not used" not in err, err


def test_checked_in_pytorch_fixtures(env):
    folder = os.path.join(env.data, "torch_mha")
    for name in ("self_h5", "cross_h2", "self_h10"):
        check_case(env, folder, name)


def test_fresh_pytorch_modules_when_torch_is_installed(env):
    try:
        import torch  # noqa: F401
    except ImportError:
        print("  (torch not installed here: only the checked-in fixtures were compared)")
        return
    sys.path.insert(0, env.data)
    import make_torch_mha
    cases = [("fresh_self_h25", 11, 25, "the city was built near the river in the north", None),
             ("fresh_cross_h1", 12, 1, "what was built ?", "the city was built near the river"),
             ("fresh_self_h50", 13, 50, "the war was long", None)]
    folder = env.path("fresh")
    make_torch_mha.make(folder, cases, env.embeddings)
    for name, *_ in cases:
        check_case(env, folder, name)


def test_one_layer_of_a_bigger_checkpoint_in_each_naming_scheme(env):
    """The checked-in nn.MultiheadAttention (5 heads) renamed here the way torch, BERT and
    GPT-2 checkpoints name an attention layer (GPT-2's Conv1D weights transposed to [in, out]),
    inside a file with other layers; --params-prefix must reproduce torch's weights and output."""
    folder = os.path.join(env.data, "torch_mha")
    mha = read_safetensors(os.path.join(folder, "self_h5.safetensors"))
    expected = json.load(open(os.path.join(folder, "self_h5.json")))
    w, b = mha["in_proj_weight"], mha["in_proj_bias"]
    d = w.shape[1]
    q, k, v = w[:d], w[d:2 * d], w[2 * d:]
    schemes = {
        "encoder.layers.3.self_attn.": {
            "in_proj_weight": w, "in_proj_bias": b,
            "out_proj.weight": mha["out_proj.weight"], "out_proj.bias": mha["out_proj.bias"]},
        "bert.encoder.layer.3.attention.": {
            "self.query.weight": q, "self.query.bias": b[:d],
            "self.key.weight": k, "self.key.bias": b[d:2 * d],
            "self.value.weight": v, "self.value.bias": b[2 * d:],
            "output.dense.weight": mha["out_proj.weight"],
            "output.dense.bias": mha["out_proj.bias"],
            "output.LayerNorm.weight": np.ones(d)},
        "transformer.h.3.attn.": {
            "c_attn.weight": w.T, "c_attn.bias": b,
            "c_proj.weight": mha["out_proj.weight"].T, "c_proj.bias": mha["out_proj.bias"],
            "bias": np.ones((1, 1, 4, 4))},  # GPT-2's causal-mask buffer: not a parameter
    }
    for prefix, layer in schemes.items():
        tensors = {"embeddings.weight": np.zeros((7, d)),
                   "other.layer.in_proj_weight": np.zeros((3 * d, d))}
        tensors.update({prefix + name: t for name, t in layer.items()})
        ckpt = env.path("checkpoint.safetensors")
        write_safetensors(ckpt, tensors)
        out = env.path("layer.json")
        _, err = env.run("run", "--tokens", " ".join(expected["query_tokens"]), "--heads", "5",
                         "--params", ckpt, "--params-prefix", prefix, "--json", out,
                         "--embeddings", env.embeddings)
        assert "not used" not in err, (prefix, err)
        got = json.load(open(out))
        dw = np.abs(np.array([h["weights"] for h in got["heads"]]) -
                    np.array(expected["weights"])).max()
        do = np.abs(np.array(got["output"]) - np.array(expected["output"])).max()
        print(f"  {prefix}: max |weights diff| {dw:.2e}, max |output diff| {do:.2e}")
        assert dw <= TOLERANCE and do <= TOLERANCE, (prefix, dw, do)
    _, err = env.run("run", "--text", "the cat", "--heads", "5", "--params", ckpt,
                     "--params-prefix", "decoder.", "--embeddings", env.embeddings, expect=2)
    assert f"{ckpt}: no tensor name starts with 'decoder.'" in err, err


def test_a_pytorch_nn_transformer_state_dict(env):
    """transformer --params reads a torch.nn.Transformer's state_dict as is: --layer K picks
    encoder.layers.K.self_attn, decoder.layers.K.self_attn and .multihead_attn, whose weights
    must be PyTorch's own (need_weights, per head) on the same word vectors; --params-prefix
    finds them inside a wrapper; the feed-forward and norms are counted, not listed."""
    try:
        import torch
    except ImportError:
        print("  (torch not installed here: skipped)")
        return
    sys.path.insert(0, env.data)
    import make_torch_mha
    source, target = "the city was built near the river", "where was the city built ?"
    vectors = make_torch_mha.read_vectors(env.embeddings, set((source + " " + target).split()))
    src = torch.tensor([vectors[w] for w in source.split()], dtype=torch.float32)
    tgt = torch.tensor([vectors[w] for w in target.split()], dtype=torch.float32)
    torch.manual_seed(5)
    model = torch.nn.Transformer(d_model=50, nhead=5, num_encoder_layers=2, num_decoder_layers=2,
                                 dim_feedforward=32, dropout=0.0).eval()
    state = {"model." + k: v for k, v in model.state_dict().items()}
    path = env.path("nn_transformer.safetensors")
    make_torch_mha.write_safetensors(path, state)
    causal = torch.triu(torch.full((len(tgt), len(tgt)), float("-inf")), 1)
    for layer in (0, 1):
        enc = model.encoder.layers[layer].self_attn
        dec = model.decoder.layers[layer]
        with torch.no_grad():
            want = {
                "encoder_self": enc(src, src, src, need_weights=True, average_attn_weights=False)[1],
                "decoder_self": dec.self_attn(tgt, tgt, tgt, attn_mask=causal, need_weights=True,
                                              average_attn_weights=False)[1],
                "encoder_decoder": dec.multihead_attn(tgt, src, src, need_weights=True,
                                                      average_attn_weights=False)[1]}
        out = env.path(f"nnt{layer}.json")
        _, err = env.run("transformer", "--source", source, "--target", target, "--heads", "5",
                         "--position", "none", "--params", path, "--params-prefix", "model.",
                         "--layer", str(layer), "--json", out, "--embeddings", env.embeddings)
        got = {a["name"]: np.array([h["weights"] for h in a["heads"]])
               for a in json.load(open(out))["attentions"]}
        for name, w in want.items():
            d = np.abs(got[name] - w.numpy()).max()
            assert d <= TOLERANCE, (layer, name, d)
        prefixes = [a["parameter_prefix"] for a in json.load(open(out))["attentions"]]
        assert prefixes == [f"model.encoder.layers.{layer}.self_attn.",
                            f"model.decoder.layers.{layer}.self_attn.",
                            f"model.decoder.layers.{layer}.multihead_attn."], prefixes
        assert "tensors not used:" not in err, err
    print(f"  nn.Transformer, 2 layers x 5 heads: every attention within {TOLERANCE}")
    _, err = env.run("transformer", "--source", source, "--target", target, "--heads", "5",
                     "--params", path, "--params-prefix", "model.", "--layer", "2",
                     "--embeddings", env.embeddings, expect=2)
    assert "no layer 2" in err, err
    _, err = env.run("transformer", "--source", source, "--target", target, "--heads", "5",
                     "--params", path, "--embeddings", env.embeddings, expect=2)
    assert "nn.Transformer" in err and "encoder.self_attn" in err, err


def test_heads_that_do_not_divide_d_model(env):
    _, err = env.run("run", "--text", "the cat sat", "--embeddings", env.embeddings, "--heads",
                     "7", "--json", env.path("x.json"), expect=2)
    assert "--heads 7 must divide d_model = 50" in err, err
    assert not os.path.exists(env.path("x.json"))
    # a torch file for 5 heads read with --dk 4 (7 x 4 != 50): named clearly
    _, err = env.run("run", "--text", "the cat sat", "--embeddings", env.embeddings, "--heads",
                     "7", "--dk", "4", "--params",
                     os.path.join(env.data, "torch_mha", "self_h5.safetensors"), expect=2)
    assert "in_proj_weight" in err and "28" in err, err


if __name__ == "__main__":
    main(globals())
