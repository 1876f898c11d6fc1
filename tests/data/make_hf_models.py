#!/usr/bin/env python3
"""Tiny Hugging Face checkpoints with random weights, in exactly the tensor names, shapes, file
layouts and dtypes Hugging Face saves, and the attention each must give, computed by an
independent forward pass written here in PyTorch (float64) from the published model definitions
(Debian's PyTorch 1.13 has neither `transformers` nor `safetensors`: the files are written byte
by byte in the safetensors format).

  /usr/bin/python3 tests/data/make_hf_models.py OUT_DIR [--seed S]

For each case OUT_DIR/<name>/ holds a model folder (config.json, model.safetensors or
model.safetensors.index.json + shards, a vocabulary file) and reference.npz with:
  ids        int64 [n]          the token ids run
  attention  float64 [L, H, n, n]  every layer's every head's weights (row = query)
  hidden     float64 [n, d]     the last hidden state (after the final norm for GPT-2 / Llama)
  top_row    int64 []           the row the predictions read (last token; BERT: the [MASK])
  top_probs  float64 [V]        the predicted distribution from that row
  causal models also:
  greedy            int64 [10]   the greedy continuation of ids (no cache: the whole sequence
                                 rerun per token, the last row's argmax appended)
  greedy_attention  float64 [L, H, n + 10, n + 10]  the maps over ids + greedy
  greedy_gap        float64 []   the smallest gap between a step's two largest logits
  the families whose forward records them (GPT-2, BERT, Llama/Mistral/Qwen2, Phi-3, Gemma,
  GPT-NeoX, OPT) also:
  norms        float64 [L, H, n, n]  Kobayashi et al. 2020's a^h_ij |f_h(x_j)|
  norms_layer  float64 [L, n, n]     |sum_h a^h_ij f_h(x_j)|   (f_h(x_j) = v_h(x_j) W_O^h)
  contrib      float64 [L, n, n]     Kobayashi et al. 2021's |T_ij| through the residual and
                                     the sublayer's norm, each row scaled to sum to 1
  alti         float64 [L, n, n]     Ferrando et al. 2022's max(0, |y_i|_1 - |y_i - T_ij|_1),
                                     each row scaled to sum to 1
  the causal families whose forward records its layers' inputs (GPT-2, Llama/Mistral/Qwen2):
  lens_ids     int64 [L + 1, n]    the logit lens' top token: row l < L layer l's input through
                                   the final norm and the output embeddings, row L the output
  lens_probs   float64 [L + 1, n]  its softmax probability
  lens_gap     float64 [L + 1, n]  the gap between the two largest logits (a near tie is skipped)
  lens_rank_lo, lens_rank_hi  int64 [L + 1, n]  the rank of the output's top token: the logits
                                   above it by more than 1e-4, and by more than -1e-4

The checked-in set (tests/data/hf/, seed 0) is what tests/e2e/test_model.py checks always; where
torch can be imported the test also makes a fresh set with another seed and checks that.
"""
import argparse
import json
import math
import os
import struct

import numpy as np
import torch

torch.set_grad_enabled(False)

CASES = {
    # GPT-2: Conv1D weights [in, out], the transformer. prefix and an lm_head (GPT2LMHeadModel)
    "gpt2_f32": dict(family="gpt2", dtype="F32", prefix="transformer.", shards=1, n=9,
                     d=32, H=4, L=2, V=96, P=40),
    # GPT-2 as GPT2Model saves it: no prefix, F16, two shards with an index
    "gpt2_f16_sharded": dict(family="gpt2", dtype="F16", prefix="", shards=2, n=12,
                             d=48, H=6, L=3, V=80, P=32),
    # BERT with the bert. prefix and the masked-LM head (BertForMaskedLM), new LayerNorm names
    "bert_f32": dict(family="bert", dtype="F32", prefix="bert.", shards=1, n=8,
                     d=32, H=4, L=2, V=64, P=24, I=64, old_ln=False),
    # BERT as old files save it: gamma / beta LayerNorm names, no prefix, BF16
    "bert_bf16_gamma": dict(family="bert", dtype="BF16", prefix="", shards=1, n=7,
                            d=24, H=3, L=2, V=50, P=16, I=40, old_ln=True),
    # Llama with grouped-query attention (4 query heads, 2 KV heads), an untied lm_head, BF16
    "llama_bf16_gqa": dict(family="llama", model_type="llama", dtype="BF16", shards=1, n=10,
                           d=32, H=4, KV=2, dh=None, L=2, V=70, P=64, I=48, theta=10000.0,
                           tie=False, bias=False, window=None),
    # Qwen2: q/k/v biases, tied embeddings, rope_theta 1e6, F32, sharded
    "qwen2_f32_bias": dict(family="llama", model_type="qwen2", dtype="F32", shards=2, n=8,
                           d=32, H=4, KV=1, dh=None, L=2, V=60, P=64, I=40, theta=1e6,
                           tie=True, bias=True, window=None),
    # Mistral: head_dim given (16 × 4 heads = 64 ≠ d 32) and a sliding window of 4 keys, F16
    "mistral_f16_window": dict(family="llama", model_type="mistral", dtype="F16", shards=1,
                               n=11, d=32, H=4, KV=2, dh=16, L=2, V=64, P=64, I=48,
                               theta=10000.0, tie=False, bias=False, window=4),
    # Llama 3.1/3.2's RoPE scaling (rope_type llama3), with a short original context so that
    # head_dim 16's wavelengths fall in all three bands (kept, mixed, divided), tied, F32
    "llama3_rope_scaled": dict(family="llama", model_type="llama", dtype="F32", shards=1, n=40,
                               d=32, H=2, KV=1, dh=16, L=2, V=50, P=128, I=40, theta=10000.0,
                               tie=True, bias=False, window=None,
                               scaling={"rope_type": "llama3", "factor": 8.0,
                                        "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                        "original_max_position_embeddings": 160}),
}

CASES.update({
    # Pythia (GPT-NeoX): parallel residual, a quarter of each head rotated, untied embed_out,
    # BF16 in two shards (rotary_emb.inv_freq buffers beside the weights)
    "pythia_bf16_sharded": dict(family="gpt_neox", dtype="BF16", shards=2, n=10, d=64, H=4, L=2,
                                V=80, P=64, I=96, pct=0.25, theta=10000.0, parallel=True, tie=False),
    # GPT-NeoX with the sequential residual, half of each head rotated, tied, F32
    "gpt_neox_f32_sequential": dict(family="gpt_neox", dtype="F32", shards=1, n=9, d=48, H=3, L=2,
                                    V=70, P=48, I=64, pct=0.5, theta=1000.0, parallel=False, tie=True),
    # OPT-125m's layout: pre-norm, tied, F32
    "opt_f32_prenorm": dict(family="opt", dtype="F32", shards=1, n=9, d=32, H=4, L=2, V=60, P=40,
                            I=64, e=32, pre=True, tie=True),
    # OPT-350m's: post-norm, embeddings narrower than the model (project_in / project_out), an
    # untied lm_head, F16
    "opt_f16_postnorm_projected": dict(family="opt", dtype="F16", shards=1, n=11, d=48, H=4, L=2,
                                       V=64, P=40, I=80, e=32, pre=False, tie=False),
    # Phi-2's layout with grouped K/V (4 query heads, 2 KV), 0.4 of each head rotated (6 of 16
    # dimensions: int() truncates), lm_head with a bias, F32
    "phi_f32_gqa": dict(family="phi", dtype="F32", shards=1, n=10, d=64, H=4, KV=2, L=2, V=72,
                        P=48, I=96, factor=0.4, theta=10000.0),
    # GPT-J: interleaved RoPE on 4 of each head's 8 dimensions, no attention biases, F16
    "gptj_f16": dict(family="gptj", dtype="F16", shards=1, n=9, d=32, H=4, L=2, V=64, P=40, I=80,
                     rotary=4),
    # RoBERTa for masked LM: the roberta. prefix and the lm_head, F32
    "roberta_f32_mlm": dict(family="roberta", model_type="roberta", dtype="F32", shards=1,
                            prefix="roberta.", head=True, pad_inside=False, n=9, d=32, H=4, L=2,
                            V=60, P=24, I=64),
    # XLM-R as XLMRobertaModel saves it: no prefix, no head, BF16, a padding token in the ids
    "xlmr_bf16_padded": dict(family="roberta", model_type="xlm-roberta", dtype="BF16", shards=1,
                             prefix="", head=False, pad_inside=True, n=8, d=24, H=3, L=2, V=50,
                             P=16, I=40),
    # DistilBERT for masked LM, F16
    "distilbert_f16_mlm": dict(family="distilbert", dtype="F16", shards=1, n=9, d=32, H=4, L=2,
                               V=60, P=24, I=64),
    # Phi-3: fused qkv_proj and gate_up_proj, grouped K/V, three quarters of each head rotated,
    # a sliding window of 6 keys that generation runs past, BF16
    "phi3_bf16_window": dict(family="phi3", dtype="BF16", shards=1, n=9, d=64, H=4, KV=2, L=2,
                             V=70, P=64, I=80, theta=10000.0, factor=0.75, window=6),
    # Gemma: head_dim 16 with 48-wide hidden states and 6 query heads (6 x 16 != 48), one KV
    # head, √48 rounded to BF16 (6.9375), tied, BF16
    "gemma_bf16_mqa": dict(family="gemma", dtype="BF16", shards=1, n=10, d=48, H=6, KV=1, dh=16,
                           L=2, V=64, P=64, I=96),
    # Falcon's new decoder architecture (Falcon-40B/180B/11B): 4 query heads in 2 K/V groups,
    # ln_attn and ln_mlp, tied, BF16
    "falcon_new_bf16_grouped": dict(family="falcon", dtype="BF16", shards=1, n=10, d=32, H=4, KV=2,
                                    L=2, V=64, P=64, I=96, new=True, theta=10000.0, tie=True),
    # Falcon-7B's: multi-query (one K/V head), one input_layernorm, an untied lm_head, F32
    "falcon_f32_multiquery": dict(family="falcon", dtype="F32", shards=1, n=9, d=48, H=4, KV=1,
                                  L=2, V=60, P=64, I=96, new=False, theta=1000.0, tie=False),
    # Gemma 2: scores scaled by query_pre_attn_scalar (24 ≠ head_dim 16) and soft-capped at 2,
    # logits at 3, even layers within a window of 4 keys (generation runs past it), four norms a
    # layer, 2 K/V heads, F32
    "gemma2_f32_capped": dict(family="gemma", dtype="F32", shards=1, n=10, d=32, H=4, KV=2, dh=16,
                              L=2, V=64, P=64, I=64, v2=True, qscalar=24.0, attn_cap=2.0,
                              final_cap=3.0, window=4),
    # Gemma 3's language model: q/k norms, local layers by layer_types (window 4) with RoPE base
    # 10000 and a global one with 1e6, no soft caps, BF16
    "gemma3_bf16_local_global": dict(family="gemma", dtype="BF16", shards=1, n=10, d=32, H=4, KV=2,
                                     dh=16, L=3, V=64, P=64, I=64, v3=True, qscalar=16.0, window=4,
                                     theta=1e6, local_theta=10000.0,
                                     layer_types=["sliding_attention", "full_attention", "sliding_attention"]),
})

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def rounded(t, dtype):
    """t as stored in `dtype`, back in float64 (what the model computes with)."""
    return t.to(DTYPES[dtype]).to(torch.float64)


def write_safetensors(path, tensors, dtype, metadata=None):
    """tensors: list of (name, float tensor); every tensor stored as `dtype`."""
    header, blobs, offset = {}, [], 0
    for name, t in tensors:
        raw = t.to(DTYPES[dtype]).contiguous()
        if dtype == "BF16":
            data = raw.view(torch.int16).numpy().astype("<i2").tobytes()
        else:
            data = raw.numpy().astype("<f4" if dtype == "F32" else "<f2").tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def save(folder, tensors, dtype, shards):
    os.makedirs(folder, exist_ok=True)
    if shards == 1:
        write_safetensors(os.path.join(folder, "model.safetensors"), tensors, dtype, {"format": "pt"})
        return
    per = math.ceil(len(tensors) / shards)
    weight_map = {}
    for s in range(shards):
        name = f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        part = tensors[s * per:(s + 1) * per]
        write_safetensors(os.path.join(folder, name), part, dtype, {"format": "pt"})
        for n, _ in part:
            weight_map[n] = name
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)


def rand(g, *shape, scale=None):
    scale = scale if scale is not None else 1.0 / math.sqrt(shape[-1] if len(shape) > 1 else 8)
    return torch.randn(*shape, generator=g, dtype=torch.float64) * scale


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def softmax_attention(q, k, v, mask):
    """q [H, n, dh], k / v [H, n, dh], mask [n, n] True = hidden."""
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(mask, float("-inf"))
    a = torch.softmax(s, -1)
    return a, a @ v


_norms = None  # while a reference forward runs: each layer's value-weighted norms


def record_norms(a, v, wo):
    """Value-weighted norms (Kobayashi et al. 2020) of one layer, written from the definition:
    a [H, n, n] weights, v [H, n, dh] each query head's values (biases included; grouped-query
    heads repeated), wo [H·dh, d] the output projection as x @ wo. f_h(x_j) = v[h, j] @ wo's
    rows of head h, formed as full vectors; per head a_ij |f_h(x_j)|, per layer
    |sum_h a^h_ij f_h(x_j)|."""
    if _norms is None:
        return
    H, n, dh = v.shape
    f = torch.stack([v[h] @ wo[h * dh:(h + 1) * dh] for h in range(H)])  # [H, n, d]
    per_head = a * f.norm(dim=-1)[:, None, :]
    per_layer = torch.einsum("hij,hjd->ijd", a, f).norm(dim=-1)
    _norms.append((per_head, per_layer))


_contrib = None  # while a reference forward runs: each layer's residual-aware contributions


def record_contrib(a, v, wo, x, out, kind, gamma=None, eps=None, rms=False, y=None):
    """Residual- and norm-aware contributions (Kobayashi et al. 2021) and ALTI (Ferrando et al.
    2022) of one layer, formed as full vectors in float64: a, v, wo as record_norms reads them;
    x [n, d] the stream entering the attention sublayer, out [n, d] the attention's output (W_O's
    bias included), y [n, d] the sublayer's result as the forward computed it (x + out for
    'add'). The sublayer is y = x + out ('add'), y = N(x + out) ('norm_of_sum') or
    y = x + N(out) ('add_norm_of'), N a layer norm (or an RMS norm: rms) with scale gamma, read
    as linear with its divisor s_i taken from the whole sum. T_ij = sum_h a^h_ij f_h(x_j) +
    [i = j] x_i through it; contrib is |T_ij|, ALTI max(0, |y_i|_1 - |y_i - T_ij|_1) (0 for a
    key no head of query i sees), each row scaled to sum to 1."""
    if _contrib is None:
        return
    H, n, dh = v.shape
    f = torch.stack([v[h] @ wo[h * dh:(h + 1) * dh] for h in range(H)])  # [H, n, d]
    mixed = torch.einsum("hij,hjd->ijd", a, f)  # [n (i), n (j), d]
    own = torch.eye(n, dtype=x.dtype)[:, :, None] * x[:, None, :]  # [i, j]: x_i where j = i

    def linear(z):
        return z * gamma if rms else (z - z.mean(-1, keepdim=True)) * gamma

    def divisor(z):
        return torch.sqrt((z * z).mean(-1) + eps) if rms else torch.sqrt(z.var(-1, unbiased=False) + eps)

    if kind == "add":
        t = mixed + own
    elif kind == "norm_of_sum":
        t = linear(mixed + own) / divisor(x + out)[:, None, None]
    else:
        t = linear(mixed) / divisor(out)[:, None, None] + own
    c = t.norm(dim=-1)
    if y is None:
        assert kind == "add"
        y = x + out
    seen = (a != 0).any(0) | torch.eye(n, dtype=torch.bool)
    alti = torch.clamp(y.abs().sum(-1)[:, None] - (y[:, None, :] - t).abs().sum(-1), min=0) * seen
    _contrib.append((c / c.sum(-1, keepdim=True), alti / alti.sum(-1, keepdim=True)))


_zeroing = None  # (layer, key): the value vector the reference forwards set to 0, or None
_outputs = None  # while a list: each layer's output, appended by the reference forwards


def zeroed(v, l):
    """v [heads, n, dh]; under _zeroing = (l, j), a copy with row j of every head set to 0."""
    if _zeroing is None or _zeroing[0] != l:
        return v
    v = v.clone()
    v[:, _zeroing[1], :] = 0
    return v


def record_output(x):
    if _outputs is not None:
        _outputs.append(x)


def value_zeroing(run, L, n):
    """Value zeroing (Mohebbi et al. 2023) written from its definition: for each layer l and key
    j the whole forward `run` once more with v_j = 0 in every head of layer l (so layer l's input
    is as it was), C[l, i, j] = 1 - cos(out_l[i], out_l[i] with v_j = 0), out_l the layer's
    output; each row scaled to sum to 1. Call with no recording on."""
    global _zeroing, _outputs
    _outputs = []
    run()
    plain = _outputs
    c = torch.zeros(L, n, n, dtype=torch.float64)
    for l in range(L):
        for j in range(n):
            _zeroing, _outputs = (l, j), []
            run()
            c[l, :, j] = 1 - torch.nn.functional.cosine_similarity(plain[l], _outputs[l], dim=-1)
    _zeroing, _outputs = None, None
    c = c.clamp(min=0)
    return (c / c.sum(-1, keepdim=True)).numpy()


_lens = None  # while a reference forward runs: each layer's input, then how the output reads one


def record_lens(x, finish=None):
    """The residual stream x entering a layer; or, at the end, `finish`: a stream to logits
    (the final norm and the output embeddings)."""
    if _lens is not None:
        _lens.append((x, finish))


def lens_arrays(recorded, logits):
    """The logit lens from the recorded layer inputs and the output's logits [n, V]."""
    finish = recorded[-1][1]
    rows = [finish(x) for x, _ in recorded[:-1]] + [logits]
    z = torch.stack(rows)  # [L + 1, n, V]
    top2 = torch.topk(z, 2, -1).values
    final = z[-1].argmax(-1)  # [n]
    zf = z.gather(-1, final.view(1, -1, 1).expand(z.shape[0], -1, 1))  # [L + 1, n, 1]
    return {"lens_ids": z.argmax(-1).numpy().astype(np.int64),
            "lens_probs": torch.softmax(z, -1).max(-1).values.numpy(),
            "lens_gap": (top2[..., 0] - top2[..., 1]).numpy(),
            "lens_rank_lo": (z > zf + 1e-4).sum(-1).numpy().astype(np.int64),
            "lens_rank_hi": ((z > zf - 1e-4).sum(-1) - 1).numpy().astype(np.int64)}


def gelu_new(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def vocab_lines(V):
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    return special + [f"w{i}" for i in range(V - len(special))]


def make_gpt2(c, g, folder):
    d, H, L, V, P, n = c["d"], c["H"], c["L"], c["V"], c["P"], c["n"]
    I, dh, eps, dt = 4 * d, d // H, 1e-5, c["dtype"]
    W = {"wte.weight": rand(g, V, d, scale=0.5), "wpe.weight": rand(g, P, d, scale=0.3)}
    for l in range(L):
        p = f"h.{l}."
        W[p + "ln_1.weight"] = 1 + rand(g, d, scale=0.1)
        W[p + "ln_1.bias"] = rand(g, d, scale=0.1)
        W[p + "attn.c_attn.weight"] = rand(g, d, 3 * d, scale=1 / math.sqrt(d) * 2)  # Conv1D [in, out]
        W[p + "attn.c_attn.bias"] = rand(g, 3 * d, scale=0.1)
        W[p + "attn.c_proj.weight"] = rand(g, d, d, scale=1 / math.sqrt(d))
        W[p + "attn.c_proj.bias"] = rand(g, d, scale=0.1)
        W[p + "ln_2.weight"] = 1 + rand(g, d, scale=0.1)
        W[p + "ln_2.bias"] = rand(g, d, scale=0.1)
        W[p + "mlp.c_fc.weight"] = rand(g, d, I, scale=1 / math.sqrt(d))
        W[p + "mlp.c_fc.bias"] = rand(g, I, scale=0.1)
        W[p + "mlp.c_proj.weight"] = rand(g, I, d, scale=1 / math.sqrt(I))
        W[p + "mlp.c_proj.bias"] = rand(g, d, scale=0.1)
    W["ln_f.weight"] = 1 + rand(g, d, scale=0.1)
    W["ln_f.bias"] = rand(g, d, scale=0.1)
    tensors = [(c["prefix"] + k, v) for k, v in W.items()]
    # buffers some GPT-2 files carry, which a reader must ignore
    tensors += [(c["prefix"] + f"h.{l}.attn.bias", torch.ones(1, 1, P, P).tril()) for l in range(L)]
    if c["prefix"]:
        tensors.append(("lm_head.weight", W["wte.weight"]))
    save(folder, tensors, dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": d, "n_head": H,
           "n_layer": L, "n_positions": P, "n_ctx": P, "vocab_size": V, "n_inner": None,
           "layer_norm_epsilon": eps, "activation_function": "gelu_new"}
    with open(os.path.join(folder, "vocab.json"), "w") as f:
        json.dump({f"t{i}": i for i in range(V)}, f)
    ids = torch.randint(0, V, (n,), generator=g)
    return cfg, ids, lambda ids: gpt2_forward(c, R, ids)


def gpt2_forward(c, R, ids):
    """maps [L, H, n, n], hidden [n, d] and the logits of every row, float64."""
    d, H, L, n = c["d"], c["H"], c["L"], len(ids)
    dh, eps = d // H, 1e-5
    x = R["wte.weight"][ids] + R["wpe.weight"][:n]
    causal = torch.ones(n, n, dtype=torch.bool).triu(1)
    maps = []
    for l in range(L):
        p = f"h.{l}."
        record_lens(x)
        h = layer_norm(x, R[p + "ln_1.weight"], R[p + "ln_1.bias"], eps)
        qkv = h @ R[p + "attn.c_attn.weight"] + R[p + "attn.c_attn.bias"]
        q, k, v = (t.view(n, H, dh).transpose(0, 1) for t in qkv.split(d, -1))
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, causal)
        maps.append(a)
        record_norms(a, v, R[p + "attn.c_proj.weight"])
        o = ctx.transpose(0, 1).reshape(n, d) @ R[p + "attn.c_proj.weight"] + R[p + "attn.c_proj.bias"]
        record_contrib(a, v, R[p + "attn.c_proj.weight"], x, o, "add")
        x = x + o
        h = layer_norm(x, R[p + "ln_2.weight"], R[p + "ln_2.bias"], eps)
        x = x + gelu_new(h @ R[p + "mlp.c_fc.weight"] + R[p + "mlp.c_fc.bias"]) @ R[p + "mlp.c_proj.weight"] \
            + R[p + "mlp.c_proj.bias"]
        record_output(x)
    hidden = layer_norm(x, R["ln_f.weight"], R["ln_f.bias"], eps)
    record_lens(None, lambda s: layer_norm(s, R["ln_f.weight"], R["ln_f.bias"], eps) @ R["wte.weight"].T)
    return torch.stack(maps), hidden, hidden @ R["wte.weight"].T


def make_bert(c, g, folder):
    d, H, L, V, P, I, n = c["d"], c["H"], c["L"], c["V"], c["P"], c["I"], c["n"]
    dh, eps, dt = d // H, 1e-12, c["dtype"]
    w_name, b_name = ("gamma", "beta") if c["old_ln"] else ("weight", "bias")
    W, names = {}, {}

    def put(key, t, name=None):
        W[key] = t
        names[key] = name or key

    put("emb.word", rand(g, V, d, scale=0.5), "embeddings.word_embeddings.weight")
    put("emb.pos", rand(g, P, d, scale=0.3), "embeddings.position_embeddings.weight")
    put("emb.type", rand(g, 2, d, scale=0.3), "embeddings.token_type_embeddings.weight")
    put("emb.ln.w", 1 + rand(g, d, scale=0.1), f"embeddings.LayerNorm.{w_name}")
    put("emb.ln.b", rand(g, d, scale=0.1), f"embeddings.LayerNorm.{b_name}")
    for l in range(L):
        e = f"encoder.layer.{l}."
        for part in ("query", "key", "value"):
            put(f"{l}.{part}.w", rand(g, d, d, scale=2 / math.sqrt(d)), e + f"attention.self.{part}.weight")
            put(f"{l}.{part}.b", rand(g, d, scale=0.1), e + f"attention.self.{part}.bias")
        put(f"{l}.ao.w", rand(g, d, d), e + "attention.output.dense.weight")
        put(f"{l}.ao.b", rand(g, d, scale=0.1), e + "attention.output.dense.bias")
        put(f"{l}.aln.w", 1 + rand(g, d, scale=0.1), e + f"attention.output.LayerNorm.{w_name}")
        put(f"{l}.aln.b", rand(g, d, scale=0.1), e + f"attention.output.LayerNorm.{b_name}")
        put(f"{l}.i.w", rand(g, I, d), e + "intermediate.dense.weight")
        put(f"{l}.i.b", rand(g, I, scale=0.1), e + "intermediate.dense.bias")
        put(f"{l}.o.w", rand(g, d, I), e + "output.dense.weight")
        put(f"{l}.o.b", rand(g, d, scale=0.1), e + "output.dense.bias")
        put(f"{l}.oln.w", 1 + rand(g, d, scale=0.1), e + f"output.LayerNorm.{w_name}")
        put(f"{l}.oln.b", rand(g, d, scale=0.1), e + f"output.LayerNorm.{b_name}")
    tensors = [(c["prefix"] + names[k], v) for k, v in W.items()]
    head = {"cls.predictions.transform.dense.weight": rand(g, d, d),
            "cls.predictions.transform.dense.bias": rand(g, d, scale=0.1),
            f"cls.predictions.transform.LayerNorm.{w_name}": 1 + rand(g, d, scale=0.1),
            f"cls.predictions.transform.LayerNorm.{b_name}": rand(g, d, scale=0.1),
            "cls.predictions.bias": rand(g, V, scale=0.1)}
    if c["prefix"]:  # BertForMaskedLM: the head, and the decoder tied to the word embeddings
        tensors += list(head.items())
        tensors.append(("cls.predictions.decoder.weight", W["emb.word"]))
    save(folder, tensors, dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    Rh = {k: rounded(v, dt) for k, v in head.items()}
    cfg = {"model_type": "bert", "architectures": ["BertForMaskedLM"], "hidden_size": d,
           "num_attention_heads": H, "num_hidden_layers": L, "intermediate_size": I,
           "max_position_embeddings": P, "type_vocab_size": 2, "vocab_size": V,
           "layer_norm_eps": eps, "hidden_act": "gelu", "position_embedding_type": "absolute"}
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab_lines(V)) + "\n")
    ids = torch.randint(5, V, (n,), generator=g)
    ids[0], ids[-1], ids[n // 2] = 2, 3, 4  # [CLS] … [MASK] … [SEP]
    def encode():
        x = R["emb.word"][ids] + R["emb.pos"][:n] + R["emb.type"][0]
        x = layer_norm(x, R["emb.ln.w"], R["emb.ln.b"], eps)
        maps = []
        for l in range(L):
            q, k, v = ((x @ R[f"{l}.{p}.w"].T + R[f"{l}.{p}.b"]).view(n, H, dh).transpose(0, 1)
                       for p in ("query", "key", "value"))
            v = zeroed(v, l)
            a, ctx = softmax_attention(q, k, v, None)
            maps.append(a)
            record_norms(a, v, R[f"{l}.ao.w"].T)
            o = ctx.transpose(0, 1).reshape(n, d) @ R[f"{l}.ao.w"].T + R[f"{l}.ao.b"]
            y = layer_norm(x + o, R[f"{l}.aln.w"], R[f"{l}.aln.b"], eps)
            record_contrib(a, v, R[f"{l}.ao.w"].T, x, o, "norm_of_sum", R[f"{l}.aln.w"], eps, y=y)
            x = y
            h = gelu_erf(x @ R[f"{l}.i.w"].T + R[f"{l}.i.b"])
            x = layer_norm(x + h @ R[f"{l}.o.w"].T + R[f"{l}.o.b"], R[f"{l}.oln.w"], R[f"{l}.oln.b"], eps)
            record_output(x)
        return torch.stack(maps), x

    maps, x = encode()
    row = n // 2
    probs = torch.zeros(V, dtype=torch.float64)
    if c["prefix"]:
        t = gelu_erf(x[row] @ Rh["cls.predictions.transform.dense.weight"].T
                     + Rh["cls.predictions.transform.dense.bias"])
        t = layer_norm(t, Rh[f"cls.predictions.transform.LayerNorm.{w_name}"],
                       Rh[f"cls.predictions.transform.LayerNorm.{b_name}"], eps)
        probs = torch.softmax(t @ R["emb.word"].T + Rh["cls.predictions.bias"], -1)
    return cfg, ids, maps, x, row, probs, encode


def scaled_inverse_frequencies(inv, scaling):
    """rope_scaling applied as transformers' rope_init functions describe it (float64)."""
    if not scaling:
        return inv
    if scaling["rope_type"] == "linear":
        return inv / scaling["factor"]
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old = scaling["original_max_position_embeddings"]
    out = inv.clone()
    for i, f in enumerate(inv.tolist()):
        wavelen = 2 * math.pi / f
        if wavelen < old / high:
            out[i] = f
        elif wavelen > old / low:
            out[i] = f / factor
        else:
            smooth = (old / wavelen - low) / (high - low)
            out[i] = (1 - smooth) * f / factor + smooth * f
    return out


def rope_half(x, theta, positions, scaling=None):
    """x [heads, n, dh] rotated in the rotate-half layout."""
    dh = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, dh, 2, dtype=torch.float64) / dh))
    inv = scaled_inverse_frequencies(inv, scaling)
    ang = positions[:, None].to(torch.float64) * inv[None]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1), torch.cat([ang.sin(), ang.sin()], -1)
    x1, x2 = x[..., : dh // 2], x[..., dh // 2:]
    return x * cos + torch.cat([-x2, x1], -1) * sin


def rms_norm(x, w, eps):
    return x / torch.sqrt((x ** 2).mean(-1, keepdim=True) + eps) * w


def make_llama(c, g, folder):
    d, H, KV, L, V, P, I, n = c["d"], c["H"], c["KV"], c["L"], c["V"], c["P"], c["I"], c["n"]
    dh = c["dh"] or d // H
    eps, dt = 1e-6, c["dtype"]
    W = {"model.embed_tokens.weight": rand(g, V, d, scale=1.0)}
    for l in range(L):
        p = f"model.layers.{l}."
        W[p + "input_layernorm.weight"] = 1 + rand(g, d, scale=0.1)
        W[p + "self_attn.q_proj.weight"] = rand(g, H * dh, d, scale=2 / math.sqrt(d))
        W[p + "self_attn.k_proj.weight"] = rand(g, KV * dh, d, scale=2 / math.sqrt(d))
        W[p + "self_attn.v_proj.weight"] = rand(g, KV * dh, d)
        if c["bias"]:
            W[p + "self_attn.q_proj.bias"] = rand(g, H * dh, scale=0.2)
            W[p + "self_attn.k_proj.bias"] = rand(g, KV * dh, scale=0.2)
            W[p + "self_attn.v_proj.bias"] = rand(g, KV * dh, scale=0.2)
        W[p + "self_attn.o_proj.weight"] = rand(g, d, H * dh)
        W[p + "post_attention_layernorm.weight"] = 1 + rand(g, d, scale=0.1)
        W[p + "mlp.gate_proj.weight"] = rand(g, I, d)
        W[p + "mlp.up_proj.weight"] = rand(g, I, d)
        W[p + "mlp.down_proj.weight"] = rand(g, d, I)
    W["model.norm.weight"] = 1 + rand(g, d, scale=0.1)
    if not c["tie"]:
        W["lm_head.weight"] = rand(g, V, d)
    save(folder, list(W.items()), dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    cfg = {"model_type": c["model_type"], "architectures": ["LlamaForCausalLM"], "hidden_size": d,
           "num_attention_heads": H, "num_key_value_heads": KV, "num_hidden_layers": L,
           "intermediate_size": I, "max_position_embeddings": P, "vocab_size": V,
           "rms_norm_eps": eps, "rope_theta": c["theta"], "hidden_act": "silu",
           "tie_word_embeddings": c["tie"], "rope_scaling": c.get("scaling")}
    if c["dh"]:
        cfg["head_dim"] = dh
    if c["model_type"] == "mistral":
        cfg["sliding_window"] = c["window"]
    tok = {"version": "1.0", "added_tokens": [{"id": 0, "content": "<s>", "special": True}],
           "model": {"type": "BPE", "vocab": {("<s>" if i == 0 else f"▁t{i}"): i for i in range(V)},
                     "merges": []}}
    with open(os.path.join(folder, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False)
    ids = torch.randint(1, V, (n,), generator=g)
    ids[0] = 0
    return cfg, ids, lambda ids: llama_forward(c, R, ids)


def llama_forward(c, R, ids):
    """maps [L, H, n, n], hidden [n, d] and the logits of every row, float64."""
    d, H, KV, L, n = c["d"], c["H"], c["KV"], c["L"], len(ids)
    dh, eps = c["dh"] or d // H, 1e-6
    pos = torch.arange(n)
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    mask = j > i
    if c["window"]:
        mask = mask | (i - j >= c["window"])  # keys i - W < j <= i, as Hugging Face's mask
    x = R["model.embed_tokens.weight"][ids]
    maps = []
    for l in range(L):
        p = f"model.layers.{l}."
        record_lens(x)
        h = rms_norm(x, R[p + "input_layernorm.weight"], eps)

        def proj(name, heads):
            y = h @ R[p + f"self_attn.{name}.weight"].T
            if c["bias"]:
                y = y + R[p + f"self_attn.{name}.bias"]
            return y.view(n, heads, dh).transpose(0, 1)

        q, k, v = proj("q_proj", H), proj("k_proj", KV), proj("v_proj", KV)
        q, k = rope_half(q, c["theta"], pos, c.get("scaling")), rope_half(k, c["theta"], pos, c.get("scaling"))
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)  # repeat_kv
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, mask)
        maps.append(a)
        record_norms(a, v, R[p + "self_attn.o_proj.weight"].T)
        o = ctx.transpose(0, 1).reshape(n, H * dh) @ R[p + "self_attn.o_proj.weight"].T
        record_contrib(a, v, R[p + "self_attn.o_proj.weight"].T, x, o, "add")
        x = x + o
        m = rms_norm(x, R[p + "post_attention_layernorm.weight"], eps)
        gate = m @ R[p + "mlp.gate_proj.weight"].T
        x = x + (gate * torch.sigmoid(gate) * (m @ R[p + "mlp.up_proj.weight"].T)) @ R[p + "mlp.down_proj.weight"].T
        record_output(x)
    hidden = rms_norm(x, R["model.norm.weight"], eps)
    head = R["model.embed_tokens.weight"] if c["tie"] else R["lm_head.weight"]
    record_lens(None, lambda s: rms_norm(s, R["model.norm.weight"], eps) @ head.T)
    return torch.stack(maps), hidden, hidden @ head.T


def make_gpt_neox(c, g, folder):
    d, H, L, V, P, I, n = c["d"], c["H"], c["L"], c["V"], c["P"], c["I"], c["n"]
    dt, pre = c["dtype"], "gpt_neox."
    W = {pre + "embed_in.weight": rand(g, V, d, scale=1.0)}
    for l in range(L):
        p = f"{pre}layers.{l}."
        for norm in ("input_layernorm", "post_attention_layernorm"):
            W[p + norm + ".weight"] = 1 + rand(g, d, scale=0.1)
            W[p + norm + ".bias"] = rand(g, d, scale=0.1)
        W[p + "attention.query_key_value.weight"] = rand(g, 3 * d, d, scale=2 / math.sqrt(d))
        W[p + "attention.query_key_value.bias"] = rand(g, 3 * d, scale=0.2)
        W[p + "attention.dense.weight"] = rand(g, d, d)
        W[p + "attention.dense.bias"] = rand(g, d, scale=0.1)
        W[p + "mlp.dense_h_to_4h.weight"] = rand(g, I, d)
        W[p + "mlp.dense_h_to_4h.bias"] = rand(g, I, scale=0.1)
        W[p + "mlp.dense_4h_to_h.weight"] = rand(g, d, I)
        W[p + "mlp.dense_4h_to_h.bias"] = rand(g, d, scale=0.1)
    W[pre + "final_layer_norm.weight"] = 1 + rand(g, d, scale=0.1)
    W[pre + "final_layer_norm.bias"] = rand(g, d, scale=0.1)
    if not c["tie"]:
        W["embed_out.weight"] = rand(g, V, d)
    tensors = list(W.items())
    # buffers Pythia files carry, which a reader must ignore
    tensors += [(f"{pre}layers.{l}.attention.rotary_emb.inv_freq", torch.ones(d // H // 2)) for l in range(L)]
    save(folder, tensors, dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    cfg = {"model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"], "hidden_size": d,
           "num_attention_heads": H, "num_hidden_layers": L, "intermediate_size": I,
           "max_position_embeddings": P, "vocab_size": V, "rotary_pct": c["pct"],
           "rotary_emb_base": c["theta"], "use_parallel_residual": c["parallel"],
           "hidden_act": "gelu", "layer_norm_eps": 1e-5, "tie_word_embeddings": c["tie"]}
    with open(os.path.join(folder, "vocab.json"), "w") as f:
        json.dump({f"t{i}": i for i in range(V)}, f)
    ids = torch.randint(1, V, (n,), generator=g)
    return cfg, ids, lambda ids: gpt_neox_forward(c, R, ids)


def gpt_neox_forward(c, R, ids):
    """GPTNeoXForCausalLM: per-head [q|k|v] in the fused product, rotate-half RoPE on the first
    ⌊dh · rotary_pct⌋ dimensions of each head, parallel (or sequential) residual, exact GELU."""
    d, H, L, n = c["d"], c["H"], c["L"], len(ids)
    dh, eps, pre = d // H, 1e-5, "gpt_neox."
    r = int(dh * c["pct"])
    pos = torch.arange(n)
    causal = torch.ones(n, n, dtype=torch.bool).triu(1)
    x = R[pre + "embed_in.weight"][ids]
    maps = []
    for l in range(L):
        p = f"{pre}layers.{l}."
        h = layer_norm(x, R[p + "input_layernorm.weight"], R[p + "input_layernorm.bias"], eps)
        qkv = (h @ R[p + "attention.query_key_value.weight"].T + R[p + "attention.query_key_value.bias"])
        qkv = qkv.view(n, H, 3 * dh).transpose(0, 1)
        q, k, v = qkv[..., :dh], qkv[..., dh:2 * dh], qkv[..., 2 * dh:]
        q = torch.cat([rope_half(q[..., :r], c["theta"], pos), q[..., r:]], -1)
        k = torch.cat([rope_half(k[..., :r], c["theta"], pos), k[..., r:]], -1)
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, causal)
        maps.append(a)
        attn = ctx.transpose(0, 1).reshape(n, d) @ R[p + "attention.dense.weight"].T + R[p + "attention.dense.bias"]
        record_norms(a, v, R[p + "attention.dense.weight"].T)
        record_contrib(a, v, R[p + "attention.dense.weight"].T, x, attn, "add")
        mid = x if c["parallel"] else x + attn
        m = layer_norm(mid, R[p + "post_attention_layernorm.weight"], R[p + "post_attention_layernorm.bias"], eps)
        mlp = gelu_erf(m @ R[p + "mlp.dense_h_to_4h.weight"].T + R[p + "mlp.dense_h_to_4h.bias"]) \
            @ R[p + "mlp.dense_4h_to_h.weight"].T + R[p + "mlp.dense_4h_to_h.bias"]
        x = x + attn + mlp
        record_output(x)
    hidden = layer_norm(x, R[pre + "final_layer_norm.weight"], R[pre + "final_layer_norm.bias"], eps)
    head = R[pre + "embed_in.weight"] if c["tie"] else R["embed_out.weight"]
    return torch.stack(maps), hidden, hidden @ head.T


def make_opt(c, g, folder):
    d, H, L, V, P, I, n, e = c["d"], c["H"], c["L"], c["V"], c["P"], c["I"], c["n"], c["e"]
    dt, pre = c["dtype"], "model.decoder."
    W = {pre + "embed_tokens.weight": rand(g, V, e, scale=1.0),
         pre + "embed_positions.weight": rand(g, P + 2, d, scale=0.3)}
    if e != d:
        W[pre + "project_in.weight"] = rand(g, d, e)
        W[pre + "project_out.weight"] = rand(g, e, d)
    for l in range(L):
        p = f"{pre}layers.{l}."
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            W[p + f"self_attn.{proj}.weight"] = rand(g, d, d, scale=(2 if proj in ("q_proj", "k_proj") else 1) / math.sqrt(d))
            W[p + f"self_attn.{proj}.bias"] = rand(g, d, scale=0.1)
        for norm in ("self_attn_layer_norm", "final_layer_norm"):
            W[p + norm + ".weight"] = 1 + rand(g, d, scale=0.1)
            W[p + norm + ".bias"] = rand(g, d, scale=0.1)
        W[p + "fc1.weight"] = rand(g, I, d)
        W[p + "fc1.bias"] = rand(g, I, scale=0.1)
        W[p + "fc2.weight"] = rand(g, d, I)
        W[p + "fc2.bias"] = rand(g, d, scale=0.1)
    if c["pre"]:
        W[pre + "final_layer_norm.weight"] = 1 + rand(g, d, scale=0.1)
        W[pre + "final_layer_norm.bias"] = rand(g, d, scale=0.1)
    if not c["tie"]:
        W["lm_head.weight"] = rand(g, V, e)
    save(folder, list(W.items()), dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    cfg = {"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": d,
           "num_attention_heads": H, "num_hidden_layers": L, "ffn_dim": I,
           "max_position_embeddings": P, "vocab_size": V, "word_embed_proj_dim": e,
           "do_layer_norm_before": c["pre"], "activation_function": "relu", "enable_bias": True,
           "layer_norm_elementwise_affine": True, "tie_word_embeddings": c["tie"]}
    with open(os.path.join(folder, "vocab.json"), "w") as f:
        json.dump({f"t{i}": i for i in range(V)}, f)
    ids = torch.randint(3, V, (n,), generator=g)
    return cfg, ids, lambda ids: opt_forward(c, R, ids)


def opt_forward(c, R, ids):
    """OPTForCausalLM: positions at p + 2, pre- or post-norm residuals, ReLU, project_in/out when
    the embeddings are narrower; the hidden state returned is before project_out."""
    d, H, L, n, e = c["d"], c["H"], c["L"], len(ids), c["e"]
    dh, eps, pre = d // H, 1e-5, "model.decoder."
    causal = torch.ones(n, n, dtype=torch.bool).triu(1)
    x = R[pre + "embed_tokens.weight"][ids]
    if e != d:
        x = x @ R[pre + "project_in.weight"].T
    x = x + R[pre + "embed_positions.weight"][torch.arange(n) + 2]
    maps = []
    for l in range(L):
        p = f"{pre}layers.{l}."

        def ln(t, name):
            return layer_norm(t, R[p + name + ".weight"], R[p + name + ".bias"], eps)

        def lin(t, name):
            return t @ R[p + name + ".weight"].T + R[p + name + ".bias"]

        h = ln(x, "self_attn_layer_norm") if c["pre"] else x
        q, k, v = (lin(h, f"self_attn.{t}_proj").view(n, H, dh).transpose(0, 1) for t in "qkv")
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, causal)
        maps.append(a)
        o = lin(ctx.transpose(0, 1).reshape(n, d), "self_attn.out_proj")
        record_norms(a, v, R[p + "self_attn.out_proj.weight"].T)
        if c["pre"]:
            record_contrib(a, v, R[p + "self_attn.out_proj.weight"].T, x, o, "add")
        else:
            record_contrib(a, v, R[p + "self_attn.out_proj.weight"].T, x, o, "norm_of_sum",
                           R[p + "self_attn_layer_norm.weight"], eps, y=ln(x + o, "self_attn_layer_norm"))
        x = x + o
        if not c["pre"]:
            x = ln(x, "self_attn_layer_norm")
        h = ln(x, "final_layer_norm") if c["pre"] else x
        x = x + lin(torch.relu(lin(h, "fc1")), "fc2")
        if not c["pre"]:
            x = ln(x, "final_layer_norm")
        record_output(x)
    hidden = layer_norm(x, R[pre + "final_layer_norm.weight"], R[pre + "final_layer_norm.bias"], eps) \
        if c["pre"] else x
    out = hidden @ R[pre + "project_out.weight"].T if e != d else hidden
    head = R[pre + "embed_tokens.weight"] if c["tie"] else R["lm_head.weight"]
    return torch.stack(maps), hidden, out @ head.T


def make_phi(c, g, folder):
    d, H, KV, L, V, P, I, n = c["d"], c["H"], c["KV"], c["L"], c["V"], c["P"], c["I"], c["n"]
    dh, dt = d // H, c["dtype"]
    W = {"model.embed_tokens.weight": rand(g, V, d, scale=1.0)}
    for l in range(L):
        p = f"model.layers.{l}."
        W[p + "input_layernorm.weight"] = 1 + rand(g, d, scale=0.1)
        W[p + "input_layernorm.bias"] = rand(g, d, scale=0.1)
        for proj, out in (("q_proj", H * dh), ("k_proj", KV * dh), ("v_proj", KV * dh)):
            W[p + f"self_attn.{proj}.weight"] = rand(g, out, d, scale=2 / math.sqrt(d))
            W[p + f"self_attn.{proj}.bias"] = rand(g, out, scale=0.2)
        W[p + "self_attn.dense.weight"] = rand(g, d, H * dh)
        W[p + "self_attn.dense.bias"] = rand(g, d, scale=0.1)
        W[p + "mlp.fc1.weight"] = rand(g, I, d)
        W[p + "mlp.fc1.bias"] = rand(g, I, scale=0.1)
        W[p + "mlp.fc2.weight"] = rand(g, d, I)
        W[p + "mlp.fc2.bias"] = rand(g, d, scale=0.1)
    W["model.final_layernorm.weight"] = 1 + rand(g, d, scale=0.1)
    W["model.final_layernorm.bias"] = rand(g, d, scale=0.1)
    W["lm_head.weight"] = rand(g, V, d)
    W["lm_head.bias"] = rand(g, V, scale=0.1)
    save(folder, list(W.items()), dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    cfg = {"model_type": "phi", "architectures": ["PhiForCausalLM"], "hidden_size": d,
           "num_attention_heads": H, "num_key_value_heads": KV, "num_hidden_layers": L,
           "intermediate_size": I, "max_position_embeddings": P, "vocab_size": V,
           "partial_rotary_factor": c["factor"], "rope_theta": c["theta"], "layer_norm_eps": 1e-5,
           "hidden_act": "gelu_new", "qk_layernorm": False, "tie_word_embeddings": False}
    with open(os.path.join(folder, "vocab.json"), "w") as f:
        json.dump({f"t{i}": i for i in range(V)}, f)
    ids = torch.randint(0, V, (n,), generator=g)
    return cfg, ids, lambda ids: phi_forward(c, R, ids)


def phi_forward(c, R, ids):
    """PhiForCausalLM: one LayerNorm feeding attention and MLP in parallel, rotate-half RoPE on
    the first int(dh · partial_rotary_factor) dimensions, gelu_new, lm_head with a bias."""
    d, H, KV, L, n = c["d"], c["H"], c["KV"], c["L"], len(ids)
    dh, eps = d // H, 1e-5
    r = int(dh * c["factor"])
    pos = torch.arange(n)
    causal = torch.ones(n, n, dtype=torch.bool).triu(1)
    x = R["model.embed_tokens.weight"][ids]
    maps = []
    for l in range(L):
        p = f"model.layers.{l}."
        h = layer_norm(x, R[p + "input_layernorm.weight"], R[p + "input_layernorm.bias"], eps)

        def proj(name, heads):
            y = h @ R[p + f"self_attn.{name}.weight"].T + R[p + f"self_attn.{name}.bias"]
            return y.view(n, heads, dh).transpose(0, 1)

        q, k, v = proj("q_proj", H), proj("k_proj", KV), proj("v_proj", KV)
        q = torch.cat([rope_half(q[..., :r], c["theta"], pos), q[..., r:]], -1)
        k = torch.cat([rope_half(k[..., :r], c["theta"], pos), k[..., r:]], -1)
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, causal)
        maps.append(a)
        attn = ctx.transpose(0, 1).reshape(n, H * dh) @ R[p + "self_attn.dense.weight"].T + R[p + "self_attn.dense.bias"]
        mlp = gelu_new(h @ R[p + "mlp.fc1.weight"].T + R[p + "mlp.fc1.bias"]) @ R[p + "mlp.fc2.weight"].T \
            + R[p + "mlp.fc2.bias"]
        x = x + attn + mlp
        record_output(x)
    hidden = layer_norm(x, R["model.final_layernorm.weight"], R["model.final_layernorm.bias"], eps)
    return torch.stack(maps), hidden, hidden @ R["lm_head.weight"].T + R["lm_head.bias"]


def rope_interleaved(x, theta, positions):
    """x [heads, n, r] rotated in the interleaved layout: dimension 2i with 2i + 1."""
    r = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, r, 2, dtype=torch.float64) / r))
    ang = positions[:, None].to(torch.float64) * inv[None]
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x0 * ang.cos() - x1 * ang.sin()
    out[..., 1::2] = x1 * ang.cos() + x0 * ang.sin()
    return out


def make_gptj(c, g, folder):
    d, H, L, V, P, I, n = c["d"], c["H"], c["L"], c["V"], c["P"], c["I"], c["n"]
    dt, pre = c["dtype"], "transformer."
    W = {pre + "wte.weight": rand(g, V, d, scale=1.0)}
    for l in range(L):
        p = f"{pre}h.{l}."
        W[p + "ln_1.weight"] = 1 + rand(g, d, scale=0.1)
        W[p + "ln_1.bias"] = rand(g, d, scale=0.1)
        for proj in ("q_proj", "k_proj", "v_proj"):
            W[p + f"attn.{proj}.weight"] = rand(g, d, d, scale=2 / math.sqrt(d))
        W[p + "attn.out_proj.weight"] = rand(g, d, d)
        W[p + "mlp.fc_in.weight"] = rand(g, I, d)
        W[p + "mlp.fc_in.bias"] = rand(g, I, scale=0.1)
        W[p + "mlp.fc_out.weight"] = rand(g, d, I)
        W[p + "mlp.fc_out.bias"] = rand(g, d, scale=0.1)
    W[pre + "ln_f.weight"] = 1 + rand(g, d, scale=0.1)
    W[pre + "ln_f.bias"] = rand(g, d, scale=0.1)
    W["lm_head.weight"] = rand(g, V, d)
    W["lm_head.bias"] = rand(g, V, scale=0.1)
    tensors = list(W.items())
    # buffers GPT-J files carry, which a reader must ignore
    tensors += [(f"{pre}h.{l}.attn.bias", torch.ones(1, 1, P, P).tril()) for l in range(L)]
    tensors += [(f"{pre}h.{l}.attn.masked_bias", torch.tensor(-1e9)) for l in range(L)]
    save(folder, tensors, dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    cfg = {"model_type": "gptj", "architectures": ["GPTJForCausalLM"], "n_embd": d, "n_head": H,
           "n_layer": L, "n_positions": P, "vocab_size": V, "rotary_dim": c["rotary"], "n_inner": I,
           "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5, "tie_word_embeddings": False}
    with open(os.path.join(folder, "vocab.json"), "w") as f:
        json.dump({f"t{i}": i for i in range(V)}, f)
    ids = torch.randint(0, V, (n,), generator=g)
    return cfg, ids, lambda ids: gptj_forward(c, R, ids)


def gptj_forward(c, R, ids):
    """GPTJForCausalLM: ln_1 feeding attention and MLP in parallel, interleaved RoPE on the
    first rotary_dim dimensions of each head, no q/k/v/out biases, lm_head with a bias."""
    d, H, L, n = c["d"], c["H"], c["L"], len(ids)
    dh, eps, pre, r = d // H, 1e-5, "transformer.", c["rotary"]
    pos = torch.arange(n)
    causal = torch.ones(n, n, dtype=torch.bool).triu(1)
    x = R[pre + "wte.weight"][ids]
    maps = []
    for l in range(L):
        p = f"{pre}h.{l}."
        h = layer_norm(x, R[p + "ln_1.weight"], R[p + "ln_1.bias"], eps)
        q, k, v = ((h @ R[p + f"attn.{t}_proj.weight"].T).view(n, H, dh).transpose(0, 1) for t in "qkv")
        q = torch.cat([rope_interleaved(q[..., :r], 10000.0, pos), q[..., r:]], -1)
        k = torch.cat([rope_interleaved(k[..., :r], 10000.0, pos), k[..., r:]], -1)
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, causal)
        maps.append(a)
        attn = ctx.transpose(0, 1).reshape(n, d) @ R[p + "attn.out_proj.weight"].T
        mlp = gelu_new(h @ R[p + "mlp.fc_in.weight"].T + R[p + "mlp.fc_in.bias"]) @ R[p + "mlp.fc_out.weight"].T \
            + R[p + "mlp.fc_out.bias"]
        x = x + attn + mlp
        record_output(x)
    hidden = layer_norm(x, R[pre + "ln_f.weight"], R[pre + "ln_f.bias"], eps)
    return torch.stack(maps), hidden, hidden @ R["lm_head.weight"].T + R["lm_head.bias"]


def make_roberta(c, g, folder):
    """RoBERTa / XLM-R: BERT's layers; positions counted after the padding id (1); the
    masked-LM head under lm_head.*; one token type."""
    d, H, L, V, P, I, n = c["d"], c["H"], c["L"], c["V"], c["P"], c["I"], c["n"]
    dt, pre, eps = c["dtype"], c["prefix"], 1e-5
    W = {"embeddings.word_embeddings.weight": rand(g, V, d, scale=0.5),
         "embeddings.position_embeddings.weight": rand(g, P, d, scale=0.3),
         "embeddings.token_type_embeddings.weight": rand(g, 1, d, scale=0.3),
         "embeddings.LayerNorm.weight": 1 + rand(g, d, scale=0.1),
         "embeddings.LayerNorm.bias": rand(g, d, scale=0.1)}
    for l in range(L):
        e = f"encoder.layer.{l}."
        for part in ("query", "key", "value"):
            W[e + f"attention.self.{part}.weight"] = rand(g, d, d, scale=2 / math.sqrt(d))
            W[e + f"attention.self.{part}.bias"] = rand(g, d, scale=0.1)
        for name, shape in (("attention.output.dense", (d, d)), ("intermediate.dense", (I, d)),
                            ("output.dense", (d, I))):
            W[e + name + ".weight"] = rand(g, *shape)
            W[e + name + ".bias"] = rand(g, shape[0], scale=0.1)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            W[e + name + ".weight"] = 1 + rand(g, d, scale=0.1)
            W[e + name + ".bias"] = rand(g, d, scale=0.1)
    head = {"lm_head.dense.weight": rand(g, d, d), "lm_head.dense.bias": rand(g, d, scale=0.1),
            "lm_head.layer_norm.weight": 1 + rand(g, d, scale=0.1),
            "lm_head.layer_norm.bias": rand(g, d, scale=0.1), "lm_head.bias": rand(g, V, scale=0.1)}
    tensors = [(pre + k, v) for k, v in W.items()]
    if c["head"]:  # RobertaForMaskedLM: the head, its decoder tied to the word embeddings
        tensors += list(head.items())
        tensors += [("lm_head.decoder.weight", W["embeddings.word_embeddings.weight"]),
                    ("lm_head.decoder.bias", head["lm_head.bias"])]
    save(folder, tensors, dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in {**W, **head}.items()}
    cfg = {"model_type": c["model_type"], "architectures": ["RobertaForMaskedLM"], "hidden_size": d,
           "num_attention_heads": H, "num_hidden_layers": L, "intermediate_size": I,
           "max_position_embeddings": P, "type_vocab_size": 1, "vocab_size": V, "pad_token_id": 1,
           "bos_token_id": 0, "eos_token_id": 2, "layer_norm_eps": eps, "hidden_act": "gelu",
           "position_embedding_type": "absolute"}
    special = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    with open(os.path.join(folder, "vocab.json"), "w") as f:
        json.dump({t: i for i, t in enumerate(special + [f"t{i}" for i in range(5, V)])}, f)
    ids = torch.randint(5, V, (n,), generator=g)
    ids[0], ids[n // 2] = 0, 4  # <s> … <mask> …
    ids[-2 if c["pad_inside"] else -1] = 2  # … </s>
    if c["pad_inside"]:
        ids[-1] = 1  # a padding token after the text: position pad, not pad + n
    mask = (ids != 1).long()
    pos = torch.cumsum(mask, 0) * mask + 1  # Hugging Face's create_position_ids_from_input_ids
    x = R["embeddings.word_embeddings.weight"][ids] + R["embeddings.position_embeddings.weight"][pos] \
        + R["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, R["embeddings.LayerNorm.weight"], R["embeddings.LayerNorm.bias"], eps)
    maps = []
    for l in range(L):
        e = f"encoder.layer.{l}."

        def lin(t, name):
            return t @ R[e + name + ".weight"].T + R[e + name + ".bias"]

        q, k, v = (lin(x, f"attention.self.{p}").view(n, H, d // H).transpose(0, 1)
                   for p in ("query", "key", "value"))
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, None)
        maps.append(a)
        x = layer_norm(x + lin(ctx.transpose(0, 1).reshape(n, d), "attention.output.dense"),
                       R[e + "attention.output.LayerNorm.weight"], R[e + "attention.output.LayerNorm.bias"], eps)
        x = layer_norm(x + lin(gelu_erf(lin(x, "intermediate.dense")), "output.dense"),
                       R[e + "output.LayerNorm.weight"], R[e + "output.LayerNorm.bias"], eps)
        record_output(x)
    row = n // 2
    probs = torch.zeros(V, dtype=torch.float64)
    if c["head"]:
        t = gelu_erf(x[row] @ R["lm_head.dense.weight"].T + R["lm_head.dense.bias"])
        t = layer_norm(t, R["lm_head.layer_norm.weight"], R["lm_head.layer_norm.bias"], eps)
        probs = torch.softmax(t @ R["embeddings.word_embeddings.weight"].T + R["lm_head.bias"], -1)
    return cfg, ids, torch.stack(maps), x, row, probs


def make_distilbert(c, g, folder):
    """DistilBERT: no token types, q_lin/k_lin/v_lin/out_lin, sa_layer_norm and
    output_layer_norm; the masked-LM head vocab_transform / vocab_layer_norm / vocab_projector."""
    d, H, L, V, P, I, n = c["d"], c["H"], c["L"], c["V"], c["P"], c["I"], c["n"]
    dt, pre, eps = c["dtype"], "distilbert.", 1e-12
    W = {"embeddings.word_embeddings.weight": rand(g, V, d, scale=0.5),
         "embeddings.position_embeddings.weight": rand(g, P, d, scale=0.3),
         "embeddings.LayerNorm.weight": 1 + rand(g, d, scale=0.1),
         "embeddings.LayerNorm.bias": rand(g, d, scale=0.1)}
    for l in range(L):
        e = f"transformer.layer.{l}."
        for part in ("q_lin", "k_lin", "v_lin", "out_lin"):
            W[e + f"attention.{part}.weight"] = rand(g, d, d, scale=(2 if part in ("q_lin", "k_lin") else 1) / math.sqrt(d))
            W[e + f"attention.{part}.bias"] = rand(g, d, scale=0.1)
        W[e + "ffn.lin1.weight"], W[e + "ffn.lin1.bias"] = rand(g, I, d), rand(g, I, scale=0.1)
        W[e + "ffn.lin2.weight"], W[e + "ffn.lin2.bias"] = rand(g, d, I), rand(g, d, scale=0.1)
        for name in ("sa_layer_norm", "output_layer_norm"):
            W[e + name + ".weight"] = 1 + rand(g, d, scale=0.1)
            W[e + name + ".bias"] = rand(g, d, scale=0.1)
    head = {"vocab_transform.weight": rand(g, d, d), "vocab_transform.bias": rand(g, d, scale=0.1),
            "vocab_layer_norm.weight": 1 + rand(g, d, scale=0.1),
            "vocab_layer_norm.bias": rand(g, d, scale=0.1), "vocab_projector.bias": rand(g, V, scale=0.1)}
    tensors = [(pre + k, v) for k, v in W.items()] + list(head.items())
    tensors.append(("vocab_projector.weight", W["embeddings.word_embeddings.weight"]))
    save(folder, tensors, dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in {**W, **head}.items()}
    cfg = {"model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"], "dim": d,
           "n_heads": H, "n_layers": L, "hidden_dim": I, "max_position_embeddings": P,
           "vocab_size": V, "activation": "gelu", "sinusoidal_pos_embds": False}
    with open(os.path.join(folder, "vocab.txt"), "w") as f:
        f.write("\n".join(vocab_lines(V)) + "\n")
    ids = torch.randint(5, V, (n,), generator=g)
    ids[0], ids[-1], ids[n // 2] = 2, 3, 4  # [CLS] … [MASK] … [SEP]
    x = layer_norm(R["embeddings.word_embeddings.weight"][ids] + R["embeddings.position_embeddings.weight"][:n],
                   R["embeddings.LayerNorm.weight"], R["embeddings.LayerNorm.bias"], eps)
    maps = []
    for l in range(L):
        e = f"transformer.layer.{l}."

        def lin(t, name):
            return t @ R[e + name + ".weight"].T + R[e + name + ".bias"]

        q, k, v = (lin(x, f"attention.{p}").view(n, H, d // H).transpose(0, 1) for p in ("q_lin", "k_lin", "v_lin"))
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, None)
        maps.append(a)
        x = layer_norm(x + lin(ctx.transpose(0, 1).reshape(n, d), "attention.out_lin"),
                       R[e + "sa_layer_norm.weight"], R[e + "sa_layer_norm.bias"], eps)
        x = layer_norm(x + lin(gelu_erf(lin(x, "ffn.lin1")), "ffn.lin2"),
                       R[e + "output_layer_norm.weight"], R[e + "output_layer_norm.bias"], eps)
        record_output(x)
    row = n // 2
    t = gelu_erf(x[row] @ R["vocab_transform.weight"].T + R["vocab_transform.bias"])
    t = layer_norm(t, R["vocab_layer_norm.weight"], R["vocab_layer_norm.bias"], eps)
    probs = torch.softmax(t @ R["embeddings.word_embeddings.weight"].T + R["vocab_projector.bias"], -1)
    return cfg, ids, torch.stack(maps), x, row, probs


def make_phi3(c, g, folder):
    d, H, KV, L, V, P, I, n = c["d"], c["H"], c["KV"], c["L"], c["V"], c["P"], c["I"], c["n"]
    dh, dt = d // H, c["dtype"]
    W = {"model.embed_tokens.weight": rand(g, V, d, scale=1.0)}
    for l in range(L):
        p = f"model.layers.{l}."
        W[p + "input_layernorm.weight"] = 1 + rand(g, d, scale=0.1)
        W[p + "self_attn.qkv_proj.weight"] = rand(g, (H + 2 * KV) * dh, d, scale=2 / math.sqrt(d))
        W[p + "self_attn.o_proj.weight"] = rand(g, d, H * dh)
        W[p + "post_attention_layernorm.weight"] = 1 + rand(g, d, scale=0.1)
        W[p + "mlp.gate_up_proj.weight"] = rand(g, 2 * I, d)
        W[p + "mlp.down_proj.weight"] = rand(g, d, I)
    W["model.norm.weight"] = 1 + rand(g, d, scale=0.1)
    W["lm_head.weight"] = rand(g, V, d)
    save(folder, list(W.items()), dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    cfg = {"model_type": "phi3", "architectures": ["Phi3ForCausalLM"], "hidden_size": d,
           "num_attention_heads": H, "num_key_value_heads": KV, "num_hidden_layers": L,
           "intermediate_size": I, "max_position_embeddings": P, "vocab_size": V,
           "rms_norm_eps": 1e-5, "rope_theta": c["theta"], "rope_scaling": None,
           "partial_rotary_factor": c["factor"], "sliding_window": c["window"], "hidden_act": "silu",
           "tie_word_embeddings": False}
    tok = {"version": "1.0", "added_tokens": [{"id": 1, "content": "<s>", "special": True}],
           "model": {"type": "BPE", "vocab": {("<s>" if i == 1 else f"▁t{i}"): i for i in range(V)},
                     "merges": []}}
    with open(os.path.join(folder, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False)
    ids = torch.randint(2, V, (n,), generator=g)
    ids[0] = 1
    return cfg, ids, lambda ids: phi3_forward(c, R, ids)


def phi3_forward(c, R, ids):
    """Phi3ForCausalLM: qkv_proj sliced q | k | v, gate_up_proj chunked gate | up, rotate-half
    RoPE on the first int(dh · partial_rotary_factor) dimensions, RMSNorm, SwiGLU, causal with
    the sliding window (keys i - W < j <= i)."""
    d, H, KV, L, n, I = c["d"], c["H"], c["KV"], c["L"], len(ids), c["I"]
    dh, eps = d // H, 1e-5
    r = int(dh * c["factor"])
    pos = torch.arange(n)
    i, j = torch.arange(n)[:, None], torch.arange(n)[None, :]
    mask = (j > i) | (i - j >= c["window"])
    x = R["model.embed_tokens.weight"][ids]
    maps = []
    for l in range(L):
        p = f"model.layers.{l}."
        h = rms_norm(x, R[p + "input_layernorm.weight"], eps)
        qkv = h @ R[p + "self_attn.qkv_proj.weight"].T
        q = qkv[:, :H * dh].view(n, H, dh).transpose(0, 1)
        k = qkv[:, H * dh:(H + KV) * dh].view(n, KV, dh).transpose(0, 1)
        v = qkv[:, (H + KV) * dh:].view(n, KV, dh).transpose(0, 1)
        q = torch.cat([rope_half(q[..., :r], c["theta"], pos), q[..., r:]], -1)
        k = torch.cat([rope_half(k[..., :r], c["theta"], pos), k[..., r:]], -1)
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, mask)
        maps.append(a)
        record_norms(a, v, R[p + "self_attn.o_proj.weight"].T)
        o = ctx.transpose(0, 1).reshape(n, H * dh) @ R[p + "self_attn.o_proj.weight"].T
        record_contrib(a, v, R[p + "self_attn.o_proj.weight"].T, x, o, "add")
        x = x + o
        m = rms_norm(x, R[p + "post_attention_layernorm.weight"], eps)
        gate, up = (m @ R[p + "mlp.gate_up_proj.weight"].T).chunk(2, -1)
        x = x + (gate * torch.sigmoid(gate) * up) @ R[p + "mlp.down_proj.weight"].T
        record_output(x)
    hidden = rms_norm(x, R["model.norm.weight"], eps)
    return torch.stack(maps), hidden, hidden @ R["lm_head.weight"].T


def make_gemma(c, g, folder):
    d, H, KV, L, V, P, I, n, dh = c["d"], c["H"], c["KV"], c["L"], c["V"], c["P"], c["I"], c["n"], c["dh"]
    dt = c["dtype"]
    W = {"model.embed_tokens.weight": rand(g, V, d, scale=1.0 / math.sqrt(d))}
    for l in range(L):
        p = f"model.layers.{l}."
        W[p + "input_layernorm.weight"] = rand(g, d, scale=0.2)  # Gemma's norms hold w of (1 + w)
        W[p + "self_attn.q_proj.weight"] = rand(g, H * dh, d, scale=2 / math.sqrt(d))
        W[p + "self_attn.k_proj.weight"] = rand(g, KV * dh, d, scale=2 / math.sqrt(d))
        W[p + "self_attn.v_proj.weight"] = rand(g, KV * dh, d)
        W[p + "self_attn.o_proj.weight"] = rand(g, d, H * dh)
        W[p + "post_attention_layernorm.weight"] = rand(g, d, scale=0.2)
        if c.get("v2") or c.get("v3"):
            W[p + "pre_feedforward_layernorm.weight"] = rand(g, d, scale=0.2)
            W[p + "post_feedforward_layernorm.weight"] = rand(g, d, scale=0.2)
        if c.get("v3"):
            W[p + "self_attn.q_norm.weight"] = rand(g, dh, scale=0.2)
            W[p + "self_attn.k_norm.weight"] = rand(g, dh, scale=0.2)
        W[p + "mlp.gate_proj.weight"] = rand(g, I, d)
        W[p + "mlp.up_proj.weight"] = rand(g, I, d)
        W[p + "mlp.down_proj.weight"] = rand(g, d, I)
    W["model.norm.weight"] = rand(g, d, scale=0.2)
    save(folder, list(W.items()), dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    kind = "gemma3_text" if c.get("v3") else "gemma2" if c.get("v2") else "gemma"
    cfg = {"model_type": kind, "architectures": [{"gemma": "GemmaForCausalLM", "gemma2": "Gemma2ForCausalLM",
                                                  "gemma3_text": "Gemma3ForCausalLM"}[kind]], "hidden_size": d,
           "num_attention_heads": H, "num_key_value_heads": KV, "head_dim": dh,
           "num_hidden_layers": L, "intermediate_size": I, "max_position_embeddings": P,
           "vocab_size": V, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "hidden_act": "gelu",
           "hidden_activation": None, "tie_word_embeddings": True}
    if c.get("v2"):
        cfg.update(hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=c["qscalar"],
                   attn_logit_softcapping=c["attn_cap"], final_logit_softcapping=c["final_cap"],
                   sliding_window=c["window"])
    if c.get("v3"):
        cfg.update(hidden_activation="gelu_pytorch_tanh", query_pre_attn_scalar=c["qscalar"],
                   attn_logit_softcapping=None, final_logit_softcapping=None,
                   sliding_window=c["window"], rope_theta=c["theta"], rope_local_base_freq=c["local_theta"],
                   layer_types=c["layer_types"])
    tok = {"version": "1.0", "added_tokens": [{"id": 2, "content": "<bos>", "special": True}],
           "model": {"type": "BPE", "vocab": {("<bos>" if i == 2 else f"▁t{i}"): i for i in range(V)},
                     "merges": []}}
    with open(os.path.join(folder, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False)
    ids = torch.randint(3, V, (n,), generator=g)
    ids[0] = 2
    return cfg, ids, lambda ids: gemma_forward(c, R, ids)


def gemma_forward(c, R, ids):
    """GemmaForCausalLM: embeddings x sqrt(d) (the factor rounded to the weights' dtype, as the
    model holds it), RMSNorm x (1 + w), GeGLU with the tanh GELU, head_dim 2 d / H here, tied.
    Gemma2ForCausalLM (v2): scores x query_pre_attn_scalar^-1/2 and soft-capped before the mask,
    even layers within the sliding window (keys i - W < j <= i), post-attention and pre/post
    feed-forward norms, the logits soft-capped."""
    d, H, KV, L, n, dh = c["d"], c["H"], c["KV"], c["L"], len(ids), c["dh"]
    eps = 1e-6
    normalizer = torch.tensor(d ** 0.5, dtype=DTYPES[c["dtype"]]).to(torch.float64)
    pos = torch.arange(n)
    causal = torch.ones(n, n, dtype=torch.bool).triu(1)

    def norm(t, name):
        return t / torch.sqrt(t.pow(2).mean(-1, keepdim=True) + eps) * (1 + R[name])

    v2, v3 = c.get("v2", False), c.get("v3", False)
    i_, j_ = torch.arange(n)[:, None], torch.arange(n)[None, :]
    x = R["model.embed_tokens.weight"][ids] * normalizer
    maps = []
    for l in range(L):
        p = f"model.layers.{l}."
        h = norm(x, p + "input_layernorm.weight")
        q = (h @ R[p + "self_attn.q_proj.weight"].T).view(n, H, dh).transpose(0, 1)
        k = (h @ R[p + "self_attn.k_proj.weight"].T).view(n, KV, dh).transpose(0, 1)
        v = (h @ R[p + "self_attn.v_proj.weight"].T).view(n, KV, dh).transpose(0, 1)
        local = (l % 2 == 0) if v2 else v3 and c["layer_types"][l] == "sliding_attention"
        theta = 10000.0
        if v3:  # per-head norms, then the local or global RoPE base
            q, k = norm(q, p + "self_attn.q_norm.weight"), norm(k, p + "self_attn.k_norm.weight")
            theta = c["local_theta"] if local else c["theta"]
        q, k = rope_half(q, theta, pos), rope_half(k, theta, pos)
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)
        v = zeroed(v, l)
        if v2 or v3:
            s = (q @ k.transpose(1, 2)) * c["qscalar"] ** -0.5
            if v2:
                s = torch.tanh(s / c["attn_cap"]) * c["attn_cap"]
            mask = causal | ((i_ - j_ >= c["window"]) if local else False)
            a = torch.softmax(s.masked_fill(mask, float("-inf")), -1)
            ctx = a @ v
        else:
            a, ctx = softmax_attention(q, k, v, causal)
        maps.append(a)
        attn = ctx.transpose(0, 1).reshape(n, H * dh) @ R[p + "self_attn.o_proj.weight"].T
        record_norms(a, v, R[p + "self_attn.o_proj.weight"].T)
        if v2 or v3:
            record_contrib(a, v, R[p + "self_attn.o_proj.weight"].T, x, attn, "add_norm_of",
                           1 + R[p + "post_attention_layernorm.weight"], eps, rms=True,
                           y=x + norm(attn, p + "post_attention_layernorm.weight"))
        else:
            record_contrib(a, v, R[p + "self_attn.o_proj.weight"].T, x, attn, "add")
        if v2 or v3:
            x = x + norm(attn, p + "post_attention_layernorm.weight")
            m = norm(x, p + "pre_feedforward_layernorm.weight")
        else:
            x = x + attn
            m = norm(x, p + "post_attention_layernorm.weight")
        mlp = (gelu_new(m @ R[p + "mlp.gate_proj.weight"].T) * (m @ R[p + "mlp.up_proj.weight"].T)) \
            @ R[p + "mlp.down_proj.weight"].T
        x = x + (norm(mlp, p + "post_feedforward_layernorm.weight") if v2 or v3 else mlp)
        record_output(x)
    hidden = norm(x, "model.norm.weight")
    logits = hidden @ R["model.embed_tokens.weight"].T
    if v2:
        logits = torch.tanh(logits / c["final_cap"]) * c["final_cap"]
    return torch.stack(maps), hidden, logits


def make_falcon(c, g, folder):
    d, H, KV, L, V, P, I, n = c["d"], c["H"], c["KV"], c["L"], c["V"], c["P"], c["I"], c["n"]
    dh, dt, pre = d // H, c["dtype"], "transformer."
    W = {pre + "word_embeddings.weight": rand(g, V, d, scale=1.0)}
    norms = ["ln_attn", "ln_mlp"] if c["new"] else ["input_layernorm"]
    for l in range(L):
        p = f"{pre}h.{l}."
        for norm in norms:
            W[p + norm + ".weight"] = 1 + rand(g, d, scale=0.1)
            W[p + norm + ".bias"] = rand(g, d, scale=0.1)
        W[p + "self_attention.query_key_value.weight"] = rand(g, (H + 2 * KV) * dh, d, scale=2 / math.sqrt(d))
        W[p + "self_attention.dense.weight"] = rand(g, d, d)
        W[p + "mlp.dense_h_to_4h.weight"] = rand(g, I, d)
        W[p + "mlp.dense_4h_to_h.weight"] = rand(g, d, I)
    W[pre + "ln_f.weight"] = 1 + rand(g, d, scale=0.1)
    W[pre + "ln_f.bias"] = rand(g, d, scale=0.1)
    if not c["tie"]:
        W["lm_head.weight"] = rand(g, V, d)
    save(folder, list(W.items()), dt, c["shards"])
    R = {k: rounded(v, dt) for k, v in W.items()}
    cfg = {"model_type": "falcon", "architectures": ["FalconForCausalLM"], "hidden_size": d,
           "num_attention_heads": H, "num_hidden_layers": L, "vocab_size": V,
           "max_position_embeddings": P, "layer_norm_epsilon": 1e-5, "alibi": False, "bias": False,
           "new_decoder_architecture": c["new"], "parallel_attn": True, "ffn_hidden_size": I,
           "rope_theta": c["theta"], "tie_word_embeddings": c["tie"]}
    if c["new"]:
        cfg.update(num_kv_heads=KV, num_ln_in_parallel_attn=2)
    else:
        cfg["multi_query"] = KV == 1
    with open(os.path.join(folder, "vocab.json"), "w") as f:
        json.dump({f"t{i}": i for i in range(V)}, f)
    ids = torch.randint(0, V, (n,), generator=g)
    return cfg, ids, lambda ids: falcon_forward(c, R, ids)


def falcon_forward(c, R, ids):
    """FalconForCausalLM: the fused query_key_value split as Falcon's _split_heads does (per K/V
    group [queries | k | v] in the new architecture, [q heads | k | v] with one K/V head in the
    old), rotate-half RoPE on whole heads, attention and MLP in parallel, exact GELU."""
    d, H, KV, L, n = c["d"], c["H"], c["KV"], c["L"], len(ids)
    dh, eps, pre = d // H, 1e-5, "transformer."
    pos = torch.arange(n)
    causal = torch.ones(n, n, dtype=torch.bool).triu(1)
    x = R[pre + "word_embeddings.weight"][ids]
    maps = []
    for l in range(L):
        p = f"{pre}h.{l}."

        def ln(name):
            return layer_norm(x, R[p + name + ".weight"], R[p + name + ".bias"], eps)

        a_in = ln("ln_attn") if c["new"] else ln("input_layernorm")
        m_in = ln("ln_mlp") if c["new"] else a_in
        fused = a_in @ R[p + "self_attention.query_key_value.weight"].T
        if c["new"]:
            fused = fused.view(n, KV, H // KV + 2, dh)
            q = fused[:, :, :-2].reshape(n, H, dh)
            k, v = fused[:, :, -2], fused[:, :, -1]
        else:
            fused = fused.view(n, H + 2, dh)
            q, k, v = fused[:, :-2], fused[:, -2:-1], fused[:, -1:]
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
        q, k = rope_half(q, c["theta"], pos), rope_half(k, c["theta"], pos)
        k, v = k.repeat_interleave(H // KV, 0), v.repeat_interleave(H // KV, 0)
        v = zeroed(v, l)
        a, ctx = softmax_attention(q, k, v, causal)
        maps.append(a)
        attn = ctx.transpose(0, 1).reshape(n, d) @ R[p + "self_attention.dense.weight"].T
        mlp = gelu_erf(m_in @ R[p + "mlp.dense_h_to_4h.weight"].T) @ R[p + "mlp.dense_4h_to_h.weight"].T
        x = x + attn + mlp
        record_output(x)
    hidden = layer_norm(x, R[pre + "ln_f.weight"], R[pre + "ln_f.bias"], eps)
    head = R[pre + "word_embeddings.weight"] if c["tie"] else R["lm_head.weight"]
    return torch.stack(maps), hidden, hidden @ head.T


MAKERS = {"gpt2": make_gpt2, "gemma": make_gemma, "falcon": make_falcon, "roberta": make_roberta, "distilbert": make_distilbert, "phi3": make_phi3, "bert": make_bert, "llama": make_llama, "gpt_neox": make_gpt_neox,
          "opt": make_opt, "phi": make_phi, "gptj": make_gptj}


def make(out_dir, seed, names=None):
    for i, (name, c) in enumerate(CASES.items()):
        if names and name not in names:
            continue
        g = torch.Generator().manual_seed(seed * 1000 + i)
        folder = os.path.join(out_dir, name)
        global _norms, _lens, _contrib
        _norms, _contrib = [], []  # an encoder's maker runs its forward itself
        made = MAKERS[c["family"]](c, g, folder)
        extra = {}
        if len(made) == 3:  # a causal model: its forward, and a greedy continuation
            cfg, ids, forward = made
            _norms, _lens, _contrib = [], [], []
            maps, hidden, logits = forward(ids)
            row, probs = len(ids) - 1, torch.softmax(logits[-1], -1)
            recorded, _norms = _norms, None
            contrib, _contrib = _contrib, None
            lens, _lens = _lens, None
            if lens:
                extra.update(lens_arrays(lens, logits))
            extra.update(greedy(forward, ids))
            extra["value_zeroing"] = value_zeroing(lambda: forward(ids), maps.shape[0], len(ids))
        else:
            cfg, ids, maps, hidden, row, probs = made[:6]
            recorded, _norms = _norms, None
            contrib, _contrib = _contrib, None
            if len(made) == 7:  # an encoder's forward to run again
                extra["value_zeroing"] = value_zeroing(made[6], maps.shape[0], len(ids))
        if recorded:
            extra["norms"] = torch.stack([h for h, _ in recorded]).numpy()
            extra["norms_layer"] = torch.stack([l for _, l in recorded]).numpy()
        if contrib:
            extra["contrib"] = torch.stack([c for c, _ in contrib]).numpy()
            extra["alti"] = torch.stack([a for _, a in contrib]).numpy()
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
        np.savez(os.path.join(folder, "reference.npz"), ids=ids.numpy().astype(np.int64),
                 attention=maps.numpy(), hidden=hidden.numpy(), top_row=np.int64(row),
                 top_probs=probs.numpy(), **extra)


GREEDY_NEW = 10


def greedy(forward, ids):
    """The greedy loop with no cache: the whole sequence rerun for every new token, the argmax
    of the last row's logits appended. Returns the new ids, the maps over prompt + new, and the
    smallest gap between the two largest logits of any step (a near tie would make the test
    depend on rounding)."""
    seq, gap = ids.clone(), math.inf
    for _ in range(GREEDY_NEW):
        z = forward(seq)[2][-1]
        top = torch.topk(z, 2).values
        gap = min(gap, float(top[0] - top[1]))
        seq = torch.cat([seq, z.argmax().view(1)])
    maps = forward(seq)[0]
    assert gap > 1e-4, f"a near tie in the greedy loop ({gap})"
    return {"greedy": seq[len(ids):].numpy().astype(np.int64), "greedy_attention": maps.numpy(),
            "greedy_gap": np.float64(gap)}


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="make only these cases (the others keep their seeds)")
    a = ap.parse_args()
    make(a.out_dir, a.seed, a.only)
