#!/usr/bin/env python3
"""Writes the model folders bench/run_model_benchmarks.py times, in Hugging Face's names and
shapes, with random weights (numpy only; speed does not depend on the values):

  gpt2-small  12 layers, d 768, 12 heads, MLP 3072, vocab 50257, 1024 positions, F32
              (GPT-2's Conv1D layout, tied LM head), ~475 MiB
  llama-1b    16 layers, d 2048, 32 query / 8 KV heads of 64, MLP 8192 (SwiGLU), vocab 128256,
              rope_theta 500000, tied embeddings, BF16 (the shape of Llama 3.2 1B), ~2.3 GiB
  pythia-410m 24 layers, d 1024, 16 heads, MLP 4096, vocab 50304, 2048 positions, a quarter of
              each head rotated, parallel residual, untied embed_out, F16 (Pythia-410M), ~0.8 GiB
  vit-b16     ViT-B/16 at 224 x 224: 12 layers, d 768, 12 heads, MLP 3072, 16 x 16 patches
              (197 tokens), 1000 classes, F32, ~330 MiB (bench/bench_vit_anchor.py's shape)

These are the shapes of ../shared/bench/bench_model.py. Weights are N(0, 1/fan_in), norms 1,
biases 0; BF16 keeps the high 16 bits of each float32, as bench_model.py's BF16 weights do.

usage: make_bench_models.py OUT_DIR [--only gpt2-small|llama-1b] [--seed 0]
"""
import argparse
import json
import os
import struct

import numpy as np

SHAPES = {
    "gpt2-small": dict(model_type="gpt2", L=12, d=768, H=12, KV=12, I=3072, V=50257, P=1024,
                       dtype="F32"),
    "llama-1b": dict(model_type="llama", L=16, d=2048, H=32, KV=8, I=8192, V=128256, P=131072,
                     dtype="BF16"),
    "pythia-410m": dict(model_type="gpt_neox", L=24, d=1024, H=16, KV=16, I=4096, V=50304, P=2048,
                        dtype="F16"),
    # ViT-B/16 at 224 x 224 (ViTForImageClassification, 1000 classes): 197 tokens
    "vit-b16": dict(model_type="vit", L=12, d=768, H=12, KV=12, I=3072, V=1000, P=16, image=224,
                    dtype="F32"),
}


def tensors_of(shape, rng):
    """(name, array float32, stored dtype) in the order Hugging Face saves them."""
    s = shape
    L, d, H, KV, I, V = s["L"], s["d"], s["H"], s["KV"], s["I"], s["V"]
    dh = d // H

    def w(*dims, fan_in):
        return (rng.standard_normal(dims, dtype=np.float32) / np.float32(np.sqrt(fan_in)))

    if s["model_type"] == "gpt2":
        yield "wte.weight", w(V, d, fan_in=d)
        yield "wpe.weight", w(s["P"], d, fan_in=d)
        for l in range(L):
            p = f"h.{l}."
            yield p + "ln_1.weight", np.ones(d, np.float32)
            yield p + "ln_1.bias", np.zeros(d, np.float32)
            yield p + "attn.c_attn.weight", w(d, 3 * d, fan_in=d)
            yield p + "attn.c_attn.bias", np.zeros(3 * d, np.float32)
            yield p + "attn.c_proj.weight", w(d, d, fan_in=d)
            yield p + "attn.c_proj.bias", np.zeros(d, np.float32)
            yield p + "ln_2.weight", np.ones(d, np.float32)
            yield p + "ln_2.bias", np.zeros(d, np.float32)
            yield p + "mlp.c_fc.weight", w(d, I, fan_in=d)
            yield p + "mlp.c_fc.bias", np.zeros(I, np.float32)
            yield p + "mlp.c_proj.weight", w(I, d, fan_in=I)
            yield p + "mlp.c_proj.bias", np.zeros(d, np.float32)
        yield "ln_f.weight", np.ones(d, np.float32)
        yield "ln_f.bias", np.zeros(d, np.float32)
    elif s["model_type"] == "vit":
        yield from vit_tensors(s, w)
    elif s["model_type"] == "gpt_neox":
        g = "gpt_neox."
        yield g + "embed_in.weight", w(V, d, fan_in=d)
        for l in range(L):
            p = f"{g}layers.{l}."
            for norm in ("input_layernorm", "post_attention_layernorm"):
                yield p + norm + ".weight", np.ones(d, np.float32)
                yield p + norm + ".bias", np.zeros(d, np.float32)
            yield p + "attention.query_key_value.weight", w(3 * d, d, fan_in=d)
            yield p + "attention.query_key_value.bias", np.zeros(3 * d, np.float32)
            yield p + "attention.dense.weight", w(d, d, fan_in=d)
            yield p + "attention.dense.bias", np.zeros(d, np.float32)
            yield p + "mlp.dense_h_to_4h.weight", w(I, d, fan_in=d)
            yield p + "mlp.dense_h_to_4h.bias", np.zeros(I, np.float32)
            yield p + "mlp.dense_4h_to_h.weight", w(d, I, fan_in=I)
            yield p + "mlp.dense_4h_to_h.bias", np.zeros(d, np.float32)
        yield g + "final_layer_norm.weight", np.ones(d, np.float32)
        yield g + "final_layer_norm.bias", np.zeros(d, np.float32)
        yield "embed_out.weight", w(V, d, fan_in=d)
    else:
        yield "model.embed_tokens.weight", w(V, d, fan_in=d)
        for l in range(L):
            p = f"model.layers.{l}."
            yield p + "input_layernorm.weight", np.ones(d, np.float32)
            yield p + "self_attn.q_proj.weight", w(H * dh, d, fan_in=d)
            yield p + "self_attn.k_proj.weight", w(KV * dh, d, fan_in=d)
            yield p + "self_attn.v_proj.weight", w(KV * dh, d, fan_in=d)
            yield p + "self_attn.o_proj.weight", w(d, H * dh, fan_in=H * dh)
            yield p + "post_attention_layernorm.weight", np.ones(d, np.float32)
            yield p + "mlp.gate_proj.weight", w(I, d, fan_in=d)
            yield p + "mlp.up_proj.weight", w(I, d, fan_in=d)
            yield p + "mlp.down_proj.weight", w(d, I, fan_in=I)
        yield "model.norm.weight", np.ones(d, np.float32)


def vit_tensors(s, w):
    L, d, I, P = s["L"], s["d"], s["I"], s["P"]
    g = s["image"] // P
    e = "vit.embeddings."
    yield e + "cls_token", w(1, 1, d, fan_in=d)
    yield e + "position_embeddings", w(1, 1 + g * g, d, fan_in=d)
    yield e + "patch_embeddings.projection.weight", w(d, 3, P, P, fan_in=3 * P * P)
    yield e + "patch_embeddings.projection.bias", np.zeros(d, np.float32)
    for l in range(L):
        p = f"vit.encoder.layer.{l}."
        for part, rows, cols in (("attention.attention.query", d, d), ("attention.attention.key", d, d),
                                 ("attention.attention.value", d, d), ("attention.output.dense", d, d),
                                 ("intermediate.dense", I, d), ("output.dense", d, I)):
            yield p + part + ".weight", w(rows, cols, fan_in=cols)
            yield p + part + ".bias", np.zeros(rows, np.float32)
        for norm in ("layernorm_before", "layernorm_after"):
            yield p + norm + ".weight", np.ones(d, np.float32)
            yield p + norm + ".bias", np.zeros(d, np.float32)
    yield "vit.layernorm.weight", np.ones(d, np.float32)
    yield "vit.layernorm.bias", np.zeros(d, np.float32)
    yield "classifier.weight", w(s["V"], d, fan_in=d)
    yield "classifier.bias", np.zeros(s["V"], np.float32)


def stored(a, dtype):
    if dtype == "F32":
        return a.astype("<f4").tobytes()
    if dtype == "F16":
        return a.astype("<f2").tobytes()
    return (a.astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()  # BF16: the high half


def write_model(out, name, seed):
    s = SHAPES[name]
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    width = 4 if s["dtype"] == "F32" else 2
    # Two passes: the header needs every tensor's offsets, and the data is too big to hold.
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for key, a in tensors_of(s, np.random.default_rng(seed)):
        size = a.size * width
        header[key] = {"dtype": s["dtype"], "shape": list(a.shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    path = os.path.join(folder, "model.safetensors")
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, a in tensors_of(s, rng):
            f.write(stored(a, s["dtype"]))
    os.replace(path + ".tmp", path)
    if s["model_type"] == "gpt2":
        config = dict(model_type="gpt2", n_layer=s["L"], n_embd=s["d"], n_head=s["H"], n_inner=s["I"],
                      vocab_size=s["V"], n_positions=s["P"], activation_function="gelu_new",
                      layer_norm_epsilon=1e-5, torch_dtype="float32")
    elif s["model_type"] == "vit":
        config = dict(model_type="vit", num_hidden_layers=s["L"], hidden_size=s["d"],
                      num_attention_heads=s["H"], intermediate_size=s["I"], image_size=s["image"],
                      patch_size=s["P"], num_channels=3, hidden_act="gelu", layer_norm_eps=1e-12,
                      qkv_bias=True, id2label={str(i): f"class {i}" for i in range(s["V"])},
                      torch_dtype="float32")
    elif s["model_type"] == "gpt_neox":
        config = dict(model_type="gpt_neox", num_hidden_layers=s["L"], hidden_size=s["d"],
                      num_attention_heads=s["H"], intermediate_size=s["I"], vocab_size=s["V"],
                      max_position_embeddings=s["P"], rotary_pct=0.25, rotary_emb_base=10000,
                      use_parallel_residual=True, hidden_act="gelu", layer_norm_eps=1e-5,
                      tie_word_embeddings=False, torch_dtype="float16")
    else:
        config = dict(model_type="llama", num_hidden_layers=s["L"], hidden_size=s["d"],
                      num_attention_heads=s["H"], num_key_value_heads=s["KV"], head_dim=s["d"] // s["H"],
                      intermediate_size=s["I"], vocab_size=s["V"], max_position_embeddings=s["P"],
                      hidden_act="silu", rms_norm_eps=1e-5, rope_theta=500000.0,
                      tie_word_embeddings=True, torch_dtype="bfloat16")
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    return folder


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--only", choices=sorted(SHAPES))
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    for name in [a.only] if a.only else sorted(SHAPES):
        print(write_model(a.out, name, a.seed))


if __name__ == "__main__":
    main()
