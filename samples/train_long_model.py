#!/usr/bin/python3
"""Trains samples/kjv-llama: a small Llama-layout model with rotary positions and 4,096 of them,
so the long-text views (`--view received`, `--view received-rollout`, `--npy`, `heads`) can be
tried on a whole book with what attn-viz ships (samples/kjv-gpt has 128 learned positions).

    LD_LIBRARY_PATH=…/openblas-pthread /usr/bin/python3 samples/train_long_model.py \
        [--text FILE] [--out samples/kjv-llama] [--resume CHECKPOINT]

Text and held-out book as samples/train_demo_model.py (the KJV of Debian's bible-kjv 4.38,
Revelation held out), and its tokenizer: samples/kjv-gpt's vocab.json and merges.txt are read,
not learnt again, so both models cut a text into the same tokens.

Model: Llama (LlamaForCausalLM's names and layout: nn.Linear weights [out, in], RMSNorm, rotary
positions on the two halves of each head as Hugging Face's rotate_half, SwiGLU MLP), 4 layers,
4 heads of 32, d = 128, intermediate 344, rope_theta 10,000, tied embeddings, float32 (about
4.2 MB), max_position_embeddings 4,096.

Training: next-token cross-entropy, AdamW (lr 5e-3, warm-up 100 steps, cosine to 5e-4, weight
decay 0.05, betas 0.9 / 0.95, gradients clipped at 1). Steps 0 … 1,399: batches of 16 windows of
256 tokens, where every window says a span of 16-48 tokens again further on and half of those
spans are random tokens first (the copy task of train_demo_model.py, where an induction head
pays; none formed in the 1,400 steps of the run that made samples/kjv-llama); steps 1,400 … 1,499: one window of 4,096 tokens of plain text per step, so the rotations of
the far positions are seen in training. Seed 20261128, torch's threads fixed at 2. A checkpoint
(model, optimiser and data generator states, the loss curve) is written every 100 steps to
OUT/checkpoint.pt, and --resume continues from one (the file is removed when the run ends). The
loss curve, the held-out loss by position band on windows of 4,096 tokens of Revelation, the head
scores and the versions go to training.json beside the model.
"""

import argparse
import hashlib
import json
import math
import os
import sys
import time

import torch

import train_demo_model as demo

SEED = 20261128
VOCAB, LAYERS, HEADS, D, FFN, POSITIONS, THETA, EPS = 2048, 4, 4, 128, 344, 4096, 10000.0, 1e-5
SHORT, SHORT_BATCH, SHORT_STEPS = 256, 16, 1400
LONG_STEPS = 100
STEPS = SHORT_STEPS + LONG_STEPS
CHECKPOINT_EVERY = 100


# ---- the model ------------------------------------------------------------------------------

class Llama(torch.nn.Module):
    """LlamaForCausalLM with Hugging Face's parameter names (lm_head tied to the embeddings)."""

    def __init__(self, g):
        super().__init__()
        self.p = torch.nn.ParameterDict()
        fan_in = 1.0 / math.sqrt(D)
        proj = 0.02 / math.sqrt(2 * LAYERS)

        def put(name, *shape, scale=None):
            t = torch.ones(*shape) if scale is None else torch.empty(*shape).normal_(0.0, scale, generator=g)
            self.p[name.replace(".", "__")] = torch.nn.Parameter(t)

        put("model.embed_tokens.weight", VOCAB, D, scale=0.02)
        for l in range(LAYERS):
            h = f"model.layers.{l}."
            put(h + "input_layernorm.weight", D)
            for name in ("q", "k", "v"):
                put(h + f"self_attn.{name}_proj.weight", D, D, scale=fan_in)
            put(h + "self_attn.o_proj.weight", D, D, scale=proj)
            put(h + "post_attention_layernorm.weight", D)
            put(h + "mlp.gate_proj.weight", FFN, D, scale=fan_in)
            put(h + "mlp.up_proj.weight", FFN, D, scale=fan_in)
            put(h + "mlp.down_proj.weight", D, FFN, scale=proj)
        put("model.norm.weight", D)

    def w(self, name):
        return self.p[name.replace(".", "__")]

    def named(self):
        return [(k.replace("__", "."), v) for k, v in self.p.items()]

    def rms(self, x, name):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * self.w(name)

    @staticmethod
    def rotate(x, cos, sin):
        """x·cos + rotate_half(x)·sin, rotate_half(x) = [−x₂, x₁] over the head's two halves."""
        half = x.shape[-1] // 2
        turned = torch.cat([-x[..., half:], x[..., :half]], -1)
        return x * cos + turned * sin

    def forward(self, ids, want_maps=False):
        B, n = ids.shape
        dh = D // HEADS
        inv = 1.0 / THETA ** (torch.arange(0, dh, 2, dtype=torch.float32) / dh)
        angles = torch.outer(torch.arange(n, dtype=torch.float32), inv)
        angles = torch.cat([angles, angles], -1)
        cos, sin = angles.cos(), angles.sin()
        hidden = torch.ones(n, n, dtype=torch.bool).triu(1)
        x = self.w("model.embed_tokens.weight")[ids]
        maps = []
        for l in range(LAYERS):
            h = f"model.layers.{l}."
            m = self.rms(x, h + "input_layernorm.weight")
            q, k, v = ((m @ self.w(h + f"self_attn.{s}_proj.weight").T).view(B, n, HEADS, dh).transpose(1, 2)
                       for s in ("q", "k", "v"))
            q, k = self.rotate(q, cos, sin), self.rotate(k, cos, sin)
            att = torch.softmax(((q @ k.transpose(-1, -2)) / math.sqrt(dh)).masked_fill(hidden, float("-inf")), -1)
            if want_maps:
                maps.append(att)
            ctx = (att @ v).transpose(1, 2).reshape(B, n, D)
            x = x + ctx @ self.w(h + "self_attn.o_proj.weight").T
            m = self.rms(x, h + "post_attention_layernorm.weight")
            gate = torch.nn.functional.silu(m @ self.w(h + "mlp.gate_proj.weight").T)
            x = x + (gate * (m @ self.w(h + "mlp.up_proj.weight").T)) @ self.w(h + "mlp.down_proj.weight").T
        logits = self.rms(x, "model.norm.weight") @ self.w("model.embed_tokens.weight").T
        return (logits, maps) if want_maps else logits


# ---- data -----------------------------------------------------------------------------------

def batch_for(step, tokens, g):
    """The copy-task windows of the demo script at SHORT tokens (its window and batch sizes set to
    ours; its head scores then measure on windows of SHORT), then plain windows of POSITIONS."""
    if step < SHORT_STEPS:
        demo.POSITIONS, demo.BATCH = SHORT, SHORT_BATCH
        return demo.batch(tokens, g)
    start = int(torch.randint(0, len(tokens) - POSITIONS - 1, (1,), generator=g))
    row = tokens[start:start + POSITIONS + 1].unsqueeze(0)
    return row[:, :-1], row[:, 1:]


@torch.no_grad()
def loss_by_position(model, held, bands=((0, 256), (256, 1024), (1024, 2048), (2048, 4096))):
    """Mean held-out loss over the positions of each band, on the windows of POSITIONS tokens
    that fit in the held-out text (a model that only learnt short windows rises in the far
    bands)."""
    totals = [0.0] * len(bands)
    windows = 0
    for s in range(0, len(held) - POSITIONS - 1, POSITIONS):
        x, y = held[s:s + POSITIONS].unsqueeze(0), held[s + 1:s + POSITIONS + 1]
        each = torch.nn.functional.cross_entropy(model(x)[0], y, reduction="none")
        for b, (lo, hi) in enumerate(bands):
            totals[b] += float(each[lo:hi].mean())
        windows += 1
    return {f"{lo}-{hi - 1}": round(t / windows, 4) for (lo, hi), t in zip(bands, totals)}


# ---- the run --------------------------------------------------------------------------------

def read_tokens(text_path):
    raw, chapters = demo.read_kjv(text_path)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "kjv-gpt", "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(here, "kjv-gpt", "merges.txt"), encoding="utf-8") as f:
        merges = [tuple(line.split(" ")) for line in f.read().split("\n")[1:] if line]
    enc, eot = demo.Encoder(vocab, merges), vocab[demo.EOT]
    train, held = [], []
    for book, text in chapters:
        (held if book == "Revelation" else train).extend(enc.encode(text) + [eot])
    return raw, torch.tensor(train), torch.tensor(held), eot


def optimiser(model):
    decay = [p for n, p in model.named() if n.endswith("proj.weight") or "embed" in n]
    rest = [p for n, p in model.named() if not (n.endswith("proj.weight") or "embed" in n)]
    return torch.optim.AdamW([{"params": decay, "weight_decay": demo.WEIGHT_DECAY},
                              {"params": rest, "weight_decay": 0.0}], lr=demo.LR, betas=(0.9, 0.95))


def train(model, opt, g, tokens, held, first, curve, out):
    t0 = time.time()
    for step in range(first, STEPS):
        x, y = batch_for(step, tokens, g)
        loss = demo.train_step(model, opt, x, y, demo.learning_rate(step, STEPS))
        if step % 50 == 0 or step == STEPS - 1:
            curve.append([step, round(float(loss), 4)])
            print(f"step {step:5d}  window {x.shape[1]}  loss {float(loss):.3f}  "
                  f"{time.time() - t0:.0f} s", flush=True)
        if step % CHECKPOINT_EVERY == CHECKPOINT_EVERY - 1:
            best = {k: max(max(row) for row in v)
                    for k, v in demo.head_scores(model, held, torch.Generator().manual_seed(1)).items()}
            print("  best heads: " + ", ".join(f"{k} {v:.2f}" for k, v in best.items()), flush=True)
            torch.save({"step": step + 1, "model": model.state_dict(), "opt": opt.state_dict(),
                        "g": g.get_state(), "curve": curve}, os.path.join(out, "checkpoint.pt"))


def write_model(model, out, eot):
    demo.write_safetensors(os.path.join(out, "model.safetensors"), model.named())
    config = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": VOCAB,
              "hidden_size": D, "intermediate_size": FFN, "num_hidden_layers": LAYERS,
              "num_attention_heads": HEADS, "num_key_value_heads": HEADS,
              "max_position_embeddings": POSITIONS, "rms_norm_eps": EPS, "rope_theta": THETA,
              "hidden_act": "silu", "tie_word_embeddings": True, "bos_token_id": eot,
              "eos_token_id": eot}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("vocab.json", "merges.txt"):
        with open(os.path.join(here, "kjv-gpt", name), "rb") as src, open(os.path.join(out, name), "wb") as dst:
            dst.write(src.read())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--text", help="the output of `bible gen1:1-rev22:21` (default: run it)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "kjv-llama"))
    ap.add_argument("--resume", help="a checkpoint.pt this script wrote")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    os.makedirs(args.out, exist_ok=True)
    raw, tokens, held, eot = read_tokens(args.text)
    print(f"training tokens {len(tokens):,}, held out {len(held):,}", flush=True)
    g = torch.Generator().manual_seed(SEED)
    model = Llama(g)
    opt = optimiser(model)
    first, curve = 0, []
    if args.resume:
        state = torch.load(args.resume)
        model.load_state_dict(state["model"]), opt.load_state_dict(state["opt"]), g.set_state(state["g"])
        first, curve = state["step"], state["curve"]
        print(f"resumed at step {first}", flush=True)
    t0 = time.time()
    train(model, opt, g, tokens, held, first, curve, args.out)
    bands = loss_by_position(model, held)
    print(f"held-out loss (Revelation, windows of {POSITIONS}) by position: {bands}", flush=True)
    heads = demo.head_scores(model, held, torch.Generator().manual_seed(SEED + 1))
    for name, table in heads.items():
        print(f"{name:>14}: " + " | ".join(" ".join(f"{x:.2f}" for x in row) for row in table))
    write_model(model, args.out, eot)
    log = {"seed": SEED, "steps": STEPS, "short_steps": SHORT_STEPS, "short_window": SHORT,
           "short_batch": SHORT_BATCH, "long_window": POSITIONS,
           "tokens_seen": SHORT_STEPS * SHORT_BATCH * SHORT + LONG_STEPS * POSITIONS,
           "training_tokens": len(tokens), "held_out_tokens": len(held),
           "held_out_loss_by_position": bands, "text_md5": hashlib.md5(raw.encode()).hexdigest(),
           "loss_curve": curve, "head_scores": heads, "torch": torch.__version__,
           "python": sys.version.split()[0], "seconds_this_run": round(time.time() - t0)}
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump(log, f, indent=1)
        f.write("\n")
    checkpoint = os.path.join(args.out, "checkpoint.pt")
    if os.path.exists(checkpoint):
        os.remove(checkpoint)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
