#!/usr/bin/python3
"""Trains samples/kjv-gpt: the small GPT-2-layout model attn-viz ships, so the first maps a new
user sees come from a trained model.

    /usr/bin/python3 samples/train_demo_model.py [--text FILE] [--out samples/kjv-gpt]

Text: the King James Version of the Bible (1611; its copyright has expired), as Debian 12's
package bible-kjv-text 4.38 holds it (/usr/lib/bible.data), decoded by bible-kjv's `bible`
program: `bible gen1:1-rev22:21` (4,298,239 bytes, 31,102 verses; MD5
9e9193c67cd125623629a76133c71e3c). Without --text the script runs that command (install it with
`apt-get install bible-kjv`). Verse numbers and chapter headings are dropped; a chapter is one
line of its verses. Revelation is held out to measure the loss on text the model never saw.

Tokenizer: byte-level BPE as GPT-2's (the same byte-to-character table, the same pre-tokenizer
split on this ASCII text), 2,048 entries: 256 bytes, 1,791 merges learnt here by counting pairs
over the pre-tokens of the training text (ties broken by the pair), and <|endoftext|> after each
chapter. Written as GPT-2's vocab.json and merges.txt.

Model: GPT-2 (pre-LayerNorm, learned positions, gelu_new, tied embeddings), 4 layers, 4 heads,
d = 128, 128 positions; written as Hugging Face writes GPT2LMHeadModel (Conv1D weights [in, out],
no prefix), float32, with config.json (about 3.4 MB).

Training: next-token cross-entropy, AdamW (lr 5e-3, warm-up 100 steps, cosine to 5e-4, weight
decay 0.05, betas 0.9 / 0.95, gradients clipped at 1), batches of 16 windows of 128 tokens drawn
from the training text, 4,000 steps (8.2 M tokens, about 7.5 passes). Every window says a span
of 16-48 of its tokens again further on (how repeated text looks), and in half of them the span
is first replaced by random tokens, which only its earlier occurrence predicts (where an
induction head pays). The heads form in this order: a previous-token head within a few hundred
steps, then, after a plateau, the induction head in a sudden phase change near step 2,300 (the
loss drops by about a nat), with first-token heads growing alongside. Shorter runs (1,500
steps) or half the repeated windows stayed on the plateau. Seed 20261125; torch's threads fixed
at 2; the loss curve, the held-out loss, each head's scores (previous token, first token,
induction; printed every 100 steps too) and the versions go to training.json beside the model.

Debian's python3-torch runs its products on the BLAS the system selects; the reference BLAS is
slow. Point LD_LIBRARY_PATH at OpenBLAS (package libopenblas0-pthread, or its files unpacked with
`apt-get download` + `dpkg -x`): about 4,500 tokens/s on 2 cores (about 30 minutes for the 4,000
steps) against a tenth of that on the reference BLAS. The seed and thread count are fixed; a
different BLAS or torch rounds differently, so its weights will not be bit-identical (the run
that made samples/kjv-gpt is recorded in its training.json).
"""

import argparse
import collections
import hashlib
import json
import math
import os
import re
import struct
import subprocess
import sys
import time

import torch

SEED = 20261125
VOCAB = 2048
LAYERS, HEADS, D, POSITIONS = 4, 4, 128, 128
BATCH, STEPS, WARMUP = 16, 4000, 100
LR, LR_END, WEIGHT_DECAY = 5e-3, 5e-4, 0.05
COPY_SHARE, RANDOM_SHARE, COPY_MIN, COPY_MAX = 1.0, 0.5, 16, 48
EOT = "<|endoftext|>"


# ---- text -------------------------------------------------------------------------------

def read_kjv(path):
    """Chapters of `bible gen1:1-rev22:21` output, each one line of its verses (numbers dropped),
    as (book, text) pairs."""
    if path:
        with open(path, encoding="ascii") as f:
            raw = f.read()
    else:
        raw = subprocess.run(["bible", "gen1:1-rev22:21"], check=True, capture_output=True,
                             text=True).stdout
    chapters, verses, book = [], [], None
    heading = re.compile(r"^(\S.*?) (\d+)$")
    verse = re.compile(r"^\s+\d+ (.*)$")
    for line in raw.split("\n"):
        m = heading.match(line)
        if m:
            if verses:
                chapters.append((book, " ".join(verses)))
            book, verses = m.group(1), []
            continue
        m = verse.match(line)
        if m:
            verses.append(m.group(1).strip())
        elif line.strip():
            verses[-1] += " " + line.strip()
    if verses:
        chapters.append((book, " ".join(verses)))
    return raw, chapters


# ---- byte-level BPE -----------------------------------------------------------------------

def bytes_to_unicode():
    """GPT-2's table: every byte as a printable character (bytes that are printable map to
    themselves, the others to 256 + k)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


# GPT-2's pre-tokenizer pattern restricted to ASCII (the text is ASCII, where it agrees with
# \p{L} / \p{N}).
PRE = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def learn_bpe(lines, merges_wanted):
    table = bytes_to_unicode()
    words = collections.Counter()
    for line in lines:
        for piece in PRE.findall(line):
            words["".join(table[b] for b in piece.encode())] += 1
    # each distinct pre-token as a list of symbols, with its count
    symbols = [list(w) for w in words]
    counts = list(words.values())
    pairs = collections.Counter()
    where = collections.defaultdict(set)
    for i, s in enumerate(symbols):
        for a, b in zip(s, s[1:]):
            pairs[(a, b)] += counts[i]
            where[(a, b)].add(i)
    merges = []
    for _ in range(merges_wanted):
        if not pairs:
            break
        # the most frequent pair; ties broken by the pair itself, so the result is deterministic
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merges.append(best)
        joined = best[0] + best[1]
        for i in list(where[best]):
            s, c = symbols[i], counts[i]
            for a, b in zip(s, s[1:]):
                pairs[(a, b)] -= c
                if pairs[(a, b)] <= 0:
                    del pairs[(a, b)]
                where[(a, b)].discard(i)
            out, k = [], 0
            while k < len(s):
                if k + 1 < len(s) and s[k] == best[0] and s[k + 1] == best[1]:
                    out.append(joined)
                    k += 2
                else:
                    out.append(s[k])
                    k += 1
            symbols[i] = out
            for a, b in zip(out, out[1:]):
                pairs[(a, b)] += c
                where[(a, b)].add(i)
        where.pop(best, None)
    vocab = {table[b]: i for i, b in enumerate(sorted(table, key=lambda b: b))}
    for a, b in merges:
        vocab[a + b] = len(vocab)
    vocab[EOT] = len(vocab)
    return vocab, merges


class Encoder:
    def __init__(self, vocab, merges):
        self.vocab, self.rank = vocab, {m: r for r, m in enumerate(merges)}
        self.table = bytes_to_unicode()
        self.cache = {}

    def word(self, w):
        if w in self.cache:
            return self.cache[w]
        s = list(w)
        while len(s) > 1:
            ranked = [(self.rank.get((a, b), 1 << 30), k) for k, (a, b) in enumerate(zip(s, s[1:]))]
            r, k = min(ranked)
            if r == 1 << 30:
                break
            s = s[:k] + [s[k] + s[k + 1]] + s[k + 2:]
        ids = [self.vocab[t] for t in s]
        self.cache[w] = ids
        return ids

    def encode(self, text):
        out = []
        for piece in PRE.findall(text):
            out += self.word("".join(self.table[b] for b in piece.encode()))
        return out


# ---- the model ------------------------------------------------------------------------------

def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


class GPT2(torch.nn.Module):
    """GPT-2 with Hugging Face's parameter names and Conv1D layout ([in, out])."""

    def __init__(self, g):
        super().__init__()
        P = torch.nn.Parameter
        std = 0.02
        self.p = torch.nn.ParameterDict()

        def put(name, *shape, init="normal", scale=std):
            t = torch.empty(*shape)
            if init == "normal":
                t.normal_(0.0, scale, generator=g)
            elif init == "ones":
                t.fill_(1.0)
            else:
                t.zero_()
            self.p[name.replace(".", "__")] = P(t)

        put("wte.weight", VOCAB, D)
        put("wpe.weight", POSITIONS, D, scale=0.01)
        # the products that read the normalised stream: N(0, 1 / fan_in), so the first scores
        # are O(1) and the heads start to differ at once (GPT-2's 0.02 is that for d = 2,500);
        # the residual projections scaled down by sqrt(2 L), as GPT-2 does
        fan_in = 1.0 / math.sqrt(D)
        proj = std / math.sqrt(2 * LAYERS)
        for l in range(LAYERS):
            h = f"h.{l}."
            put(h + "ln_1.weight", D, init="ones"), put(h + "ln_1.bias", D, init="zeros")
            put(h + "attn.c_attn.weight", D, 3 * D, scale=fan_in)
            put(h + "attn.c_attn.bias", 3 * D, init="zeros")
            put(h + "attn.c_proj.weight", D, D, scale=proj), put(h + "attn.c_proj.bias", D, init="zeros")
            put(h + "ln_2.weight", D, init="ones"), put(h + "ln_2.bias", D, init="zeros")
            put(h + "mlp.c_fc.weight", D, 4 * D, scale=fan_in)
            put(h + "mlp.c_fc.bias", 4 * D, init="zeros")
            put(h + "mlp.c_proj.weight", 4 * D, D, scale=proj), put(h + "mlp.c_proj.bias", D, init="zeros")
        put("ln_f.weight", D, init="ones"), put("ln_f.bias", D, init="zeros")

    def w(self, name):
        return self.p[name.replace(".", "__")]

    def named(self):
        return [(k.replace("__", "."), v) for k, v in self.p.items()]

    def forward(self, ids, want_maps=False):
        B, n = ids.shape
        dh = D // HEADS
        x = self.w("wte.weight")[ids] + self.w("wpe.weight")[:n]
        hidden = torch.ones(n, n, dtype=torch.bool).triu(1)
        maps = []
        for l in range(LAYERS):
            h = f"h.{l}."
            a = torch.nn.functional.layer_norm(x, (D,), self.w(h + "ln_1.weight"), self.w(h + "ln_1.bias"), 1e-5)
            qkv = a @ self.w(h + "attn.c_attn.weight") + self.w(h + "attn.c_attn.bias")
            q, k, v = (t.view(B, n, HEADS, dh).transpose(1, 2) for t in qkv.split(D, -1))
            s = (q @ k.transpose(-1, -2)) / math.sqrt(dh)
            att = torch.softmax(s.masked_fill(hidden, float("-inf")), -1)
            if want_maps:
                maps.append(att)
            ctx = (att @ v).transpose(1, 2).reshape(B, n, D)
            x = x + ctx @ self.w(h + "attn.c_proj.weight") + self.w(h + "attn.c_proj.bias")
            a = torch.nn.functional.layer_norm(x, (D,), self.w(h + "ln_2.weight"), self.w(h + "ln_2.bias"), 1e-5)
            x = x + gelu_new(a @ self.w(h + "mlp.c_fc.weight") + self.w(h + "mlp.c_fc.bias")) \
                @ self.w(h + "mlp.c_proj.weight") + self.w(h + "mlp.c_proj.bias")
        x = torch.nn.functional.layer_norm(x, (D,), self.w("ln_f.weight"), self.w("ln_f.bias"), 1e-5)
        logits = x @ self.w("wte.weight").T
        return (logits, maps) if want_maps else logits


# ---- data -----------------------------------------------------------------------------------

def batch(tokens, g):
    """BATCH windows of POSITIONS + 1 tokens. In COPY_SHARE of them a span of COPY_MIN-COPY_MAX
    tokens is said again further on; in RANDOM_SHARE of those the span is first replaced by
    random tokens, which nothing but the earlier occurrence predicts."""
    starts = torch.randint(0, len(tokens) - POSITIONS - 1, (BATCH,), generator=g)
    rows = torch.stack([tokens[s:s + POSITIONS + 1] for s in starts.tolist()])
    copy = torch.rand(BATCH, generator=g) < COPY_SHARE
    for b in torch.nonzero(copy).flatten().tolist():
        length = int(torch.randint(COPY_MIN, COPY_MAX + 1, (1,), generator=g))
        src = int(torch.randint(0, POSITIONS // 2 - length, (1,), generator=g))
        dst = int(torch.randint(src + length, POSITIONS + 1 - length, (1,), generator=g))
        if float(torch.rand(1, generator=g)) < RANDOM_SHARE:
            rows[b, src:src + length] = torch.randint(256, VOCAB - 1, (length,), generator=g)
        rows[b, dst:dst + length] = rows[b, src:src + length].clone()
    return rows[:, :-1], rows[:, 1:]


def learning_rate(step, steps):
    if step < WARMUP:
        return LR * (step + 1) / WARMUP
    t = (step - WARMUP) / max(1, steps - WARMUP)
    return LR_END + 0.5 * (LR - LR_END) * (1 + math.cos(math.pi * t))


def train_step(model, opt, x, y, lr):
    """One AdamW step at learning rate lr on next-token cross-entropy, gradients clipped at 1;
    returns the loss."""
    for group in opt.param_groups:
        group["lr"] = lr
    loss = torch.nn.functional.cross_entropy(model(x).view(-1, VOCAB), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_([p for _, p in model.named()], 1.0)
    opt.step()
    return loss


@torch.no_grad()
def mean_loss(model, tokens, windows=64):
    total, count = 0.0, 0
    for s in range(0, min(len(tokens) - POSITIONS - 1, windows * POSITIONS), POSITIONS):
        x = tokens[s:s + POSITIONS].unsqueeze(0)
        y = tokens[s + 1:s + POSITIONS + 1].unsqueeze(0)
        total += float(torch.nn.functional.cross_entropy(model(x).view(-1, VOCAB), y.view(-1)))
        count += 1
    return total / count


@torch.no_grad()
def head_scores(model, tokens, g):
    """Per layer and head, averaged over 8 windows of the held-out text: the weight on the previous
    token and on the first token; and on 8 sequences of 50 random tokens (ids 256 and up) said
    twice, the induction score: the weight a query in the second half puts on the key just after
    its token's first occurrence (Olsson et al. 2022)."""
    prev = torch.zeros(LAYERS, HEADS)
    first = torch.zeros(LAYERS, HEADS)
    for w in range(8):
        s = w * POSITIONS
        _, maps = model(tokens[s:s + POSITIONS].unsqueeze(0), want_maps=True)
        for l, a in enumerate(maps):
            a = a[0]  # [H, n, n]
            prev[l] += a.diagonal(-1, -2, -1)[:, 1:].mean(-1) / 8  # rows 2 … n − 1 on i − 1
            first[l] += a[:, 1:, 0].mean(-1) / 8
    T = 50
    induction = torch.zeros(LAYERS, HEADS)
    for _ in range(8):
        seq = torch.randint(256, VOCAB - 1, (T,), generator=g)
        _, maps = model(torch.cat([seq, seq]).unsqueeze(0), want_maps=True)
        for l, a in enumerate(maps):
            a = a[0]
            rows = torch.arange(T, 2 * T)
            induction[l] += a[:, rows, rows - T + 1].mean(-1) / 8
    return {"previous_token": prev.tolist(), "first_token": first.tolist(),
            "induction": induction.tolist()}


# ---- files ----------------------------------------------------------------------------------

def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, t in tensors:
        data = t.detach().contiguous().to(torch.float32).numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--text", help="the output of `bible gen1:1-rev22:21` (default: run it)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "kjv-gpt"))
    ap.add_argument("--steps", type=int, default=STEPS, help="training steps (shorter runs for trying)")
    args = ap.parse_args()
    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    raw, chapters = read_kjv(args.text)
    train_lines = [t for book, t in chapters if book != "Revelation"]
    held_lines = [t for book, t in chapters if book == "Revelation"]
    t0 = time.time()
    vocab, merges = learn_bpe(train_lines, VOCAB - 257)
    enc = Encoder(vocab, merges)
    eot = vocab[EOT]
    ids = []
    for line in train_lines:
        ids += enc.encode(line) + [eot]
    held = []
    for line in held_lines:
        held += enc.encode(line) + [eot]
    tokens, held = torch.tensor(ids), torch.tensor(held)
    print(f"text: {len(raw):,} bytes, {len(chapters)} chapters; tokenizer: {len(vocab)} entries "
          f"({time.time() - t0:.0f} s); training tokens {len(tokens):,}, held out {len(held):,}",
          flush=True)

    g = torch.Generator().manual_seed(SEED)
    model = GPT2(g)
    decay = [p for n, p in model.named() if n.endswith(".weight") and "ln_" not in n and "wpe" not in n]
    rest = [p for n, p in model.named() if not (n.endswith(".weight") and "ln_" not in n and "wpe" not in n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": WEIGHT_DECAY},
                             {"params": rest, "weight_decay": 0.0}], lr=LR, betas=(0.9, 0.95))
    curve = []
    t0 = time.time()
    steps = args.steps
    for step in range(steps):
        x, y = batch(tokens, g)
        loss = train_step(model, opt, x, y, learning_rate(step, steps))
        if step % 50 == 0 or step == steps - 1:
            curve.append([step, round(float(loss), 4)])
            rate = (step + 1) * BATCH * POSITIONS / (time.time() - t0)
            print(f"step {step:5d}  loss {float(loss):.3f}  {rate:,.0f} tokens/s", flush=True)
        if step % 100 == 99:
            best = {k: max(max(row) for row in v)
                    for k, v in head_scores(model, held, torch.Generator().manual_seed(1)).items()}
            print("  best heads: " + ", ".join(f"{k} {v:.2f}" for k, v in best.items()), flush=True)
    held_loss = mean_loss(model, held)
    print(f"held-out loss (Revelation) {held_loss:.3f}; {time.time() - t0:.0f} s", flush=True)
    heads = head_scores(model, held, torch.Generator().manual_seed(SEED + 1))
    for name, table in heads.items():
        print(f"{name:>14}: " + " | ".join(" ".join(f"{x:.2f}" for x in row) for row in table))

    os.makedirs(args.out, exist_ok=True)
    write_safetensors(os.path.join(args.out, "model.safetensors"), model.named())
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": VOCAB,
              "n_positions": POSITIONS, "n_ctx": POSITIONS, "n_embd": D, "n_layer": LAYERS,
              "n_head": HEADS, "n_inner": None, "activation_function": "gelu_new",
              "layer_norm_epsilon": 1e-5, "bos_token_id": eot, "eos_token_id": eot,
              "tie_word_embeddings": True}
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    with open(os.path.join(args.out, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(args.out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")
    log = {"seed": SEED, "steps": steps, "batch": BATCH, "window": POSITIONS,
           "tokens_seen": steps * BATCH * POSITIONS, "training_tokens": len(tokens),
           "held_out_tokens": len(held), "held_out_loss": round(held_loss, 4),
           "text_md5": hashlib.md5(raw.encode()).hexdigest(), "loss_curve": curve,
           "head_scores": heads, "torch": torch.__version__, "python": sys.version.split()[0],
           "seconds": round(time.time() - t0)}
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump(log, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
