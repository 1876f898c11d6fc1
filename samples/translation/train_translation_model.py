#!/usr/bin/env python3
"""Trains samples/rv-kjv-marian: a small Spanish -> English translation model in Marian's layout
(Hugging Face's MarianMTModel names: post-norm encoder and decoder, sinusoidal positions, swish,
scaled and shared embeddings), so that attn-viz shows the cross attention of a model that has
really learnt to translate, and scores it against the translators' own word alignment
(bible_corpus.py: Strong's numbers). Data: Debian's sword-text-sparv (Reina-Valera 1909) and
sword-text-kjv (King James Version), read with diatheke; every book but the held-out ones
(bible_corpus.HELD_OUT), whose verses and gold alignments are written next to this script.

    apt-get install sword-text-sparv sword-text-kjv diatheke python3-torch python3-sentencepiece
    /usr/bin/python3 samples/translation/train_translation_model.py [--minutes 50] [--out DIR]

Writes OUT (default samples/rv-kjv-marian): config.json, model.safetensors (F16), source.spm and
target.spm (SentencePiece Unigram vocabularies trained here), vocab.json (both mapped to one id
space, as Marian folders are), training.json (what was done, the losses, the time); and
samples/translation/heldout.{es,en,keys} (one verse a line) and heldout.gold (Pharaoh: i-j sure,
i?j possible; i a Spanish word, j an English one, counted from 0 over whitespace words).
Deterministic given the seed and the thread count, up to the time budget's cut.
"""
import argparse
import io
import json
import math
import os
import random
import struct
import sys
import time

import sentencepiece as spm
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bible_corpus  # noqa: E402

SIZES = dict(d=192, heads=4, encoder_layers=3, decoder_layers=3, ffn=512, vocab_each=4000,
             max_tokens=80)


# ---- data -------------------------------------------------------------------------------------

def split_corpus():
    train, held = [], []
    for key, es, en in bible_corpus.corpus():
        (held if key[0] in bible_corpus.HELD_OUT else train).append((key, es, en))
    return train, held


def write_heldout(held):
    with open(os.path.join(HERE, "heldout.es"), "w") as es, open(os.path.join(HERE, "heldout.en"), "w") as en, \
            open(os.path.join(HERE, "heldout.keys"), "w") as keys, open(os.path.join(HERE, "heldout.gold"), "w") as gold:
        for (book, chapter, verse), es_markup, en_markup in held:
            es.write(bible_corpus.plain(es_markup) + "\n")
            en.write(bible_corpus.plain(en_markup) + "\n")
            keys.write(f"{book} {chapter}:{verse}\n")
            sure, possible = bible_corpus.gold(es_markup, en_markup)
            pairs = sorted([(i, j, "-") for i, j in sure] + [(i, j, "?") for i, j in possible])
            gold.write(" ".join(f"{i}{sep}{j}" for i, j, sep in pairs) + "\n")


def train_spm(texts, size):
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(texts), model_writer=model, model_type="unigram",
                                   vocab_size=size, character_coverage=1.0, num_threads=1,
                                   bos_id=-1, eos_id=2, unk_id=1, pad_id=-1, unk_piece="<unk>",
                                   eos_piece="</s>")
    return model.getvalue()


def shared_vocab(*models):
    """Marian's vocab.json: </s> 0, <unk> 1, every piece of both vocabularies once, <pad> last."""
    vocab = {"</s>": 0, "<unk>": 1}
    for m in models:
        sp = spm.SentencePieceProcessor(model_proto=m)
        for i in range(sp.get_piece_size()):
            p = sp.id_to_piece(i)
            if p not in vocab and not sp.is_control(i) and not sp.is_unknown(i):
                vocab[p] = len(vocab)
    vocab["<pad>"] = len(vocab)
    return vocab


def encode(sp, vocab, text):
    return [vocab.get(p, 1) for p in sp.encode(text, out_type=str)] + [0]


# ---- the model, in Marian's names -------------------------------------------------------------

def sinusoids(rows, d):
    pos = torch.arange(rows, dtype=torch.float64)[:, None]
    j = torch.arange(d, dtype=torch.float64)[None, :]
    enc = pos / torch.pow(10000.0, 2 * torch.div(j, 2, rounding_mode="floor") / d)
    out = torch.zeros(rows, d, dtype=torch.float64)
    out[:, :(d + 1) // 2] = torch.sin(enc[:, 0::2])
    out[:, (d + 1) // 2:] = torch.cos(enc[:, 1::2])
    return out.float()


class Attention(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (torch.nn.Linear(d, d) for _ in range(4))

    def forward(self, x, memory, mask):
        b, n, d = x.shape
        h, dh = self.heads, d // self.heads
        q = self.q_proj(x).view(b, n, h, dh).transpose(1, 2) * dh ** -0.5
        k = self.k_proj(memory).view(b, -1, h, dh).transpose(1, 2)
        v = self.v_proj(memory).view(b, -1, h, dh).transpose(1, 2)
        s = (q @ k.transpose(-1, -2)).masked_fill(mask, float("-inf"))
        a = torch.softmax(s, -1)
        return self.out_proj((a @ v).transpose(1, 2).reshape(b, n, d))


class Layer(torch.nn.Module):
    def __init__(self, d, heads, ffn, cross):
        super().__init__()
        self.self_attn = Attention(d, heads)
        self.self_attn_layer_norm = torch.nn.LayerNorm(d)
        if cross:
            self.encoder_attn = Attention(d, heads)
            self.encoder_attn_layer_norm = torch.nn.LayerNorm(d)
        self.fc1, self.fc2 = torch.nn.Linear(d, ffn), torch.nn.Linear(ffn, d)
        self.final_layer_norm = torch.nn.LayerNorm(d)

    def forward(self, x, self_mask, memory=None, cross_mask=None, drop=0.1):
        x = self.self_attn_layer_norm(x + F.dropout(self.self_attn(x, x, self_mask), drop, self.training))
        if memory is not None:
            x = self.encoder_attn_layer_norm(
                x + F.dropout(self.encoder_attn(x, memory, cross_mask), drop, self.training))
        h = F.dropout(F.silu(self.fc1(x)), drop, self.training)
        return self.final_layer_norm(x + F.dropout(self.fc2(h), drop, self.training))


class Stack(torch.nn.Module):
    def __init__(self, layers, d, heads, ffn, cross):
        super().__init__()
        self.layers = torch.nn.ModuleList(Layer(d, heads, ffn, cross) for _ in range(layers))


class Marian(torch.nn.Module):
    def __init__(self, vocab, s):
        super().__init__()
        self.d = s["d"]
        self.shared = torch.nn.Embedding(vocab, s["d"])
        torch.nn.init.normal_(self.shared.weight, std=s["d"] ** -0.5)
        self.encoder = Stack(s["encoder_layers"], s["d"], s["heads"], s["ffn"], False)
        self.decoder = Stack(s["decoder_layers"], s["d"], s["heads"], s["ffn"], True)
        self.register_buffer("positions", sinusoids(512, s["d"]), persistent=False)

    def embed(self, ids):
        return self.shared(ids) * math.sqrt(self.d) + self.positions[:ids.shape[1]]

    def forward(self, src, dec_in, pad):
        src_pad = (src == pad)[:, None, None, :]
        x = F.dropout(self.embed(src), 0.1, self.training)
        for layer in self.encoder.layers:
            x = layer(x, src_pad)
        n = dec_in.shape[1]
        causal = torch.ones(n, n, dtype=torch.bool).triu(1)[None, None]
        y = F.dropout(self.embed(dec_in), 0.1, self.training)
        for layer in self.decoder.layers:
            y = layer(y, causal, x, src_pad)
        return y @ self.shared.weight.T


# ---- training ---------------------------------------------------------------------------------

def batches(pairs, max_tokens, rng):
    pairs = sorted(pairs, key=lambda p: (len(p[0]), len(p[1])))
    out, cur, longest = [], [], 0
    for p in pairs:
        longest2 = max(longest, len(p[0]), len(p[1]) + 1)
        if cur and longest2 * (len(cur) + 1) > max_tokens:
            out.append(cur)
            cur, longest2 = [], max(len(p[0]), len(p[1]) + 1)
        cur.append(p)
        longest = longest2
    if cur:
        out.append(cur)
    rng.shuffle(out)
    return out


def tensors(batch, pad, start):
    ns = max(len(s) for s, _ in batch)
    nt = max(len(t) for _, t in batch)
    src = torch.full((len(batch), ns), pad)
    dec_in = torch.full((len(batch), nt), pad)
    labels = torch.full((len(batch), nt), -100)
    for i, (s, t) in enumerate(batch):
        src[i, :len(s)] = torch.tensor(s)
        dec_in[i, :len(t)] = torch.tensor([start] + t[:-1])
        labels[i, :len(t)] = torch.tensor(t)
    return src, dec_in, labels


def save_safetensors(path, named):
    header, blobs, offset = {}, [], 0
    for name, t in named:
        data = t.detach().to(torch.float16).contiguous().numpy().astype("<f2").tobytes()
        header[name] = {"dtype": "F16", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    os.replace(path + ".tmp", path)


def save(model, vocab, out, record):
    named = [("model.shared.weight", model.shared.weight)]
    for stack in ("encoder", "decoder"):
        for name, p in getattr(model, stack).named_parameters():
            named.append((f"model.{stack}.{name}", p))
    named.append(("final_logits_bias", torch.zeros(1, len(vocab))))
    save_safetensors(os.path.join(out, "model.safetensors"), named)
    s = SIZES
    config = {"model_type": "marian", "architectures": ["MarianMTModel"], "d_model": s["d"],
              "encoder_layers": s["encoder_layers"], "decoder_layers": s["decoder_layers"],
              "encoder_attention_heads": s["heads"], "decoder_attention_heads": s["heads"],
              "encoder_ffn_dim": s["ffn"], "decoder_ffn_dim": s["ffn"], "max_position_embeddings": 512,
              "vocab_size": len(vocab), "activation_function": "swish", "scale_embedding": True,
              "static_position_embeddings": True, "share_encoder_decoder_embeddings": True,
              "tie_word_embeddings": True, "pad_token_id": len(vocab) - 1, "eos_token_id": 0,
              "decoder_start_token_id": len(vocab) - 1, "bad_words_ids": [[len(vocab) - 1]],
              "max_length": 256, "num_beams": 1}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(out, "training.json"), "w") as f:
        json.dump(record, f, indent=2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(HERE), "rv-kjv-marian"))
    ap.add_argument("--minutes", type=float, default=50.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-tokens", type=int, default=3000)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    train, held = split_corpus()
    write_heldout(held)
    es_texts = [bible_corpus.plain(es) for _, es, _ in train]
    en_texts = [bible_corpus.plain(en) for _, _, en in train]
    src_model, tgt_model = train_spm(es_texts, SIZES["vocab_each"]), train_spm(en_texts, SIZES["vocab_each"])
    for name, m in (("source.spm", src_model), ("target.spm", tgt_model)):
        with open(os.path.join(a.out, name), "wb") as f:
            f.write(m)
    vocab = shared_vocab(src_model, tgt_model)
    with open(os.path.join(a.out, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=0)
    sp_src, sp_tgt = spm.SentencePieceProcessor(model_proto=src_model), spm.SentencePieceProcessor(model_proto=tgt_model)
    limit = SIZES["max_tokens"]
    pairs = [(encode(sp_src, vocab, s), encode(sp_tgt, vocab, t)) for s, t in zip(es_texts, en_texts)]
    pairs = [(s, t) for s, t in pairs if len(s) <= limit and len(t) <= limit]
    pad = len(vocab) - 1
    model = Marian(len(vocab), SIZES)
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)
    warmup, peak = 1000, 7e-4
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda step: peak * min((step + 1) / warmup, math.sqrt(warmup / (step + 1))))
    print(f"{len(pairs)} training pairs, {len(held)} held out, vocabulary {len(vocab)}, {params} parameters",
          flush=True)
    start, step, epoch, losses = time.time(), 0, 0, []
    record = {"data": "Reina-Valera 1909 (spaRV1909eb) -> King James Version (engKJV2006eb), Debian's "
                      "sword-text-sparv and sword-text-kjv through diatheke",
              "held_out_books": bible_corpus.HELD_OUT, "training_pairs": len(pairs), "held_out_verses": len(held),
              "sizes": SIZES, "parameters": params, "seed": a.seed, "threads": a.threads,
              "torch": torch.__version__, "sentencepiece": spm.__version__,
              "precision": "float32 weights, bfloat16 products (torch.autocast)"}
    done = False
    while not done:
        epoch += 1
        model.train()
        for batch in batches(pairs, a.max_tokens, rng):
            src, dec_in, labels = tensors(batch, pad, pad)
            # bfloat16 products: Debian's torch multiplies float32 with the reference BLAS
            # (about 6 GFLOP/s here), bfloat16 through oneDNN (over 400)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(src, dec_in, pad)
            loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), labels.reshape(-1),
                                   ignore_index=-100, label_smoothing=0.1)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            losses.append(loss.item())
            if step % 100 == 0:
                minutes = (time.time() - start) / 60
                print(f"epoch {epoch} step {step} loss {sum(losses[-100:]) / 100:.3f} {minutes:.1f} min", flush=True)
            if (time.time() - start) / 60 > a.minutes:
                done = True
                break
        record.update(epochs=epoch, steps=step, minutes=round((time.time() - start) / 60, 1),
                      loss_last_100=round(sum(losses[-100:]) / max(1, len(losses[-100:])), 4))
        model.eval()
        save(model, vocab, a.out, record)
        print(f"saved after epoch {epoch} ({step} steps)", flush=True)


if __name__ == "__main__":
    main()
