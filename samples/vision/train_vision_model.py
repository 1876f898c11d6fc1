#!/usr/bin/env python3
"""Trains the bundled vision transformer, samples/shapes-vit: a ViT in Hugging Face's layout
(ViTForImageClassification's tensor names, config.json, preprocessor_config.json) that names
the red shape of a synthetic scene (samples/vision/shapes.py: circle, square, triangle or star,
among distractors of other colours on textured backgrounds).

  /usr/bin/python3 samples/vision/train_vision_model.py [--out DIR] [--epochs N]

Deterministic given its seed and thread count (2): the scenes come from fixed seeds (training
0 .. TRAIN - 1, held-out from shapes.HELD_OUT_FIRST), the initialisation and the batches' order
from torch.manual_seed(SEED). Each epoch's loss and held-out accuracy go to training.json. The
network: 64 x 64 pictures in 8 x 8 patches (64 patch tokens + CLS), d 64, 4 heads, 4 pre-norm
layers, MLP 128, LayerNorm eps 1e-12, exact GELU, as modeling_vit.py computes it; trained with
bfloat16 products (torch.autocast: oneDNN; Debian's torch multiplies float32 on the reference
BLAS), the weights kept and saved in float32.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import shapes  # noqa: E402
from train_demo_model import write_safetensors  # noqa: E402

SEED = 48
TRAIN = 24000
HELD_OUT = 1000
EPOCHS = 18
BATCH = 128
D, HEADS, LAYERS, MLP, PATCH = 64, 4, 4, 128, 8
GRID = shapes.SIZE // PATCH
MEAN = STD = 0.5


class ViT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, D, PATCH, PATCH)
        self.cls = torch.nn.Parameter(torch.randn(1, 1, D) * 0.02)
        self.pos = torch.nn.Parameter(torch.randn(1, 1 + GRID * GRID, D) * 0.02)
        self.layers = torch.nn.ModuleList()
        for _ in range(LAYERS):
            self.layers.append(torch.nn.ModuleDict({
                "ln1": torch.nn.LayerNorm(D, eps=1e-12), "q": torch.nn.Linear(D, D),
                "k": torch.nn.Linear(D, D), "v": torch.nn.Linear(D, D), "o": torch.nn.Linear(D, D),
                "ln2": torch.nn.LayerNorm(D, eps=1e-12), "up": torch.nn.Linear(D, MLP),
                "down": torch.nn.Linear(MLP, D)}))
        self.ln = torch.nn.LayerNorm(D, eps=1e-12)
        self.head = torch.nn.Linear(D, len(shapes.CLASSES))

    def forward(self, x):
        b = x.shape[0]
        e = self.patch(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(b, -1, -1), e], 1) + self.pos
        dh = D // HEADS
        for L in self.layers:
            z = L["ln1"](h)
            q, k, v = (L[m](z).view(b, -1, HEADS, dh).transpose(1, 2) for m in "qkv")
            a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh), -1)
            h = h + L["o"]((a @ v).transpose(1, 2).reshape(b, -1, D))
            h = h + L["down"](F.gelu(L["up"](L["ln2"](h))))
        return self.head(self.ln(h)[:, 0])

    def hf_tensors(self):
        t = [("vit.embeddings.cls_token", self.cls), ("vit.embeddings.position_embeddings", self.pos),
             ("vit.embeddings.patch_embeddings.projection.weight", self.patch.weight),
             ("vit.embeddings.patch_embeddings.projection.bias", self.patch.bias)]
        names = {"ln1": "layernorm_before", "q": "attention.attention.query",
                 "k": "attention.attention.key", "v": "attention.attention.value",
                 "o": "attention.output.dense", "ln2": "layernorm_after",
                 "up": "intermediate.dense", "down": "output.dense"}
        for i, L in enumerate(self.layers):
            for key, name in names.items():
                t.append((f"vit.encoder.layer.{i}.{name}.weight", L[key].weight))
                t.append((f"vit.encoder.layer.{i}.{name}.bias", L[key].bias))
        t += [("vit.layernorm.weight", self.ln.weight), ("vit.layernorm.bias", self.ln.bias),
              ("classifier.weight", self.head.weight), ("classifier.bias", self.head.bias)]
        return t


def scenes(first, count):
    pics, labels = [], []
    for seed in range(first, first + count):
        img, label, _ = shapes.scene(seed)
        pics.append(img)
        labels.append(label)
    x = torch.from_numpy(np.stack(pics)).permute(0, 3, 1, 2).float() / 255.0
    return (x - MEAN) / STD, torch.tensor(labels)


def write_folder(model, out, log):
    os.makedirs(out, exist_ok=True)
    write_safetensors(os.path.join(out, "model.safetensors"), model.hf_tensors())
    config = {"architectures": ["ViTForImageClassification"], "model_type": "vit",
              "hidden_size": D, "num_attention_heads": HEADS, "num_hidden_layers": LAYERS,
              "intermediate_size": MLP, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
              "image_size": shapes.SIZE, "patch_size": PATCH, "num_channels": 3,
              "qkv_bias": True, "id2label": {str(i): c for i, c in enumerate(shapes.CLASSES)},
              "label2id": {c: i for i, c in enumerate(shapes.CLASSES)}}
    pre = {"image_processor_type": "ViTImageProcessor", "do_resize": True,
           "size": {"height": shapes.SIZE, "width": shapes.SIZE}, "resample": 2,
           "do_rescale": True, "rescale_factor": 1 / 255, "do_normalize": True,
           "image_mean": [MEAN] * 3, "image_std": [STD] * 3}
    for name, obj in (("config.json", config), ("preprocessor_config.json", pre),
                      ("training.json", log)):
        with open(os.path.join(out, name), "w") as f:
            json.dump(obj, f, indent=2)
            f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "shapes-vit"))
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    a = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    started = time.time()
    x, y = scenes(0, TRAIN)
    hx, hy = scenes(shapes.HELD_OUT_FIRST + 100_000, HELD_OUT)  # apart from the pointing test's
    model = ViT()
    steps = a.epochs * (TRAIN // BATCH)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 200) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    log = {"seed": SEED, "train_scenes": TRAIN, "held_out_scenes": HELD_OUT, "batch": BATCH,
           "torch": torch.__version__, "threads": 2, "epochs": []}
    for epoch in range(a.epochs):
        model.train()
        order = torch.randperm(TRAIN)
        total = 0.0
        for s in range(TRAIN // BATCH):
            idx = order[s * BATCH:(s + 1) * BATCH]
            # bfloat16 products through oneDNN: Debian's torch multiplies float32 with the
            # reference BLAS (a few GFLOP/s)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x[idx])
            loss = F.cross_entropy(logits.float(), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss)
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            acc = float((model(hx).float().argmax(-1) == hy).float().mean())
        entry = {"epoch": epoch + 1, "loss": round(total / (TRAIN // BATCH), 4),
                 "held_out_accuracy": round(acc, 4), "seconds": round(time.time() - started, 1)}
        log["epochs"].append(entry)
        print(json.dumps(entry), flush=True)
        write_folder(model, a.out, log)


if __name__ == "__main__":
    main()
