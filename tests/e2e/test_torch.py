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
