#!/usr/bin/env python3
"""Tiny encoder-decoder checkpoints (BART, mBART, Marian, T5 / mT5) with random weights, in Hugging Face's
tensor names, shapes and dtypes, and what each must give, computed by an independent forward
pass written here in PyTorch (float64) from the published model definitions (no
`transformers`): the three attentions under teacher forcing, the decoder's last hidden state,
the logits, and the greedy translation of a plain loop that reruns the whole decoder at every
step (no key/value cache).

    /usr/bin/python3 tests/data/make_seq2seq_models.py OUT_DIR [--seed S]

OUT_DIR/<name>/ holds the model folder (config.json, model.safetensors, vocab.json and a
tokenizer.json that reads "t5 t9" as ids 5, 9) and
reference.npz:
  source, target        int64 [ns], [nt]       the ids run (target: the labels; the decoder reads
                                               [decoder_start] + target[:-1])
  encoder, decoder, cross  float64 [Le, He, ns, ns], [Ld, Hd, nt, nt], [Ld, Hd, nt, ns]
  cross_norms, cross_norms_layer  float64 [Ld, Hd, nt, ns], [Ld, nt, ns]: the cross attention's
                           value-weighted norms (Kobayashi et al. 2020; not for T5)
  decoder_hidden        float64 [nt, d]
  logits                float64 [nt, V]
  greedy                int64 [k]              the greedy loop's tokens (forced BOS first, stop
                                               at EOS or max_new)
  max_new               int64 []
The checked-in set (tests/data/seq2seq/, seed 0) is checked always by tests/e2e/test_seq2seq.py;
where torch can be imported the test also makes and checks a fresh set with another seed.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_hf_models import gelu_erf, layer_norm, rand, rounded, save  # noqa: E402

torch.set_grad_enabled(False)

CASES = {
    # BART: post-norm, learned positions at p + 2, layernorm_embedding, GELU, a final_logits_bias,
    # tied lm_head, 4 encoder heads but 2 decoder heads, forced BOS, F32
    "bart_f32": dict(model_type="bart", dtype="F32", d=32, He=4, Hd=2, Le=2, Ld=2, Ie=48, Id=40,
                     V=60, P=32, ns=7, nt=6, act="gelu", scale=False, start=2, eos=2, bos=0,
                     forced=0, pad=1, max_new=8),
    # mBART: pre-norm with each stack's final layer_norm, embeddings scaled by sqrt(d), ReLU,
    # a language code forced first, BF16
    "mbart_bf16": dict(model_type="mbart", dtype="BF16", d=24, He=3, Hd=3, Le=2, Ld=1, Ie=40,
                       Id=32, V=50, P=24, ns=6, nt=5, act="relu", scale=True, start=2, eos=2,
                       bos=0, forced=7, pad=1, max_new=6),
    # Marian: post-norm, sinusoidal positions stored in the file (checked), swish, scaled
    # embeddings, no layernorm_embedding, starts from pad, F16
    "marian_f16": dict(model_type="marian", dtype="F16", d=32, He=4, Hd=4, Le=1, Ld=2, Ie=48,
                       Id=48, V=56, P=40, ns=8, nt=7, act="swish", scale=True, start=55, eos=0,
                       bos=None, forced=None, pad=55, max_new=9, store_positions=True),
    # Marian without its sinusoids in the file (computed), odd width 30 / 3 heads, F32
    "marian_f32_computed": dict(model_type="marian", dtype="F32", d=30, He=3, Hd=3, Le=2, Ld=1,
                                Ie=40, Id=40, V=40, P=20, ns=5, nt=4, act="swish", scale=True,
                                start=39, eos=0, bos=None, forced=None, pad=39, max_new=7,
                                store_positions=False),
    # T5 v1.0: ReLU, the LM head tied (hidden x d^-1/2), 8 relative buckets up to distance 16 so
    # that 20 source tokens reach the logarithmic buckets, F32
    "t5_f32_tied": dict(model_type="t5", dtype="F32", d=32, dkv=8, H=4, Le=2, Ld=2, I=48, V=60,
                        ns=20, nt=12, ff="relu", tied=True, buckets=8, distance=16, start=0,
                        eos=1, forced=None, max_new=8, shards=1),
    # mT5 / T5 v1.1: gated-gelu, an untied lm_head, H·d_kv = 24 != d_model 32, 2 shards, BF16
    "mt5_bf16_gated_sharded": dict(model_type="mt5", dtype="BF16", d=32, dkv=6, H=4, Le=2, Ld=1,
                                   I=40, V=50, ns=14, nt=9, ff="gated-gelu", tied=False,
                                   buckets=10, distance=12, start=0, eos=1, forced=None,
                                   max_new=7, shards=2),
}


def activation(name):
    return {"gelu": gelu_erf, "relu": torch.relu, "swish": lambda x: x * torch.sigmoid(x)}[name]


def sinusoids(rows, d):
    """Marian's table: sines in the first ceil(d/2) columns, cosines after (halves)."""
    pos = torch.arange(rows, dtype=torch.float64)[:, None]
    j = torch.arange(d, dtype=torch.float64)[None, :]
    enc = pos / torch.pow(10000.0, 2 * torch.div(j, 2, rounding_mode="floor") / d)
    out = torch.zeros(rows, d, dtype=torch.float64)
    sentinel = (d + 1) // 2
    out[:, :sentinel] = torch.sin(enc[:, 0::2])
    out[:, sentinel:] = torch.cos(enc[:, 1::2])
    return out


def weights(c, g):
    d, V = c["d"], c["V"]
    marian = c["model_type"] == "marian"
    W = {"model.shared.weight": rand(g, V, d, scale=0.5 if not c["scale"] else 0.5 / math.sqrt(d))}
    for stack, L, I in (("encoder", c["Le"], c["Ie"]), ("decoder", c["Ld"], c["Id"])):
        s = f"model.{stack}."
        if not marian:
            W[s + "embed_positions.weight"] = rand(g, c["P"] + 2, d, scale=0.3)
            W[s + "layernorm_embedding.weight"] = 1 + rand(g, d, scale=0.1)
            W[s + "layernorm_embedding.bias"] = rand(g, d, scale=0.1)
        elif c["store_positions"]:
            W[s + "embed_positions.weight"] = sinusoids(c["P"], d)
        if c["model_type"] == "mbart":
            W[s + "layer_norm.weight"] = 1 + rand(g, d, scale=0.1)
            W[s + "layer_norm.bias"] = rand(g, d, scale=0.1)
        for l in range(L):
            p = f"{s}layers.{l}."
            parts = ["self_attn"] + (["encoder_attn"] if stack == "decoder" else [])
            for a in parts:
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    W[f"{p}{a}.{proj}.weight"] = rand(g, d, d, scale=1.5 / math.sqrt(d))
                    W[f"{p}{a}.{proj}.bias"] = rand(g, d, scale=0.1)
                W[f"{p}{a}_layer_norm.weight"] = 1 + rand(g, d, scale=0.1)
                W[f"{p}{a}_layer_norm.bias"] = rand(g, d, scale=0.1)
            W[p + "fc1.weight"] = rand(g, I, d)
            W[p + "fc1.bias"] = rand(g, I, scale=0.1)
            W[p + "fc2.weight"] = rand(g, d, I)
            W[p + "fc2.bias"] = rand(g, d, scale=0.1)
            W[p + "final_layer_norm.weight"] = 1 + rand(g, d, scale=0.1)
            W[p + "final_layer_norm.bias"] = rand(g, d, scale=0.1)
    W["final_logits_bias"] = rand(g, 1, V, scale=0.5)
    return W


_cross_norms = None  # while the reference forward runs: each cross attention's value norms
_alti = None  # while it runs: each attention sub-layer's ALTI, (stack, map, residual share)
_last = None  # the last attention's weights and value vectors f_h(x_j), while _alti records
_inputs = None  # while the reference forward runs: each decoder layer's input (the logit lens)
_outputs = None  # while it runs: each layer's output, per stack (value zeroing)
_zero = None  # (kind, layer, j): the value vector of key j zeroed in that attention
              # (kind: "encoder" or "decoder" self-attention, or "cross")


def zeroed(v, stack, layer, cross):
    """v [H, nk, dh] with key j's value vector set to 0 when _zero names this attention."""
    if _zero is None or _zero != ("cross" if cross else stack, layer, _zero[2]):
        return v
    v = v.clone()
    v[:, _zero[2], :] = 0.0
    return v


def record_output(stack, x):
    if _outputs is not None:
        _outputs.setdefault(stack, []).append(x)


def attention(x_q, x_kv, R, p, H, mask):
    """BartAttention: q scaled by dh^-0.5; returns (weights [H, nq, nk], output [nq, d]).
    Cross attention also records Kobayashi et al. 2020's value-weighted norms, formed from the
    vectors f_h(x_j) = v_h(x_j) W_O^h one by one: per head a_ij |f_h(x_j)|, per layer
    |sum_h a^h_ij f_h(x_j)|."""
    nq, d = x_q.shape
    nk, dh = x_kv.shape[0], d // H
    q = (x_q @ R[p + "q_proj.weight"].T + R[p + "q_proj.bias"]) * dh ** -0.5
    k = x_kv @ R[p + "k_proj.weight"].T + R[p + "k_proj.bias"]
    v = x_kv @ R[p + "v_proj.weight"].T + R[p + "v_proj.bias"]
    q, k, v = (t.view(-1, H, dh).transpose(0, 1) for t in (q, k, v))
    v = zeroed(v, p.split(".")[1], int(p.split(".")[3]), p.endswith("encoder_attn."))
    s = q @ k.transpose(-1, -2)
    if mask is not None:
        s = s.masked_fill(mask, float("-inf"))
    a = torch.softmax(s, -1)
    out = (a @ v).transpose(0, 1).reshape(nq, d)
    if _alti is not None:
        global _last
        wo = R[p + "out_proj.weight"].T  # [H·dh, d]
        _last = (a, torch.stack([v[h] @ wo[h * dh:(h + 1) * dh] for h in range(H)]))
    if _cross_norms is not None and p.endswith("encoder_attn."):
        wo = R[p + "out_proj.weight"].T  # [H·dh, d]
        f = torch.stack([v[h] @ wo[h * dh:(h + 1) * dh] for h in range(H)])  # [H, nk, d]
        _cross_norms.append((a * f.norm(dim=-1)[:, None, :],
                             torch.einsum("hij,hjd->ijd", a, f).norm(dim=-1)))
    return a, out @ R[p + "out_proj.weight"].T + R[p + "out_proj.bias"]


def alti_of(x, out, w, b, pre, self_attention):
    """ALTI of one attention sub-layer (Ferrando et al. 2022) from the last attention's weights
    and value vectors, each key's vector T_ij = sum_h a^h_ij f_h(x_j) formed one by one: the
    result y_i = x_i + o_i (pre-norm) or LN(x_i + o_i) (post-norm, the norm's divisor s_i fixed
    by the sum, its linear part L(v) = w (v - mean v)); the residual's vector x_i (or L(x_i)/s_i)
    joins key i in a self-attention and stands apart in a cross attention. C_ij = max(0, |y_i|_1
    - |y_i - T_ij|_1); returns the map (rows scaled to 1) and, for a cross attention, the
    residual's share of the whole."""
    a, f = _last
    mix = torch.einsum("hij,hjd->ijd", a, f)  # [nq, nk, d]
    if pre:
        y, t, own = x + out, mix, x
    else:
        z = x + out
        s = torch.sqrt(z.var(-1, unbiased=False, keepdim=True) + 1e-5)  # [nq, 1]
        lin = lambda v: w * (v - v.mean(-1, keepdim=True))  # noqa: E731
        y, t, own = lin(z) / s + b, lin(mix) / s[:, :, None], lin(x) / s
    if self_attention:
        t = t.clone()
        for i in range(x.shape[0]):
            t[i, i] += own[i]
    size = y.abs().sum(-1)
    c = torch.clamp(size[:, None] - (y[:, None, :] - t).abs().sum(-1), min=0.0)
    keys = c.sum(-1)
    # contrib (Kobayashi et al. 2021) from the same vectors: |T_ij|, the residual's |own_i| apart
    # in a cross attention
    norms = t.norm(dim=-1)
    if self_attention:
        return c / keys[:, None], None, norms / norms.sum(-1, keepdim=True), None
    kept = torch.clamp(size - (y - own).abs().sum(-1), min=0.0)
    mine = own.norm(dim=-1)
    return (c / keys[:, None], kept / (keys + kept), norms / norms.sum(-1, keepdim=True),
            mine / (norms.sum(-1) + mine))


def sublayer(x, R, norm, pre, f, alti=None):
    """Post-norm (BART, Marian): LN(x + f(x)); pre-norm (mBART): x + f(LN(x)). `alti`: the
    stack name an attention sub-layer's ALTI is recorded under (while _alti records)."""
    w, b = R[norm + ".weight"], R[norm + ".bias"]
    out, maps = f(layer_norm(x, w, b, 1e-5) if pre else x)
    if alti is not None and _alti is not None:
        _alti.append((alti,) + alti_of(x, out, w, b, pre, alti != "cross"))
    if pre:
        return x + out, maps
    return layer_norm(x + out, w, b, 1e-5), maps


def embed(c, R, ids, stack):
    d, s = c["d"], f"model.{stack}."
    x = R["model.shared.weight"][ids] * (math.sqrt(d) if c["scale"] else 1.0)
    n = len(ids)
    if c["model_type"] == "marian":  # the file's table when it has one (as stored), else computed
        table = R.get(s + "embed_positions.weight", sinusoids(c["P"], d))
        x = x + table[:n]
    else:
        x = x + R[s + "embed_positions.weight"][2:n + 2]
        x = layer_norm(x, R[s + "layernorm_embedding.weight"], R[s + "layernorm_embedding.bias"], 1e-5)
    return x


def run_stack(c, R, x, stack, memory=None):
    pre = c["model_type"] == "mbart"
    act = activation(c["act"])
    H = c["He"] if stack == "encoder" else c["Hd"]
    L = c["Le"] if stack == "encoder" else c["Ld"]
    n = x.shape[0]
    causal = torch.ones(n, n, dtype=torch.bool).triu(1) if stack == "decoder" else None
    selfs, crosses = [], []
    for l in range(L):
        p = f"model.{stack}.layers.{l}."
        if _inputs is not None and stack == "decoder":
            _inputs.append(x)
        x, a = sublayer(x, R, p + "self_attn_layer_norm", pre,
                        lambda h: tuple(reversed(attention(h, h, R, p + "self_attn.", H, causal))),
                        stack)
        selfs.append(a)
        if memory is not None:
            x, a = sublayer(x, R, p + "encoder_attn_layer_norm", pre,
                            lambda h: tuple(reversed(attention(h, memory, R, p + "encoder_attn.", H, None))),
                            "cross")
            crosses.append(a)
        x, _ = sublayer(x, R, p + "final_layer_norm", pre,
                        lambda h: (act(h @ R[p + "fc1.weight"].T + R[p + "fc1.bias"]) @ R[p + "fc2.weight"].T
                                   + R[p + "fc2.bias"], None))
        record_output(stack, x)
    if pre:
        x = layer_norm(x, R[f"model.{stack}.layer_norm.weight"], R[f"model.{stack}.layer_norm.bias"], 1e-5)
    return x, torch.stack(selfs), (torch.stack(crosses) if crosses else None)


def forward(c, R, source, target):
    enc, enc_maps, _ = run_stack(c, R, embed(c, R, source, "encoder"), "encoder")
    dec_in = torch.cat([torch.tensor([c["start"]]), target[:-1]])
    dec, dec_maps, cross = run_stack(c, R, embed(c, R, dec_in, "decoder"), "decoder", memory=enc)
    logits = dec @ R["model.shared.weight"].T + R["final_logits_bias"][0]
    return enc_maps, dec_maps, cross, dec, logits


def alti_plus(recorded, ns, nt):
    """ALTI+ (Ferrando et al. 2022b) from the recorded sub-layers: the encoder's maps rolled out,
    R = C_Le ... C_1; the decoder's composition over [source | decoder inputs] from M_0 = [0 | I],
    through each layer's self-attention (M' = C M) and cross attention (M_i = r_i M'_i +
    (1 - r_i) sum_j C_ij [R_j | 0]). Returns the per-stack maps, the residual shares, M and each
    row's source share."""
    enc = [m for s, m, *_ in recorded if s == "encoder"]
    dec = [m for s, m, *_ in recorded if s == "decoder"]
    cross = [(m, r) for s, m, r, *_ in recorded if s == "cross"]
    rollout = torch.eye(ns, dtype=torch.float64)
    for m in enc:
        rollout = m @ rollout
    m_all = torch.cat([torch.zeros(nt, ns, dtype=torch.float64), torch.eye(nt, dtype=torch.float64)], 1)
    for d, (c, r) in zip(dec, cross):
        m_all = d @ m_all
        source = torch.cat([c @ rollout, torch.zeros(nt, nt, dtype=torch.float64)], 1)
        m_all = r[:, None] * m_all + (1 - r)[:, None] * source
    return (torch.stack(enc), torch.stack(dec), torch.stack([c for c, _ in cross]),
            torch.stack([r for _, r in cross]), m_all, m_all[:, :ns].sum(1))


def decoder_lens(c, R, inputs):
    """The logit lens of the decoder: each layer's input through the decoder's final norm
    (mBART's layer_norm, T5's final_layer_norm; none in BART and Marian) and the output
    embeddings, as the reference forward computes its logits. Returns the top token, its
    probability and the gap between the two largest logits, each [Ld, nt]."""
    tops, probs, gaps = [], [], []
    for x in inputs:
        if is_t5(c):
            h = t5_norm(x, R["decoder.final_layer_norm.weight"])
            head = R["shared.weight"] if c["tied"] else R["lm_head.weight"]
            z = (h * (c["d"] ** -0.5 if c["tied"] else 1.0)) @ head.T
        else:
            h = x
            if c["model_type"] == "mbart":
                h = layer_norm(x, R["model.decoder.layer_norm.weight"], R["model.decoder.layer_norm.bias"], 1e-5)
            z = h @ R["model.shared.weight"].T + R["final_logits_bias"][0]
        p = torch.softmax(z, -1)
        two = torch.topk(z, 2, -1).values
        tops.append(torch.argmax(z, -1))
        probs.append(p.max(-1).values)
        gaps.append(two[:, 0] - two[:, 1])
    return torch.stack(tops), torch.stack(probs), torch.stack(gaps)


def value_zeroing(c, R, source, target, maps):
    """Value zeroing (Mohebbi et al. 2023) in every attention of the reference: the whole
    forward run again once for every layer and key with that key's value vector zeroed, the
    layer's output compared with the plain run's by 1 - cos; keys no head sees 0; rows scaled to
    1. Returns {kind: [L, rows, keys]} for the encoder, decoder and cross attentions."""
    global _outputs, _zero
    run = t5_forward if is_t5(c) else forward
    _outputs = {}
    run(c, R, source, target)
    plain, _outputs = _outputs, None
    out = {}
    for kind, weights in zip(("encoder", "decoder", "cross"), maps):
        stack = "decoder" if kind == "cross" else kind
        layers = []
        for l in range(weights.shape[0]):
            base = plain[stack][l]
            rows, keys = weights.shape[2], weights.shape[3]
            m = torch.zeros(rows, keys, dtype=torch.float64)
            for j in range(keys):
                _zero, _outputs = (kind, l, j), {}
                run(c, R, source, target)
                got, _outputs, _zero = _outputs[stack][l], None, None
                cos = (base * got).sum(-1) / (base.norm(dim=-1) * got.norm(dim=-1))
                m[:, j] = torch.where((weights[l, :, :, j] != 0).any(0), 1.0 - cos, 0.0)
            layers.append(m / m.sum(-1, keepdim=True))
        out[kind] = torch.stack(layers)
    return out


def greedy(c, R, source):
    """The plain loop: the whole decoder again at every step."""
    out = []
    for t in range(c["max_new"]):
        target = torch.tensor(out + [0], dtype=torch.int64)
        *_, logits = (t5_forward if is_t5(c) else forward)(c, R, source, target)
        nxt = c["forced"] if t == 0 and c["forced"] is not None else int(torch.argmax(logits[t]))
        out.append(nxt)
        if nxt == c["eos"]:
            break
    return out


# T5 ------------------------------------------------------------------------------------------

def t5_weights(c, g):
    d, inner, V, I = c["d"], c["dkv"] * c["H"], c["V"], c["I"]
    W = {"shared.weight": rand(g, V, d, scale=1.0)}
    for stack, L in (("encoder", c["Le"]), ("decoder", c["Ld"])):
        for l in range(L):
            p = f"{stack}.block.{l}."
            parts = [("layer.0.", "SelfAttention")] + ([("layer.1.", "EncDecAttention")] if stack == "decoder" else [])
            for at, name in parts:
                for proj in "qkv":
                    W[f"{p}{at}{name}.{proj}.weight"] = rand(g, inner, d, scale=1.0 / math.sqrt(d))
                W[f"{p}{at}{name}.o.weight"] = rand(g, d, inner, scale=1.0 / math.sqrt(inner))
                W[f"{p}{at}layer_norm.weight"] = 1 + rand(g, d, scale=0.1)
                if l == 0 and name == "SelfAttention":
                    W[f"{p}{at}{name}.relative_attention_bias.weight"] = rand(g, c["buckets"], c["H"], scale=1.0)
            ff = p + ("layer.2." if stack == "decoder" else "layer.1.")
            if c["ff"].startswith("gated"):
                W[ff + "DenseReluDense.wi_0.weight"] = rand(g, I, d)
                W[ff + "DenseReluDense.wi_1.weight"] = rand(g, I, d)
            else:
                W[ff + "DenseReluDense.wi.weight"] = rand(g, I, d)
            W[ff + "DenseReluDense.wo.weight"] = rand(g, d, I)
            W[ff + "layer_norm.weight"] = 1 + rand(g, d, scale=0.1)
        W[f"{stack}.final_layer_norm.weight"] = 1 + rand(g, d, scale=0.1)
    if not c["tied"]:
        W["lm_head.weight"] = rand(g, V, d)
    return W


def t5_bucket(rel, bidirectional, num_buckets, max_distance):
    """Hugging Face's _relative_position_bucket, its float32 arithmetic included."""
    ret = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        ret += (rel > 0).to(torch.long) * num_buckets
        rel = torch.abs(rel)
    else:
        rel = -torch.min(rel, torch.zeros_like(rel))
    max_exact = num_buckets // 2
    is_small = rel < max_exact
    large = max_exact + (torch.log(rel.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return ret + torch.where(is_small, rel, large)


def t5_norm(x, w):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w


def t5_attention(x_q, x_kv, R, p, c, bias):
    H, dkv = c["H"], c["dkv"]
    q, k, v = (t @ R[p + n + ".weight"].T for t, n in ((x_q, "q"), (x_kv, "k"), (x_kv, "v")))
    q, k, v = (t.view(-1, H, dkv).transpose(0, 1) for t in (q, k, v))
    v = zeroed(v, p.split(".")[0], int(p.split(".")[2]), "EncDecAttention" in p)
    s = q @ k.transpose(-1, -2)  # no 1/sqrt(d_kv)
    if bias is not None:
        s = s + bias
    a = torch.softmax(s, -1)
    out = (a @ v).transpose(0, 1).reshape(x_q.shape[0], H * dkv)
    if _alti is not None:
        global _last
        wo = R[p + "o.weight"].T  # [H·d_kv, d]
        _last = (a, torch.stack([v[h] @ wo[h * dkv:(h + 1) * dkv] for h in range(H)]))
    return a, out @ R[p + "o.weight"].T


def t5_record(stack, x, out):
    """ALTI of a T5 attention sub-layer (pre-norm: y = x + o), while _alti records."""
    if _alti is not None:
        _alti.append((stack,) + alti_of(x, out, None, None, True, stack != "cross"))


def t5_stack(c, R, x, stack, memory=None):
    n = x.shape[0]
    decoder = stack == "decoder"
    rel = torch.arange(n)[None, :] - torch.arange(n)[:, None]  # key - query
    buckets = t5_bucket(rel, not decoder, c["buckets"], c["distance"])
    bias = R[f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"][buckets].permute(2, 0, 1)
    if decoder:
        bias = bias.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    act = torch.relu if c["ff"] == "relu" else \
        (lambda t: 0.5 * t * (1 + torch.tanh(math.sqrt(2 / math.pi) * (t + 0.044715 * t ** 3))))
    selfs, crosses = [], []
    for l in range(c["Le"] if not decoder else c["Ld"]):
        p = f"{stack}.block.{l}."
        if _inputs is not None and decoder:
            _inputs.append(x)
        a, out = t5_attention(h := t5_norm(x, R[p + "layer.0.layer_norm.weight"]), h, R,
                              p + "layer.0.SelfAttention.", c, bias)
        selfs.append(a)
        t5_record(stack, x, out)
        x = x + out
        if decoder:
            h = t5_norm(x, R[p + "layer.1.layer_norm.weight"])
            a, out = t5_attention(h, memory, R, p + "layer.1.EncDecAttention.", c, None)
            crosses.append(a)
            t5_record("cross", x, out)
            x = x + out
        ff = p + ("layer.2." if decoder else "layer.1.")
        h = t5_norm(x, R[ff + "layer_norm.weight"])
        if c["ff"].startswith("gated"):
            mid = act(h @ R[ff + "DenseReluDense.wi_0.weight"].T) * (h @ R[ff + "DenseReluDense.wi_1.weight"].T)
        else:
            mid = act(h @ R[ff + "DenseReluDense.wi.weight"].T)
        x = x + mid @ R[ff + "DenseReluDense.wo.weight"].T
        record_output(stack, x)
    x = t5_norm(x, R[f"{stack}.final_layer_norm.weight"])
    return x, torch.stack(selfs), (torch.stack(crosses) if crosses else None)


def t5_forward(c, R, source, target):
    enc, enc_maps, _ = t5_stack(c, R, R["shared.weight"][source], "encoder")
    dec_in = torch.cat([torch.tensor([c["start"]]), target[:-1]])
    dec, dec_maps, cross = t5_stack(c, R, R["shared.weight"][dec_in], "decoder", memory=enc)
    head = R["shared.weight"] if c["tied"] else R["lm_head.weight"]
    logits = (dec * (c["d"] ** -0.5 if c["tied"] else 1.0)) @ head.T
    return enc_maps, dec_maps, cross, dec, logits


def t5_config(c):
    return {"model_type": c["model_type"], "d_model": c["d"], "d_kv": c["dkv"], "d_ff": c["I"],
            "num_layers": c["Le"], "num_decoder_layers": c["Ld"], "num_heads": c["H"],
            "relative_attention_num_buckets": c["buckets"],
            "relative_attention_max_distance": c["distance"], "layer_norm_epsilon": 1e-6,
            "feed_forward_proj": c["ff"], "tie_word_embeddings": c["tied"], "vocab_size": c["V"],
            "decoder_start_token_id": c["start"], "eos_token_id": c["eos"], "pad_token_id": 0}


def is_t5(c):
    return c["model_type"] in ("t5", "mt5")


def config(c):
    cfg = {"model_type": c["model_type"], "d_model": c["d"], "encoder_layers": c["Le"],
           "decoder_layers": c["Ld"], "encoder_attention_heads": c["He"],
           "decoder_attention_heads": c["Hd"], "encoder_ffn_dim": c["Ie"], "decoder_ffn_dim": c["Id"],
           "max_position_embeddings": c["P"], "vocab_size": c["V"], "activation_function": c["act"],
           "scale_embedding": c["scale"], "decoder_start_token_id": c["start"], "eos_token_id": c["eos"],
           "pad_token_id": c["pad"], "tie_word_embeddings": True}
    if c["bos"] is not None:
        cfg["bos_token_id"] = c["bos"]
    if c["forced"] is not None:
        cfg["forced_bos_token_id"] = c["forced"]
    if c["model_type"] == "marian":
        cfg["share_encoder_decoder_embeddings"] = True
    return cfg


def make(out_dir, seed):
    for i, (name, c) in enumerate(CASES.items()):
        g = torch.Generator().manual_seed(seed * 1000 + 500 + i)
        folder = os.path.join(out_dir, name)
        W = t5_weights(c, g) if is_t5(c) else weights(c, g)
        save(folder, list(W.items()), c["dtype"], c.get("shards", 1))
        R = {k: rounded(v, c["dtype"]) for k, v in W.items()}
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(t5_config(c) if is_t5(c) else config(c), f, indent=2)
        with open(os.path.join(folder, "vocab.json"), "w") as f:
            json.dump({f"t{i}": i for i in range(c["V"])}, f)
        with open(os.path.join(folder, "tokenizer.json"), "w") as f:  # "t5 t9" -> 5, 9
            json.dump({"model": {"type": "WordPiece", "vocab": {f"t{i}": i for i in range(c["V"])},
                                 "unk_token": "t1", "continuing_subword_prefix": "##",
                                 "max_input_chars_per_word": 100},
                       "pre_tokenizer": {"type": "WhitespaceSplit"}}, f)
        source = torch.randint(3, c["V"], (c["ns"],), generator=g)
        target = torch.randint(3, c["V"], (c["nt"],), generator=g)
        global _cross_norms, _alti, _inputs
        _cross_norms, _alti, _inputs = [], [], []
        enc, dec, cross, hidden, logits = (t5_forward if is_t5(c) else forward)(c, R, source, target)
        recorded, _cross_norms = _cross_norms, None
        sublayers, _alti = _alti, None
        inputs, _inputs = _inputs, None
        lens_top, lens_prob, lens_gap = decoder_lens(c, R, inputs)
        extra = {"lens_top": lens_top.numpy().astype(np.int64), "lens_prob": lens_prob.numpy(),
                 "lens_gap": lens_gap.numpy()}
        if recorded:
            extra.update({"cross_norms": torch.stack([h for h, _ in recorded]).numpy(),
                          "cross_norms_layer": torch.stack([l for _, l in recorded]).numpy()})
        if sublayers:
            names = ("alti_encoder", "alti_decoder", "alti_cross", "alti_cross_residual",
                     "alti_plus", "source_share")
            extra.update({k: v.numpy() for k, v in
                          zip(names, alti_plus(sublayers, len(source), len(target)))})
            for stack in ("encoder", "decoder", "cross"):
                extra["contrib_" + stack] = torch.stack(
                    [c for s, _, _, c, _ in sublayers if s == stack]).numpy()
            extra["contrib_cross_residual"] = torch.stack(
                [r for s, _, _, _, r in sublayers if s == "cross"]).numpy()
        for kind, m in value_zeroing(c, R, source, target, (enc, dec, cross)).items():
            extra["value_zeroing_" + kind] = m.numpy()
        np.savez(os.path.join(folder, "reference.npz"), source=source.numpy().astype(np.int64),
                 target=target.numpy().astype(np.int64), encoder=enc.numpy(), decoder=dec.numpy(),
                 cross=cross.numpy(), decoder_hidden=hidden.numpy(), logits=logits.numpy(),
                 greedy=np.array(greedy(c, R, source), dtype=np.int64), max_new=np.int64(c["max_new"]),
                 **extra)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    make(a.out_dir, a.seed)
