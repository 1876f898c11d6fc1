#!/usr/bin/env python3
"""Tiny vision transformers with random weights, in exactly the tensor names, shapes and dtypes
Hugging Face saves (ViT, DeiT, DINOv2, DINOv2 with registers), a test picture, and what each must
give, computed independently: the pixels by PIL and numpy as Hugging Face's image processors
compute them (PIL's resize, centre crop, rescale in float64 then float32, normalise in float32),
the network by a forward pass written here in PyTorch (float64) from the published model
definitions (modeling_vit.py, modeling_deit.py, modeling_dinov2.py,
modeling_dinov2_with_registers.py).

  /usr/bin/python3 tests/data/make_vision_models.py OUT_DIR [--seed S] [--only NAME ...]

For each case OUT_DIR/<name>/ holds a model folder (config.json, preprocessor_config.json,
model.safetensors), picture.png and reference.npz with:
  pixels     float32 [3, H, W]       the preprocessed picture (PIL + numpy)
  attention  float64 [L, H, n, n]    every layer's every head's weights (row = query)
  hidden     float64 [n, d]          the last hidden state (after the final layernorm)
  cls_map    float64 [L, H, gh, gw]  each map's CLS row over the patches
  logits     float64 [labels]        the classifier's (absent without a classifier)
  norms      float64 [L, H, n, n]    Kobayashi et al. 2020's a^h_ij |f_h(x_j)|, f_h through
                                     W_O^h and the layer scale
  contrib    float64 [L, n, n]       Kobayashi et al. 2021's |T_ij| through the residual, each
                                     row summing to 1: T_ij = sum_h a^h_ij f_h(x_j) + [i = j] x_i
  alti       float64 [L, n, n]       Ferrando et al. 2022's max(0, |y_i|_1 - |y_i - T_ij|_1),
                                     y_i = x_i + o_i the sublayer's result (o_i with W_O's bias,
                                     times the layer scale), each row summing to 1

The checked-in set (tests/data/vision/, seed 0) is what tests/e2e/test_vision.py checks always;
where torch can be imported the test also makes a fresh set with another seed and checks that.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_hf_models import rounded, write_safetensors  # noqa: E402

torch.set_grad_enabled(False)

IMAGENET = dict(image_mean=[0.485, 0.456, 0.406], image_std=[0.229, 0.224, 0.225])
LABELS = ["circle", "square", "triangle", "star", "cross"]

CASES = {
    # ViTForImageClassification: vit. prefix, classifier; bilinear down to the model's own grid
    "vit_f32_classifier": dict(family="vit", dtype="F32", prefix="vit.", d=32, H=4, L=2, I=64,
                               image=32, patch=8, head=True,
                               pre=dict(image_processor_type="ViTImageProcessor", do_resize=True,
                                        size={"height": 32, "width": 32}, resample=2,
                                        do_rescale=True, rescale_factor=1 / 255,
                                        do_normalize=True, **IMAGENET)),
    # ViTModel (no prefix, no classifier), BF16, nearest to a 5 x 6 grid: positions interpolated
    "vit_bf16_interpolated": dict(family="vit", dtype="BF16", prefix="", d=32, H=2, L=2, I=48,
                                  image=32, patch=8, head=False,
                                  pre=dict(image_processor_type="ViTImageProcessor",
                                           size={"height": 40, "width": 48}, resample=0,
                                           image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5])),
    # DeiTForImageClassificationWithTeacher, F16; lanczos then a centre crop
    "deit_f16_teacher": dict(family="deit", dtype="F16", prefix="deit.", d=32, H=4, L=2, I=64,
                             image=32, patch=8, head=True,
                             pre=dict(image_processor_type="DeiTImageProcessor",
                                      size={"height": 40, "width": 40}, resample=1,
                                      do_center_crop=True, crop_size={"height": 32, "width": 32},
                                      **IMAGENET)),
    # Dinov2ForImageClassification: layer scales, [CLS, mean] classifier; BiT's shortest edge,
    # bicubic, crop to a 3 x 3 grid from the stored 4 x 4
    "dinov2_f32_classifier": dict(family="dinov2", dtype="F32", prefix="dinov2.", d=32, H=4, L=2,
                                  image=56, patch=14, head=True, registers=0, swiglu=False,
                                  pre=dict(image_processor_type="BitImageProcessor",
                                           size={"shortest_edge": 50}, resample=3,
                                           do_center_crop=True,
                                           crop_size={"height": 42, "width": 42}, **IMAGENET)),
    # Dinov2WithRegistersModel, BF16: two registers, SwiGLU, antialiased positions up to 5 x 5
    "dinov2_registers_bf16_swiglu": dict(family="dinov2", dtype="BF16", prefix="", d=32, H=4,
                                         L=2, image=56, patch=14, head=False, registers=2,
                                         swiglu=True,
                                         pre=dict(image_processor_type="BitImageProcessor",
                                                  size={"shortest_edge": 72}, resample=3,
                                                  do_center_crop=True,
                                                  crop_size={"height": 70, "width": 70},
                                                  **IMAGENET)),
}


def rand(g, *shape, scale=None):
    scale = scale if scale is not None else 1.0 / math.sqrt(shape[-1] if len(shape) > 1 else 8)
    return torch.randn(*shape, generator=g, dtype=torch.float64) * scale


def make_picture(g, path, width=45, height=37):
    """A smooth picture with a disc and noise, so every filter's rounding shows."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    noise = torch.rand(height, width, 3, generator=g, dtype=torch.float64).numpy()
    r = 128 + 100 * np.sin(x / 5.0) * np.cos(y / 7.0)
    gch = 255 * (((x - 20) ** 2 + (y - 16) ** 2) < 90)
    b = 255 * x / width
    img = np.stack([r, gch, b], -1) * 0.8 + noise * 50
    Image.fromarray(np.clip(img, 0, 255).astype(np.uint8), "RGB").save(path)


def preprocess(path, pre):
    """Hugging Face's processors' steps, on PIL and numpy (the reference attn-viz must meet)."""
    img = Image.open(path).convert("RGB")
    size, resample = pre["size"], pre.get("resample", 2)
    if "shortest_edge" in size:
        s = size["shortest_edge"]
        w, h = img.size
        short, long = (w, h) if w <= h else (h, w)
        new_long = int(s * long / short)
        out_w, out_h = (s, new_long) if w <= h else (new_long, s)
    else:
        out_w, out_h = size["width"], size["height"]
    if (out_w, out_h) != img.size:
        img = img.resize((out_w, out_h), resample=resample)
    a = np.array(img)
    if pre.get("do_center_crop"):
        ch, cw = pre["crop_size"]["height"], pre["crop_size"]["width"]
        top, left = (a.shape[0] - ch) // 2, (a.shape[1] - cw) // 2
        a = a[top:top + ch, left:left + cw]
    a = (a.astype(np.float64) * pre.get("rescale_factor", 1 / 255)).astype(np.float32)
    mean = np.array(pre["image_mean"], dtype=np.float32)
    std = np.array(pre["image_std"], dtype=np.float32)
    a = (a - mean) / std
    return a.transpose(2, 0, 1).copy()


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def make(c, g, folder, picture):
    d, H, L, P, dtype = c["d"], c["H"], c["L"], c["patch"], c["dtype"]
    fam, pre = c["family"], c["pre"]
    dino = fam == "dinov2"
    G = c["image"] // P
    k = 2 if fam == "deit" else 1
    R = c.get("registers", 0)
    if dino:
        hidden = 4 * d
        I = (int(hidden * 2 / 3) + 7) // 8 * 8 if c["swiglu"] else hidden
    else:
        I = c["I"]
    t = []  # (name, tensor) in file order
    p = c["prefix"]
    e = p + "embeddings."
    t.append((e + "cls_token", rand(g, 1, 1, d, scale=0.5)))
    if fam == "deit":
        t.append((e + "distillation_token", rand(g, 1, 1, d, scale=0.5)))
    if R:
        t.append((e + "register_tokens", rand(g, 1, R, d, scale=0.5)))
    t.append((e + "position_embeddings", rand(g, 1, k + G * G, d, scale=0.5)))
    t.append((e + "patch_embeddings.projection.weight", rand(g, d, 3, P, P, scale=1 / P)))
    t.append((e + "patch_embeddings.projection.bias", rand(g, d, scale=0.1)))
    n1, n2 = ("norm1", "norm2") if dino else ("layernorm_before", "layernorm_after")
    for l in range(L):
        a = f"{p}encoder.layer.{l}."
        t.append((a + n1 + ".weight", 1 + rand(g, d, scale=0.1)))
        t.append((a + n1 + ".bias", rand(g, d, scale=0.1)))
        for m in ("query", "key", "value"):
            t.append((a + f"attention.attention.{m}.weight", rand(g, d, d)))
            t.append((a + f"attention.attention.{m}.bias", rand(g, d, scale=0.1)))
        t.append((a + "attention.output.dense.weight", rand(g, d, d)))
        t.append((a + "attention.output.dense.bias", rand(g, d, scale=0.1)))
        if dino:
            t.append((a + "layer_scale1.lambda1", 0.5 + rand(g, d, scale=0.2)))
        t.append((a + n2 + ".weight", 1 + rand(g, d, scale=0.1)))
        t.append((a + n2 + ".bias", rand(g, d, scale=0.1)))
        if dino and c["swiglu"]:
            t.append((a + "mlp.weights_in.weight", rand(g, 2 * I, d)))
            t.append((a + "mlp.weights_in.bias", rand(g, 2 * I, scale=0.1)))
            t.append((a + "mlp.weights_out.weight", rand(g, d, I)))
            t.append((a + "mlp.weights_out.bias", rand(g, d, scale=0.1)))
        elif dino:
            t.append((a + "mlp.fc1.weight", rand(g, I, d)))
            t.append((a + "mlp.fc1.bias", rand(g, I, scale=0.1)))
            t.append((a + "mlp.fc2.weight", rand(g, d, I)))
            t.append((a + "mlp.fc2.bias", rand(g, d, scale=0.1)))
        else:
            t.append((a + "intermediate.dense.weight", rand(g, I, d)))
            t.append((a + "intermediate.dense.bias", rand(g, I, scale=0.1)))
            t.append((a + "output.dense.weight", rand(g, d, I)))
            t.append((a + "output.dense.bias", rand(g, d, scale=0.1)))
        if dino:
            t.append((a + "layer_scale2.lambda1", 0.5 + rand(g, d, scale=0.2)))
    t.append((p + "layernorm.weight", 1 + rand(g, d, scale=0.1)))
    t.append((p + "layernorm.bias", rand(g, d, scale=0.1)))
    heads = []
    if c["head"]:
        width = 2 * d if dino else d
        names = ["cls_classifier", "distillation_classifier"] if fam == "deit" else ["classifier"]
        for name in names:
            t.append((name + ".weight", rand(g, len(LABELS), width)))
            t.append((name + ".bias", rand(g, len(LABELS), scale=0.1)))
            heads.append(name)
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"), t, dtype, {"format": "pt"})
    W = {name: rounded(v, dtype) for name, v in t}

    model_type = "dinov2_with_registers" if R else fam
    cfg = dict(model_type=model_type, hidden_size=d, num_attention_heads=H, num_hidden_layers=L,
               image_size=c["image"], patch_size=P, num_channels=3, hidden_act="gelu",
               qkv_bias=True, layer_norm_eps=1e-6 if dino else 1e-12,
               id2label={str(i): s for i, s in enumerate(LABELS)},
               label2id={s: i for i, s in enumerate(LABELS)})
    if dino:
        cfg.update(mlp_ratio=4, layerscale_value=1.0, use_swiglu_ffn=c["swiglu"])
        if R:
            cfg["num_register_tokens"] = R
    else:
        cfg["intermediate_size"] = I
    cfg["architectures"] = [{"vit": "ViTForImageClassification" if c["head"] else "ViTModel",
                             "deit": "DeiTForImageClassificationWithTeacher",
                             "dinov2": "Dinov2ForImageClassification" if c["head"] else
                             "Dinov2WithRegistersModel"}[fam]]
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(folder, "preprocessor_config.json"), "w") as f:
        json.dump(pre, f, indent=2)

    pixels = preprocess(picture, pre)
    return forward(c, W, torch.from_numpy(pixels).to(torch.float64), k, R, G, heads, cfg), pixels


def residual_terms(att, f, x, y):
    """One pre-norm layer's contrib and ALTI rows from their definitions, as full vectors:
    att [H, n, n] weights, f [H, n, d] each head's f_h(x_j) (layer scale included), x the
    stream entering the block, y = x + o its attention sublayer's result. T_ij = sum_h
    a^h_ij f_h(x_j) + [i = j] x_i; contrib |T_ij|, ALTI max(0, |y_i|_1 - |y_i - T_ij|_1), rows
    scaled to sum to 1."""
    n = x.shape[0]
    t = torch.einsum("hij,hjd->ijd", att, f) + torch.eye(n, dtype=x.dtype)[:, :, None] * x[:, None, :]
    c = t.norm(dim=-1)
    alti = torch.clamp(y.abs().sum(-1)[:, None] - (y[:, None, :] - t).abs().sum(-1), min=0)
    return c / c.sum(-1, keepdim=True), alti / alti.sum(-1, keepdim=True)


def forward(c, W, px, k, R, G, heads, cfg):
    d, H, L, P = c["d"], c["H"], c["L"], c["patch"]
    dino = c["family"] == "dinov2"
    p = c["prefix"]
    e = p + "embeddings."
    eps = cfg["layer_norm_eps"]
    emb = F.conv2d(px[None], W[e + "patch_embeddings.projection.weight"],
                   W[e + "patch_embeddings.projection.bias"], stride=P)[0]
    gh, gw = emb.shape[1:]
    patches = emb.flatten(1).T
    pos = W[e + "position_embeddings"][0]
    if (gh, gw) != (G, G):
        grid = pos[k:].reshape(1, G, G, d).permute(0, 3, 1, 2)
        grid = F.interpolate(grid, size=(gh, gw), mode="bicubic", align_corners=False,
                             antialias=R > 0)
        pos = torch.cat([pos[:k], grid.permute(0, 2, 3, 1).reshape(-1, d)])
    first = [W[e + "cls_token"][0, 0]]
    if k == 2:
        first.append(W[e + "distillation_token"][0, 0])
    x = torch.cat([torch.stack(first), patches]) + pos
    if R:
        x = torch.cat([x[:1], W[e + "register_tokens"][0], x[1:]])
    n, dh = x.shape[0], d // H
    maps, norms, contrib = [], [], []
    n1, n2 = ("norm1", "norm2") if dino else ("layernorm_before", "layernorm_after")
    for l in range(L):
        a = f"{p}encoder.layer.{l}."
        h = layer_norm(x, W[a + n1 + ".weight"], W[a + n1 + ".bias"], eps)

        def lin(z, name):
            return z @ W[a + name + ".weight"].T + W[a + name + ".bias"]
        q = lin(h, "attention.attention.query").view(n, H, dh).transpose(0, 1)
        kk = lin(h, "attention.attention.key").view(n, H, dh).transpose(0, 1)
        v = lin(h, "attention.attention.value").view(n, H, dh).transpose(0, 1)
        att = torch.softmax(q @ kk.transpose(1, 2) / math.sqrt(dh), -1)
        maps.append(att)
        ctx = (att @ v).transpose(0, 1).reshape(n, d)
        wo = W[a + "attention.output.dense.weight"]
        scale1 = W[a + "layer_scale1.lambda1"] if dino else torch.ones(d, dtype=torch.float64)
        # f_h(x_j) = v_h(x_j) W_O^h, times the layer scale: Kobayashi et al.'s norms
        f = torch.stack([v[hh] @ wo[:, hh * dh:(hh + 1) * dh].T * scale1 for hh in range(H)])
        norms.append(att * f.norm(dim=-1)[:, None, :])
        o = (ctx @ wo.T + W[a + "attention.output.dense.bias"]) * scale1
        contrib.append(residual_terms(att, f, x, x + o))
        x = x + o
        h = layer_norm(x, W[a + n2 + ".weight"], W[a + n2 + ".bias"], eps)
        if dino and c["swiglu"]:
            z = lin(h, "mlp.weights_in")
            x1, x2 = z.chunk(2, dim=-1)
            m = lin(F.silu(x1) * x2, "mlp.weights_out")
        elif dino:
            m = lin(gelu(lin(h, "mlp.fc1")), "mlp.fc2")
        else:
            m = lin(gelu(lin(h, "intermediate.dense")), "output.dense")
        if dino:
            m = m * W[a + "layer_scale2.lambda1"]
        x = x + m
    hidden = layer_norm(x, W[p + "layernorm.weight"], W[p + "layernorm.bias"], eps)
    out = dict(attention=torch.stack(maps).numpy(), hidden=hidden.numpy(),
               norms=torch.stack(norms).numpy(),
               contrib=torch.stack([t for t, _ in contrib]).numpy(),
               alti=torch.stack([t for _, t in contrib]).numpy())
    first_patch = k + R
    out["cls_map"] = out["attention"][:, :, 0, first_patch:].reshape(L, H, gh, gw)
    if heads:
        if dino:
            z = torch.cat([hidden[0], hidden[first_patch:].mean(0)]) @ W["classifier.weight"].T
            z = z + W["classifier.bias"]
        elif len(heads) == 2:
            z = ((hidden[0] @ W["cls_classifier.weight"].T + W["cls_classifier.bias"]) +
                 (hidden[1] @ W["distillation_classifier.weight"].T +
                  W["distillation_classifier.bias"])) / 2
        else:
            z = hidden[0] @ W["classifier.weight"].T + W["classifier.bias"]
        out["logits"] = z.numpy()
    return out


def make_all(out_dir, seed, names=None):
    os.makedirs(out_dir, exist_ok=True)
    for i, (name, c) in enumerate(CASES.items()):
        if names and name not in names:
            continue
        g = torch.Generator().manual_seed(seed * 1000 + i)
        folder = os.path.join(out_dir, name)
        os.makedirs(folder, exist_ok=True)
        picture = os.path.join(folder, "picture.png")
        make_picture(g, picture)
        out, pixels = make(c, g, folder, picture)
        np.savez(os.path.join(folder, "reference.npz"), pixels=pixels, **out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="make only these cases (the others keep their seeds)")
    a = ap.parse_args()
    make_all(a.out_dir, a.seed, a.only)
