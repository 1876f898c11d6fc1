#!/usr/bin/env python3
"""Trains attn-viz's bundled translation models: small Marian-layout translators (Hugging Face's
MarianMTModel names: post-norm encoder and decoder, sinusoidal positions, swish, scaled and shared
embeddings) in both directions, Spanish -> English (samples/rv-kjv-marian) and English -> Spanish
(samples/kjv-rv-marian), so that attn-viz shows the cross attention of models that have really
learnt to translate, aligns words with them (attn-viz align) and scores them against the
translators' own word alignment (bible_corpus.py: Strong's numbers). Data: Debian's
sword-text-sparv (Reina-Valera 1909) and sword-text-kjv (King James Version), read with diatheke;
every book but the held-out ones (bible_corpus.HELD_OUT), whose verses and gold alignments are
written next to this script.

Guided alignment (Garg et al. 2019, "Jointly Learning to Align and Translate with Transformer
Models"): one cross-attention head (--guide LAYER:HEAD) is also trained towards the word links of
the IBM Model 2 baseline in the box (ibm_model2.py, both directions trained on the training
verses only, joined by --guide-links), spread evenly over each linked source word's pieces: the
loss adds --guide-weight times the cross-entropy between those links and the head's weights, at
the decoder step that predicts each target piece (attn-viz align's default reading); a target
word without a link is guided to the source's </s> (--guide-null eos), the head's way of leaving
it unaligned, which `attn-viz align --extract threshold` reads. Nothing of the held-out verses,
nor of their gold, enters training. --guide none trains the plain model.

    apt-get install sword-text-sparv sword-text-kjv diatheke python3-torch python3-sentencepiece
    /usr/bin/python3 samples/translation/train_translation_model.py --direction es-en [--minutes 60]
    /usr/bin/python3 samples/translation/train_translation_model.py --direction en-es [--minutes 60]

Writes OUT (default samples/rv-kjv-marian or samples/kjv-rv-marian): config.json,
model.safetensors (F16), source.spm and target.spm (SentencePiece Unigram vocabularies trained
here), vocab.json (both mapped to one id space, as Marian folders are), training.json (what was
done, the losses, the time), alignment.json (the guided head: attn-viz align's default layers and
heads); and samples/translation/heldout.{es,en,keys} (one verse a line) and heldout.gold
(Pharaoh: i-j sure, i?j possible; i a Spanish word, j an English one, counted from 0 over
whitespace words). Resumable: the state (weights, optimizer, schedule, the random generators and
the place in the epoch) is saved to --checkpoint every 200 steps and each epoch's end, and
--resume goes on from it; deterministic given the seed and the thread count, up to the time
budget's cut (--steps cuts at a step count instead).
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
# direction: (source side, target side, default folder under samples/); sides index a corpus
# triple (key, spanish markup, english markup)
DIRECTIONS = {"es-en": (1, 2, "rv-kjv-marian"), "en-es": (2, 1, "kjv-rv-marian")}
MARK = "\u2581"


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
        self.keep_head = None  # the head whose scores the guided-alignment loss reads
        self.kept = None

    def forward(self, x, memory, mask):
        b, n, d = x.shape
        h, dh = self.heads, d // self.heads
        q = self.q_proj(x).view(b, n, h, dh).transpose(1, 2) * dh ** -0.5
        k = self.k_proj(memory).view(b, -1, h, dh).transpose(1, 2)
        v = self.v_proj(memory).view(b, -1, h, dh).transpose(1, 2)
        s = (q @ k.transpose(-1, -2)).masked_fill(mask, float("-inf"))
        if self.keep_head is not None:
            self.kept = s[:, self.keep_head]
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
    """Padded source, decoder input, labels and the guided head's target weights: per target
    position, an even spread over the source pieces of the words IBM Model 2 linked to its word
    (a row of zeros where there is none)."""
    ns = max(len(p["src"]) for p in batch)
    nt = max(len(p["tgt"]) for p in batch)
    src = torch.full((len(batch), ns), pad)
    dec_in = torch.full((len(batch), nt), pad)
    labels = torch.full((len(batch), nt), -100)
    guide = torch.zeros(len(batch), nt, ns)
    for i, p in enumerate(batch):
        s, t = p["src"], p["tgt"]
        src[i, :len(s)] = torch.tensor(s)
        dec_in[i, :len(t)] = torch.tensor([start] + t[:-1])
        labels[i, :len(t)] = torch.tensor(t)
        for row, cols in p["guide"]:
            guide[i, row, cols] = 1.0 / len(cols)
    return src, dec_in, labels, guide


# ---- guided alignment: IBM Model 2's links, on pieces -----------------------------------------

def ibm2_links(train, which):
    """Per training pair, IBM Model 2's links (spanish word, english word) joined by `which`."""
    import ibm_model2
    pairs = [(bible_corpus.plain(es).split(), bible_corpus.plain(en).split()) for _, es, en in train]
    al = ibm_model2.align(pairs)
    if which.startswith("posterior"):
        return ibm_model2.posterior_links(al.products, float(which.split(":")[1]))
    join = {"grow-diag-final-and": lambda f, r, g: g, "intersect": lambda f, r, g: f & r,
            "union": lambda f, r, g: f | r, "forward": lambda f, r, g: f, "reverse": lambda f, r, g: r}[which]
    return [join(f, r, g) for f, r, g in zip(al.forward, al.reverse, al.joined)]


def piece_words(pieces, words):
    """The whitespace word of each piece (a piece opening with ▁ starts one); None if the pieces
    do not make `words` words."""
    out, w = [], -1
    for p in pieces:
        if p.startswith(MARK) or w < 0:
            w += 1
        out.append(w)
    return out if w + 1 == words else None


def guide_rows(src_pieces, tgt_pieces, links, n_src, n_tgt, null_to_eos):
    """[(target piece t, [source pieces])]: each target piece to the pieces of the source words
    IBM Model 2 linked to its word; with null_to_eos, a piece whose word has no link, and the
    target's </s>, to the source's </s> (the position after its pieces), so that the head learns
    to leave such words unaligned (align --extract threshold reads nothing above it on a word)."""
    sw, tw = piece_words(src_pieces, n_src), piece_words(tgt_pieces, n_tgt)
    if sw is None or tw is None:
        return []
    linked = {}
    for i, j in links:
        linked.setdefault(j, set()).add(i)
    eos = [len(src_pieces)]
    rows = []
    for t, j in enumerate(tw):
        cols = [k for k, i in enumerate(sw) if i in linked.get(j, ())]
        if cols or null_to_eos:
            rows.append((t, cols or eos))
    if null_to_eos:
        rows.append((len(tgt_pieces), eos))
    return rows


def guided_loss(model, guide):
    """Cross-entropy between the guided head's weights and the guide's rows, per linked row."""
    scores = next(l.encoder_attn for l in model.decoder.layers if l.encoder_attn.keep_head is not None).kept
    logp = torch.log_softmax(scores.float(), -1).masked_fill(guide == 0, 0.0)
    rows = (guide.sum(-1) > 0).sum().clamp(min=1)
    return -(guide * logp).sum() / rows


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


def prepare(a, out):
    """Vocabularies (written to out), the training pairs as ids with their guide rows, the
    vocabulary and the number held out."""
    src_side, tgt_side, _ = DIRECTIONS[a.direction]
    train, held = split_corpus()
    write_heldout(held)
    if a.hold_dev:
        train, _ = bible_corpus.dev_split(train)
    src_texts = [bible_corpus.plain(v[src_side]) for v in train]
    tgt_texts = [bible_corpus.plain(v[tgt_side]) for v in train]
    src_model, tgt_model = train_spm(src_texts, SIZES["vocab_each"]), train_spm(tgt_texts, SIZES["vocab_each"])
    for name, m in (("source.spm", src_model), ("target.spm", tgt_model)):
        with open(os.path.join(out, name), "wb") as f:
            f.write(m)
    vocab = shared_vocab(src_model, tgt_model)
    with open(os.path.join(out, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=0)
    links = ibm2_links(train, a.guide_links) if a.guide != "none" else [set()] * len(train)
    if a.direction == "en-es":
        links = [{(j, i) for i, j in l} for l in links]
    sp_src, sp_tgt = spm.SentencePieceProcessor(model_proto=src_model), spm.SentencePieceProcessor(model_proto=tgt_model)
    pairs = []
    for s, t, l in zip(src_texts, tgt_texts, links):
        sp, tp = sp_src.encode(s, out_type=str), sp_tgt.encode(t, out_type=str)
        if len(sp) + 1 <= SIZES["max_tokens"] and len(tp) + 1 <= SIZES["max_tokens"]:
            pairs.append({"src": [vocab.get(p, 1) for p in sp] + [0], "tgt": [vocab.get(p, 1) for p in tp] + [0],
                          "guide": guide_rows(sp, tp, l, len(s.split()), len(t.split()),
                                              a.guide_null == "eos")})
    return pairs, vocab, len(held)


def checkpoint(path, model, opt, sched, state):
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                "torch_rng": torch.get_rng_state(), **state}, path + ".tmp")
    os.replace(path + ".tmp", path)


def train_steps(a, model, opt, sched, pairs, pad, state, record, out, vocab):
    """Epochs until --steps or --minutes; the state saved every 200 steps and each epoch's end."""
    start = time.time() - state["seconds"]
    while True:
        if state["in_epoch"] == 0:
            state["rng"] = random.Random(a.seed + state["epoch"]).getstate()
        rng = random.Random()
        rng.setstate(state["rng"])
        epoch_batches = batches([(p["src"], p["tgt"], k) for k, p in enumerate(pairs)], a.max_tokens, rng)
        model.train()
        for batch in epoch_batches[state["in_epoch"]:]:
            src, dec_in, labels, guide = tensors([pairs[k] for _, _, k in batch], pad, pad)
            # bfloat16 products: Debian's torch multiplies float32 with the reference BLAS
            # (about 6 GFLOP/s here), bfloat16 through oneDNN (over 400)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(src, dec_in, pad)
            loss = F.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), labels.reshape(-1),
                                   ignore_index=-100, label_smoothing=0.1)
            align = guided_loss(model, guide) if a.guide != "none" else torch.zeros(())
            opt.zero_grad()
            (loss + a.guide_weight * align).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            state["step"] += 1
            state["in_epoch"] += 1
            state["losses"].append(loss.item())
            state["align_losses"].append(align.item())
            state["seconds"] = time.time() - start
            if state["step"] % 100 == 0:
                print(f"epoch {state['epoch'] + 1} step {state['step']} loss {sum(state['losses'][-100:]) / 100:.3f} "
                      f"align {sum(state['align_losses'][-100:]) / 100:.3f} {state['seconds'] / 60:.1f} min", flush=True)
            if state["step"] % 200 == 0:
                checkpoint(a.checkpoint, model, opt, sched, state)
            if state["step"] >= a.steps or state["seconds"] / 60 > a.minutes:
                return
        state["epoch"] += 1
        state["in_epoch"] = 0
        finish(a, model, opt, sched, state, record, out, vocab)


def finish(a, model, opt, sched, state, record, out, vocab):
    """The model as the tool reads it, and the state to go on from."""
    last = state["losses"][-100:]
    record.update(epochs_done=state["epoch"], steps_into_next_epoch=state["in_epoch"], steps=state["step"],
                  minutes=round(state["seconds"] / 60, 1), loss_last_100=round(sum(last) / max(1, len(last)), 4),
                  align_loss_last_100=round(sum(state["align_losses"][-100:]) / max(1, len(last)), 4))
    model.eval()
    save(model, vocab, out, record)
    if a.guide != "none":
        layer, head = a.guide.split(":")
        with open(os.path.join(out, "alignment.json"), "w") as f:
            json.dump({"layers": layer, "heads": head,
                       "why": "the cross-attention head trained towards IBM Model 2's links "
                              f"({a.guide_links}; Garg et al. 2019)"}, f, indent=2)
    checkpoint(a.checkpoint, model, opt, sched, state)
    print(f"saved after {state['step']} steps (epoch {state['epoch'] + 1}, batch {state['in_epoch']})", flush=True)


def guide_links(text):
    if text in ("grow-diag-final-and", "intersect", "union", "forward", "reverse"):
        return text
    name, _, value = text.partition(":")
    try:
        if name == "posterior" and 0.0 <= float(value) < 1.0:
            return text
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r}: expected grow-diag-final-and, intersect, union, "
                                     "forward, reverse or posterior:T (0 <= T < 1)")


def model_size(text):
    """--size's "d=256,encoder_layers=4,…": the model's shape keys changed from SIZES."""
    keys = ("d", "heads", "encoder_layers", "decoder_layers", "ffn")
    out = {}
    for item in text.split(","):
        key, _, value = item.partition("=")
        if key.strip() not in keys or not value.strip().isdigit() or int(value) < 1:
            raise argparse.ArgumentTypeError(f"{item!r}: expected KEY=N with KEY one of {', '.join(keys)}")
        out[key.strip()] = int(value)
    if out.get("d", SIZES["d"]) % out.get("heads", SIZES["heads"]):
        raise argparse.ArgumentTypeError(f"{text!r}: d must be a multiple of heads")
    return out


def arguments():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--direction", choices=sorted(DIRECTIONS), default="es-en")
    ap.add_argument("--out", help="the model folder [default: samples/rv-kjv-marian or samples/kjv-rv-marian]")
    ap.add_argument("--minutes", type=float, default=60.0, help="stop after this much training (all sessions)")
    ap.add_argument("--steps", type=int, default=10 ** 9, help="stop after this many steps (all sessions)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-tokens", type=int, default=3000)
    ap.add_argument("--size", type=model_size, default={},
                    help="the model's shape where it differs from the shipped one, e.g. "
                         "d=256,encoder_layers=4,decoder_layers=4,ffn=1024 (keys: d, heads, "
                         "encoder_layers, decoder_layers, ffn)")
    ap.add_argument("--guide", default="1:0", help="LAYER:HEAD of the guided cross-attention head, or none")
    ap.add_argument("--guide-links", default="intersect", type=guide_links,
                    help="grow-diag-final-and, intersect, union, forward, reverse, or posterior:T "
                         "(the links whose two directions' posteriors multiplied pass T)")
    ap.add_argument("--guide-weight", type=float, default=1.0)
    ap.add_argument("--guide-null", choices=["eos", "none"], default="eos",
                    help="eos: words without a link (and </s>) guided to the source's </s>")
    ap.add_argument("--hold-dev", action="store_true",
                    help="leave the dev verses (every hundredth of the training books: "
                         "evaluate_translation.py --dev) out of training, for choosing a size or a recipe")
    ap.add_argument("--checkpoint", help="the training state [default: /tmp/attn-viz-train-DIRECTION.pt]")
    ap.add_argument("--resume", action="store_true", help="go on from --checkpoint")
    a = ap.parse_args()
    a.out = a.out or os.path.join(os.path.dirname(HERE), DIRECTIONS[a.direction][2])
    a.checkpoint = a.checkpoint or f"/tmp/attn-viz-train-{a.direction}.pt"
    if a.guide != "none":
        layer, head = (int(x) for x in a.guide.split(":"))
        shape = {**SIZES, **a.size}
        if layer >= shape["decoder_layers"] or head >= shape["heads"]:
            ap.error(f"--guide {a.guide}: the model has {shape['decoder_layers']} decoder layers "
                     f"of {shape['heads']} heads")
    return a


def main():
    a = arguments()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    SIZES.update(a.size)  # one shape for the whole run: the model, its config.json and record
    os.makedirs(a.out, exist_ok=True)
    pairs, vocab, held = prepare(a, a.out)
    pad = len(vocab) - 1
    model = Marian(len(vocab), SIZES)
    if a.guide != "none":
        layer, head = (int(x) for x in a.guide.split(":"))
        model.decoder.layers[layer].encoder_attn.keep_head = head
    params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9, weight_decay=0.01)
    warmup, peak = 1000, 7e-4
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda step: peak * min((step + 1) / warmup, math.sqrt(warmup / (step + 1))))
    state = {"step": 0, "epoch": 0, "in_epoch": 0, "seconds": 0.0, "losses": [], "align_losses": []}
    if a.resume:
        saved = torch.load(a.checkpoint)
        model.load_state_dict(saved.pop("model"))
        opt.load_state_dict(saved.pop("opt"))
        sched.load_state_dict(saved.pop("sched"))
        torch.set_rng_state(saved.pop("torch_rng"))
        state = saved
    # which guide links taught which steps: a run resumed with other --guide-links opens a phase
    # (a state saved before phases were kept was taught by the default, intersect)
    phases = state.setdefault("phases", [{"from_step": 0, "guide_links": "intersect"}]
                              if state["step"] else [])
    if not phases or phases[-1]["guide_links"] != a.guide_links:
        phases.append({"from_step": state["step"], "guide_links": a.guide_links})
    guided = sum(1 for p in pairs if p["guide"])
    print(f"{a.direction}: {len(pairs)} training pairs ({guided} with guide links), {held} held out, "
          f"vocabulary {len(vocab)}, {params} parameters; from step {state['step']}", flush=True)
    record = {"data": "Reina-Valera 1909 (spaRV1909eb) and King James Version (engKJV2006eb), Debian's "
                      "sword-text-sparv and sword-text-kjv through diatheke",
              "direction": a.direction, "held_out_books": bible_corpus.HELD_OUT, "training_pairs": len(pairs),
              "dev_verses_held": a.hold_dev,
              "held_out_verses": held, "sizes": SIZES, "parameters": params, "seed": a.seed,
              "threads": a.threads, "max_tokens": a.max_tokens, "guide": a.guide, "guide_links": a.guide_links,
              "guide_weight": a.guide_weight, "guide_null": a.guide_null, "pairs_with_guide_links": guided,
              "guide_phases": state["phases"],
              "torch": torch.__version__, "sentencepiece": spm.__version__,
              "precision": "float32 weights, bfloat16 products (torch.autocast)"}
    train_steps(a, model, opt, sched, pairs, pad, state, record, a.out, vocab)
    finish(a, model, opt, sched, state, record, a.out, vocab)


if __name__ == "__main__":
    main()
