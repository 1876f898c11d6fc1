#!/usr/bin/env python3
"""attn-viz model --generate on every causal checkpoint of tests/data/hf (GPT-2 F32 and F16
sharded, Llama BF16 grouped-query, Qwen2 with biases, Mistral with a sliding window that the
generation runs past, Llama 3 scaled RoPE, and every family added since): greedy ids equal the reference's cache-free greedy
loop (tests/data/make_hf_models.py, float64 PyTorch from the model definitions) and every map
over prompt + generated is within 1e-4 of it; `model --ids prompt+generated` gives the same
maps and hidden state. Sampling is reproduced in NumPy from the hidden state and a Mersenne
Twister written here (temperature, top-p, seed); --stop, the end token, --view generation,
generation.json and the JSON, the printed text, and the refusals."""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from formats import page_maps, read_safetensors  # noqa: E402
from harness import import_numpy, main  # noqa: E402

np = import_numpy()
CAUSAL = ["gpt2_f32", "gpt2_f16_sharded", "llama_bf16_gqa", "qwen2_f32_bias",
          "mistral_f16_window", "llama3_rope_scaled"]


def hf(env, name):
    return os.path.join(env.data, "hf", name)


def ids_text(a):
    return ",".join(str(int(i)) for i in a)


def generate(env, folder, prompt, out, *extra):
    stdout, _ = env.run("model", "--model", folder, "--ids", ids_text(prompt), "--npy", out, "-q",
                        *extra)
    g = json.load(open(os.path.join(out, "generation.json")))
    return g, np.load(os.path.join(out, "attention.npy")), stdout


def causal_checkpoints(env):
    """Every checkpoint of tests/data/hf whose reference has a greedy loop (the causal ones)."""
    root = os.path.join(env.data, "hf")
    return [name for name in sorted(os.listdir(root))
            if "greedy" in np.load(os.path.join(root, name, "reference.npz"))]


def test_greedy_generation_equals_the_reference_loop(env):
    names = causal_checkpoints(env)
    assert set(CAUSAL) <= set(names), names
    for name in names:
        ref = np.load(os.path.join(hf(env, name), "reference.npz"))
        out = env.path("g-" + name)
        g, maps, _ = generate(env, hf(env, name), ref["ids"], out, "--generate", "10")
        assert g["prompt_tokens"] == len(ref["ids"]) and not g["ended_at_end_token"]
        assert g["generated_ids"] == ref["greedy"].tolist(), (name, g["generated_ids"], ref["greedy"])
        want = ref["greedy_attention"]
        assert maps.shape == want.shape, (name, maps.shape, want.shape)
        worst = float(np.abs(maps - want).max())
        assert worst <= 1e-4, (name, worst)
        assert np.allclose(maps.sum(-1), 1.0, atol=1e-5)
        n = maps.shape[-1]
        assert (maps[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] == 0).all()
        ids = np.load(os.path.join(out, "token_ids.npy"))
        assert ids.tolist() == ref["ids"].tolist() + ref["greedy"].tolist()
        # the same text run whole gives the same maps and hidden state
        whole = env.path("w-" + name)
        env.run("model", "--model", hf(env, name), "--ids", ids_text(ids), "--npy", whole, "-q")
        again = np.load(os.path.join(whole, "attention.npy"))
        assert float(np.abs(again - maps).max()) <= 1e-5, name
        h1, h2 = (np.load(os.path.join(d, "hidden.npy")) for d in (out, whole))
        assert float(np.abs(h1 - h2).max()) <= 1e-4 * max(1.0, float(np.abs(h2).max())), name
        print(f"{name}: 10 tokens equal to the reference loop, maps within {worst:.1e}")


class MT64:
    """std::mt19937_64 (Matsumoto & Nishimura's 64-bit Mersenne Twister, C++11's constants)."""
    N, M = 312, 156
    MASK = (1 << 64) - 1

    def __init__(self, seed):
        self.mt = [seed & self.MASK]
        for i in range(1, self.N):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & self.MASK)
        self.i = self.N

    def next(self):
        if self.i >= self.N:
            upper, lower = 0xFFFFFFFF80000000, 0x7FFFFFFF
            for k in range(self.N):
                y = (self.mt[k] & upper) | (self.mt[(k + 1) % self.N] & lower)
                v = self.mt[(k + self.M) % self.N] ^ (y >> 1)
                if y & 1:
                    v ^= 0xB5026F5AA96619E9
                self.mt[k] = v
            self.i = 0
        x = self.mt[self.i]
        self.i += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        x ^= x >> 43
        return x & self.MASK


def sample_like_the_docs(z, temperature, top_p, rng):
    """model/generate.h's rule: softmax(z / T) in double, the nucleus (most likely first, ties by
    id) until it reaches top_p, u = top 53 bits x 2^-53 scaled by the nucleus' mass."""
    p = np.exp((z - z.max()) / temperature)
    order = sorted(range(len(p)), key=lambda j: (-p[j], j))
    keep, kept = 0, 0.0
    while keep < len(p) and (keep == 0 or kept < top_p * p.sum()):
        kept += p[order[keep]]
        keep += 1
    u = (rng.next() >> 11) * 2.0 ** -53 * kept
    run = 0.0
    for r in range(keep):
        run += p[order[r]]
        if u < run:
            return order[r]
    return order[keep - 1]


def test_sampling_is_reproduced_from_the_documented_rule(env):
    # std::mt19937_64's 10000th output for the default seed (5489), as C++11 specifies it
    rng = MT64(5489)
    for _ in range(9999):
        rng.next()
    assert rng.next() == 9981545732273789042
    folder = hf(env, "gpt2_f32")
    ref = np.load(os.path.join(folder, "reference.npz"))
    wte = read_safetensors(os.path.join(folder, "model.safetensors"))["transformer.wte.weight"]
    for temperature, top_p, seed in [(1.0, 1.0, 7), (0.7, 0.9, 123), (2.0, 0.5, 2**40 + 3)]:
        out = env.path(f"s-{seed}")
        g, _, _ = generate(env, folder, ref["ids"], out, "--generate", "8", "--sample",
                           "--temperature", str(temperature), "--top-p", str(top_p), "--seed",
                           str(seed))
        hidden = np.load(os.path.join(out, "hidden.npy")).astype(np.float64)
        rng, np_ = MT64(seed), len(ref["ids"])
        want = []
        for t in range(8):  # the row before each generated token predicts it
            z = hidden[np_ - 1 + t] @ wte.astype(np.float64).T
            want.append(sample_like_the_docs(z, temperature, top_p, rng))
        assert g["generated_ids"] == want, (temperature, top_p, seed, g["generated_ids"], want)
        assert g["sampling"] == {"sample": True, "temperature": temperature, "top_p": top_p,
                                 "seed": seed}
        # same seed, same bytes
        again = env.path(f"s2-{seed}")
        generate(env, folder, ref["ids"], again, "--generate", "8", "--sample", "--temperature",
                 str(temperature), "--top-p", str(top_p), "--seed", str(seed))
        for f in sorted(os.listdir(out)):
            assert open(os.path.join(out, f), "rb").read() == open(os.path.join(again, f), "rb").read(), f
    # a temperature near 0 takes the most likely token, as greedy does
    g, _, _ = generate(env, folder, ref["ids"], env.path("cold"), "--generate", "10", "--sample",
                       "--temperature", "0.001", "--seed", "5")
    assert g["generated_ids"] == ref["greedy"].tolist()


def test_stop_text_end_token_and_printed_text(env):
    folder = hf(env, "gpt2_f32")
    ref = np.load(os.path.join(folder, "reference.npz"))  # greedy: t64 t64 …
    g, maps, stdout = generate(env, folder, ref["ids"], env.path("stop"), "--generate", "10",
                               "--stop", "t64t64")
    assert g["generated_ids"] == [64, 64] and g["generated_text"] == "t64t64"
    assert maps.shape[-1] == len(ref["ids"]) + 2
    assert stdout.splitlines()[0] == "t64t64", stdout
    # the config's end token: generation stops at it and leaves it out of the text
    ended = env.path("eos-model")
    shutil.copytree(folder, ended)
    cfg = json.load(open(os.path.join(ended, "config.json")))
    cfg["eos_token_id"] = [3, 64]
    json.dump(cfg, open(os.path.join(ended, "config.json"), "w"))
    g, maps, stdout = generate(env, ended, ref["ids"], env.path("eos"), "--generate", "10")
    assert g["generated_ids"] == [64] and g["ended_at_end_token"] and g["generated_text"] == ""
    assert "ended at the end token" in stdout
    assert maps.shape[-1] == len(ref["ids"]) + 1
    # the JSON carries the same object
    out = env.path("gen.json")
    env.run("model", "--model", folder, "--ids", ids_text(ref["ids"]), "--generate", "3", "--json",
            out, "-q")
    j = json.load(open(out))
    assert j["generation"]["generated_ids"] == [64, 64, 64] and len(j["ids"]) == len(ref["ids"]) + 3
    assert len(j["layers"][0]["heads"][0]) == len(ref["ids"]) + 3


def test_generation_view(env):
    folder = hf(env, "llama_bf16_gqa")
    ref = np.load(os.path.join(folder, "reference.npz"))
    np_ = len(ref["ids"])
    out = env.path("view")
    png = env.path("gen.png")
    env.run("model", "--model", folder, "--ids", ids_text(ref["ids"]), "--generate", "6", "--view",
            "generation", "--layer", "1", "--head", "2", "--npy", out, "--png", png, "-q")
    maps = np.load(os.path.join(out, "attention.npy")).astype(np.float64)
    view = np.load(os.path.join(out, "view.npy"))
    rows = maps[1, 2, np_:, :]
    assert view.shape == rows.shape == (6, np_ + 6)
    want = rows / rows.max(axis=1, keepdims=True)
    assert np.allclose(view, want, atol=1e-6)
    assert os.path.getsize(png) > 1000
    # the mean over chosen layers and heads
    out2 = env.path("view2")
    env.run("model", "--model", folder, "--ids", ids_text(ref["ids"]), "--generate", "6", "--view",
            "generation", "--layers", "0,1", "--heads", "1-2", "--npy", out2, "-q")
    mean = np.load(os.path.join(out2, "attention.npy")).astype(np.float64)[:, 1:3].mean(axis=(0, 1))[np_:]
    assert np.allclose(np.load(os.path.join(out2, "view.npy")), mean / mean.max(1, keepdims=True), atol=1e-6)


def test_the_page_rules_off_the_prompt(env):
    """--html after --generate: the page's data says where the prompt ends and its map draws a
    red rule there (checked in Chromium at the boundary between two cells)."""
    import re
    from browser import start_browser
    folder = hf(env, "gpt2_f32")
    ref = np.load(os.path.join(folder, "reference.npz"))
    np_ = len(ref["ids"])
    page, out = env.path("gen.html"), env.path("gen-npy")
    env.run("model", "--model", folder, "--ids", ids_text(ref["ids"]), "--generate", "5", "--html",
            page, "--npy", out, "-q")
    html = open(page, encoding="utf-8").read()
    data = json.loads(re.search(r'id="attnviz-data">(.*?)</script>', html, re.S).group(1))
    maps = np.load(os.path.join(out, "attention.npy"))
    assert data["prompt"] == np_ and data["n"] == np_ + 5
    assert np.array_equal(page_maps(html, data)[0, 0], maps[0, 0])
    browser = start_browser()
    try:
        browser.open("file://" + os.path.abspath(page))
        a = json.loads(browser.evaluate(f"JSON.stringify(window.attnviz.cellCenter({np_ + 2}, {np_ - 1}))"))
        b = json.loads(browser.evaluate(f"JSON.stringify(window.attnviz.cellCenter({np_ + 2}, {np_}))"))
        x, y = (a["x"] + b["x"]) / 2, a["y"]
        px = json.loads(browser.evaluate(f"""JSON.stringify((function(){{var c=document.getElementById('map'),
            r=c.getBoundingClientRect(), k=c.width/r.width;
            return Array.from(c.getContext('2d').getImageData(Math.floor(({x}-r.left)*k),
            Math.floor(({y}-r.top)*k),1,1).data).slice(0,3);}})())"""))
        assert px == [214, 39, 40], px
        assert browser.console_errors() == []
    finally:
        browser.close()


def refuse(env, args, *words):
    _, err = env.run("model", *args, expect=2)
    assert len(err.strip().splitlines()) == 1, err
    for w in words:
        assert w in err, (w, err)


def test_refusals(env):
    gpt2 = ["--model", hf(env, "gpt2_f32"), "--ids", "1,2,3"]
    refuse(env, gpt2 + ["--sample"], "--generate")
    refuse(env, gpt2 + ["--seed", "3"], "--generate")
    refuse(env, gpt2 + ["--generate", "4", "--temperature", "0.5"], "--sample")
    refuse(env, gpt2 + ["--generate", "4", "--top-k", "3"], "--top-k")
    refuse(env, gpt2 + ["--view", "generation", "--png", env.path("x.png")], "--generate")
    refuse(env, gpt2 + ["--generate", "0"], "--generate")
    refuse(env, ["--model", hf(env, "bert_f32"), "--ids", "2,5,3", "--generate", "3"],
           "--generate", "not causal")
    refuse(env, ["--model", os.path.join(env.data, "seq2seq", "bart_f32"), "--ids", "5,6",
                 "--generate", "3"], "--generate", "--max-new")
    refuse(env, ["--model", hf(env, "gpt2_f32"), "--ids", ",".join(["1"] * 40), "--generate", "3"],
           "positions")
    assert not os.path.exists(env.path("x.png"))


if __name__ == "__main__":
    sys.exit(main(globals()))
