#!/usr/bin/env python3
"""Models for the GGUF tests, NumPy only: Hugging Face checkpoints with random weights (config.json
+ model.safetensors, Hugging Face's names and layout) and the same models as GGUF files the way
llama.cpp's converter writes them, from facts of its published format (tests/data/gguf_writer.py
writes the bytes from the specification):

  * metadata: general.architecture, general.name, general.file_type, {arch}.context_length,
    embedding_length, block_count, feed_forward_length, attention.head_count,
    attention.head_count_kv, attention.key_length, attention.value_length,
    attention.layer_norm_rms_epsilon, rope.freq_base, rope.dimension_count, and
    tokenizer.ggml.* when a tokenizer is given
  * tensors: token_embd, blk.N.{attn_norm, attn_q, attn_k, attn_v, attn_output, ffn_norm,
    ffn_gate, ffn_up, ffn_down}, output_norm, output (absent when tied), rope_freqs (Llama 3.1's
    scaling as per-frequency divisors); matrices in the file's type, 1-D tensors F32
  * llama: the rows of attn_q and attn_k permuted per head for interleaved RoPE
    (reshape(heads, 2, d_h / 2, in), swap the middle axes)

  /usr/bin/python3 tests/data/make_gguf_models.py OUT_DIR

writes OUT_DIR/<case>/ (the Hugging Face folder), OUT_DIR/<case>.<TYPE>.gguf and, for the
quantized types, OUT_DIR/<case>.<TYPE>.dequantized/ (a Hugging Face folder holding the weights
the GGUF file decodes to, by gguf_writer.dequantize: the float model the quantized one must
equal)."""
import json
import math
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import gguf_writer as g  # noqa: E402
from formats import read_safetensors, write_safetensors  # noqa: E402

FILE_TYPES = {"F32": 0, "F16": 1, "Q4_0": 2, "Q4_1": 3, "Q8_0": 7, "Q5_0": 8, "Q5_1": 9,
              "Q2_K": 10, "Q3_K": 12, "Q4_K": 15, "Q5_K": 17, "Q6_K": 18, "BF16": 32}

# Rows (the input dimension) of 256 so that every K-quant's super-blocks fit.
CASES = {
    "llama_gqa": dict(arch="llama", V=320, d=256, H=4, KV=2, hd=64, I=512, L=2, P=128,
                      tie=False),
    "qwen2_bias": dict(arch="qwen2", V=300, d=256, H=4, KV=4, hd=64, I=256, L=2, P=96,
                       tie=True, bias=True),
    "llama3_scaled": dict(arch="llama", V=280, d=256, H=2, KV=1, hd=128, I=256, L=1, P=160,
                          tie=True, llama3=dict(factor=8.0, low_freq_factor=1.0,
                                                high_freq_factor=4.0,
                                                original_max_position_embeddings=32)),
}


def f16_exact(a):
    """Values an F16 file holds exactly, so that F32, F16 and safetensors files agree."""
    return a.astype(np.float16).astype(np.float32)


def make_checkpoint(folder, c, seed):
    rng = np.random.default_rng(seed)
    d, hd, H, KV, I, V = c["d"], c["hd"], c["H"], c["KV"], c["I"], c["V"]

    def w(*shape, scale=1.0):
        return f16_exact(rng.standard_normal(shape).astype(np.float32) * scale / math.sqrt(shape[-1]))

    t = {"model.embed_tokens.weight": w(V, d, scale=math.sqrt(d) * 0.5),
         "model.norm.weight": f16_exact(1 + 0.1 * rng.standard_normal(d).astype(np.float32))}
    for l in range(c["L"]):
        p = f"model.layers.{l}."
        t[p + "input_layernorm.weight"] = f16_exact(1 + 0.1 * rng.standard_normal(d).astype(np.float32))
        t[p + "post_attention_layernorm.weight"] = f16_exact(1 + 0.1 * rng.standard_normal(d).astype(np.float32))
        t[p + "self_attn.q_proj.weight"] = w(H * hd, d, scale=1.0)
        t[p + "self_attn.k_proj.weight"] = w(KV * hd, d, scale=1.0)
        t[p + "self_attn.v_proj.weight"] = w(KV * hd, d)
        t[p + "self_attn.o_proj.weight"] = w(d, H * hd)
        if c.get("bias"):
            for n, rows in (("q", H * hd), ("k", KV * hd), ("v", KV * hd)):
                t[p + f"self_attn.{n}_proj.bias"] = f16_exact(0.2 * rng.standard_normal(rows).astype(np.float32))
        t[p + "mlp.gate_proj.weight"] = w(I, d)
        t[p + "mlp.up_proj.weight"] = w(I, d)
        t[p + "mlp.down_proj.weight"] = w(d, I)
    if not c["tie"]:
        t["lm_head.weight"] = w(V, d)
    config = {"model_type": c["arch"], "architectures": ["LlamaForCausalLM"], "hidden_size": d,
              "num_attention_heads": H, "num_key_value_heads": KV, "num_hidden_layers": c["L"],
              "intermediate_size": I, "max_position_embeddings": c["P"], "vocab_size": V,
              "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "hidden_act": "silu",
              "tie_word_embeddings": c["tie"], "head_dim": hd, "eos_token_id": 2}
    if "llama3" in c:
        config["rope_scaling"] = dict(rope_type="llama3", **c["llama3"])
    save(folder, t, config)
    return t, config


def save(folder, tensors, config):
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=1)


def permute(w, heads):
    """llama.cpp's row order for interleaved RoPE: per head, row i of the first half and row i of
    the second half side by side."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def unpermute(w, heads):
    return w.reshape(heads, w.shape[0] // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def rope_divisors(config):
    """Llama 3.1's scaling as llama.cpp stores it: θ_i / divisor_i."""
    s, hd = config["rope_scaling"], config["head_dim"]
    low_wavelen = s["original_max_position_embeddings"] / s["low_freq_factor"]
    high_wavelen = s["original_max_position_embeddings"] / s["high_freq_factor"]
    out = []
    for i in range(hd // 2):
        theta = config["rope_theta"] ** (-2 * i / hd)
        wavelen = 2 * math.pi / theta
        if wavelen < high_wavelen:
            out.append(1.0)
        elif wavelen > low_wavelen:
            out.append(s["factor"])
        else:
            smooth = (s["original_max_position_embeddings"] / wavelen - s["low_freq_factor"]) / (
                s["high_freq_factor"] - s["low_freq_factor"])
            out.append(1 / ((1 - smooth) / s["factor"] + smooth))
    return np.array(out, np.float32)


GGUF_LAYER = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q",
              "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
              "self_attn.o_proj": "attn_output", "post_attention_layernorm": "ffn_norm",
              "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}
GGUF_GLOBAL = {"model.embed_tokens": "token_embd", "model.norm": "output_norm",
               "lm_head": "output"}


def gguf_name(name):
    base, ending = name.rsplit(".", 1)
    if base in GGUF_GLOBAL:
        return f"{GGUF_GLOBAL[base]}.{ending}"
    parts = base.split(".")
    layer, rest = parts[2], ".".join(parts[3:])
    return f"blk.{layer}.{GGUF_LAYER[rest]}.{ending}"


def metadata_of(config, arch, wtype, name, tokenizer=()):
    a = arch + "."
    return [("general.architecture", "string", arch), ("general.name", "string", name),
            ("general.file_type", "u32", FILE_TYPES[wtype]),
            (a + "context_length", "u32", config["max_position_embeddings"]),
            (a + "embedding_length", "u32", config["hidden_size"]),
            (a + "block_count", "u32", config["num_hidden_layers"]),
            (a + "feed_forward_length", "u32", config["intermediate_size"]),
            (a + "attention.head_count", "u32", config["num_attention_heads"]),
            (a + "attention.head_count_kv", "u32", config["num_key_value_heads"]),
            (a + "attention.key_length", "u32", config["head_dim"]),
            (a + "attention.value_length", "u32", config["head_dim"]),
            (a + "attention.layer_norm_rms_epsilon", "f32", config["rms_norm_eps"]),
            (a + "rope.freq_base", "f32", config["rope_theta"]),
            (a + "rope.dimension_count", "u32", config["head_dim"])] + (
        [] if any(k == "tokenizer.ggml.eos_token_id" for k, _, _ in tokenizer)
        else [("tokenizer.ggml.eos_token_id", "u32", config["eos_token_id"])]) + list(tokenizer)


def gguf_tensors(tensors, config, arch, wtype):
    """(GGUF name, type, array in the file's row order) for every tensor."""
    out = []
    for name, a in tensors.items():
        a = np.asarray(a, np.float32)
        if arch == "llama" and name.endswith(("q_proj.weight", "k_proj.weight")):
            heads = config["num_attention_heads" if "q_proj" in name else "num_key_value_heads"]
            a = permute(a, heads)
        out.append((gguf_name(name), wtype if a.ndim == 2 else "F32", a))
    if "rope_scaling" in config:
        out.append(("rope_freqs.weight", "F32", rope_divisors(config)))
    return out


def dequantized(tensors, config, arch, wtype):
    """The Hugging Face tensors as the GGUF file of `wtype` decodes them (rows unpermuted)."""
    back = {}
    for name, a in tensors.items():
        a = np.asarray(a, np.float32)
        if a.ndim != 2:
            back[name] = a
            continue
        heads = 0
        if arch == "llama" and name.endswith(("q_proj.weight", "k_proj.weight")):
            heads = config["num_attention_heads" if "q_proj" in name else "num_key_value_heads"]
        stored = permute(a, heads) if heads else a
        decoded = g.dequantize(wtype, g.quantize(wtype, stored), stored.size).reshape(a.shape)
        back[name] = unpermute(decoded, heads) if heads else decoded
    return back


def write_case(out, name, types, seed=0, tokenizer=()):
    c = CASES[name]
    folder = os.path.join(out, name)
    tensors, config = make_checkpoint(folder, c, seed)
    for wtype in types:
        path = os.path.join(out, f"{name}.{wtype}.gguf")
        g.write_gguf(path, metadata_of(config, c["arch"], wtype, name, tokenizer),
                     gguf_tensors(tensors, config, c["arch"], wtype))
        if wtype not in ("F32", "F16", "BF16"):
            save(os.path.join(out, f"{name}.{wtype}.dequantized"),
                 dequantized(tensors, config, c["arch"], wtype), config)
    return folder


def tokenizer_metadata(tok, pre=None):
    """tokenizer.ggml.* for a tokenizer.json's BPE as llama.cpp's converter writes it: "llama"
    (SentencePiece: byte fallback; the scores rank each merged token by its merge) or "gpt2"
    (byte-level: the merges as "a b"; `pre` names the pre-tokenizer)."""
    m = tok["model"]
    ids = dict(m["vocab"])
    for a in tok["added_tokens"]:
        ids[a["content"]] = a["id"]
    tokens = [""] * (max(ids.values()) + 1)
    for t, i in ids.items():
        tokens[i] = t
    special = {a["content"] for a in tok["added_tokens"] if a.get("special")}
    spm = bool(m.get("byte_fallback"))
    merges = [tuple(x.split(" ", 1)) if isinstance(x, str) else tuple(x) for x in m["merges"]]
    types = []
    for i, t in enumerate(tokens):
        if t in special:
            types.append(3)
        elif spm and len(t) == 6 and t.startswith("<0x") and t.endswith(">"):
            types.append(6)
        elif t == m.get("unk_token"):
            types.append(2)
        else:
            types.append(1)
    meta = [("tokenizer.ggml.model", "string", "llama" if spm else "gpt2"),
            ("tokenizer.ggml.tokens", ("array", "string"), tokens),
            ("tokenizer.ggml.token_type", ("array", "i32"), types)]
    if spm:
        rank = {}
        for r, (a, b) in enumerate(merges):
            rank.setdefault(a + b, r)
        meta.append(("tokenizer.ggml.scores", ("array", "f32"),
                     [-float(rank.get(t, 0)) for t in tokens]))
        if m.get("unk_token") in ids:
            meta.append(("tokenizer.ggml.unknown_token_id", "u32", ids[m["unk_token"]]))
    else:
        meta.append(("tokenizer.ggml.merges", ("array", "string"), [f"{a} {b}" for a, b in merges]))
        meta.append(("tokenizer.ggml.pre", "string", pre))
    post = tok.get("post_processor") or {}
    bos = [p["SpecialToken"]["id"] for p in post.get("single", []) if "SpecialToken" in p]
    meta.append(("tokenizer.ggml.add_bos_token", "bool", bool(bos)))
    if bos:
        meta.append(("tokenizer.ggml.bos_token_id", "u32", ids[bos[0]]))
    return meta, len(tokens)


def tiny_llama_gguf(path, vocab, tokenizer, d=32, seed=5):
    """A one-layer Llama as an F32 GGUF file holding `tokenizer` (tokenizer.ggml.* entries)."""
    c = dict(arch="llama", V=vocab, d=d, H=2, KV=2, hd=d // 2, I=d, L=1, P=512, tie=True)
    rng = np.random.default_rng(seed)
    t = {"model.embed_tokens.weight": rng.standard_normal((vocab, d)).astype(np.float32) * 0.1,
         "model.norm.weight": np.ones(d, np.float32)}
    p = "model.layers.0."
    for n in ("input_layernorm", "post_attention_layernorm"):
        t[p + n + ".weight"] = np.ones(d, np.float32)
    for n in ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
              "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"):
        t[p + n + ".weight"] = rng.standard_normal((d, d)).astype(np.float32) * 0.1
    config = {"max_position_embeddings": c["P"], "hidden_size": d, "num_hidden_layers": 1,
              "intermediate_size": d, "num_attention_heads": 2, "num_key_value_heads": 2,
              "head_dim": d // 2, "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "eos_token_id": 0}
    g.write_gguf(path, metadata_of(config, "llama", "F32", "tiny", tokenizer),
                 gguf_tensors(t, config, "llama", "F32"))


# ---- the test checkpoints of tests/data/hf as llama.cpp's converter writes them ---------------
ARCH_OF = {"llama": "llama", "mistral": "llama", "qwen2": "qwen2", "gemma": "gemma",
           "gemma2": "gemma2", "phi3": "phi3", "gpt2": "gpt2", "gpt_neox": "gptneox",
           "falcon": "falcon"}
LAYER_NAMES = {  # Hugging Face's per-layer names (after the layer number) -> llama.cpp's
    "gemma2": {"input_layernorm": "attn_norm", "post_attention_layernorm": "post_attention_norm",
               "pre_feedforward_layernorm": "ffn_norm", "post_feedforward_layernorm": "post_ffw_norm"},
    "phi3": {"self_attn.qkv_proj": "attn_qkv", "mlp.gate_up_proj": "ffn_up"},
    "gpt2": {"ln_1": "attn_norm", "attn.c_attn": "attn_qkv", "attn.c_proj": "attn_output",
             "ln_2": "ffn_norm", "mlp.c_fc": "ffn_up", "mlp.c_proj": "ffn_down"},
    "gptneox": {"input_layernorm": "attn_norm", "attention.query_key_value": "attn_qkv",
                "attention.dense": "attn_output", "post_attention_layernorm": "ffn_norm",
                "mlp.dense_h_to_4h": "ffn_up", "mlp.dense_4h_to_h": "ffn_down"},
    "falcon": {"input_layernorm": "attn_norm", "ln_attn": "attn_norm", "ln_mlp": "attn_norm_2",
               "self_attention.query_key_value": "attn_qkv", "self_attention.dense": "attn_output",
               "mlp.dense_h_to_4h": "ffn_up", "mlp.dense_4h_to_h": "ffn_down"},
}
GLOBAL_NAMES = {
    "gpt2": {"wte": "token_embd", "wpe": "position_embd", "ln_f": "output_norm", "lm_head": "output"},
    "gptneox": {"gpt_neox.embed_in": "token_embd", "gpt_neox.final_layer_norm": "output_norm",
                "embed_out": "output"},
    "falcon": {"transformer.word_embeddings": "token_embd", "transformer.ln_f": "output_norm",
               "lm_head": "output"},
}


def hf_to_gguf_name(arch, name):
    base, ending = name.rsplit(".", 1)
    if arch == "gpt2" and base.startswith("transformer."):
        base = base[len("transformer."):]
    globals_ = GLOBAL_NAMES.get(arch, GGUF_GLOBAL)
    if base in globals_:
        return f"{globals_[base]}.{ending}"
    parts = base.split(".")
    at = parts.index("h" if arch in ("gpt2", "falcon") else "layers")
    layer, rest = parts[at + 1], ".".join(parts[at + 2:])
    table = dict(GGUF_LAYER, **LAYER_NAMES.get(arch, {}))
    return f"blk.{layer}.{table[rest]}.{ending}"


def qkv_to_blocks(a, heads, kv_heads):
    """GPT-NeoX's per-head [q_h | k_h | v_h] and Falcon's per-group [q heads | k | v] rows as
    llama.cpp stores them: all queries, then all keys, then all values."""
    per = heads // kv_heads
    g = a.reshape(kv_heads, per + 2, -1, *a.shape[1:])
    q = g[:, :per].reshape(-1, *a.shape[1:])
    k = g[:, per].reshape(-1, *a.shape[1:])
    v = g[:, per + 1].reshape(-1, *a.shape[1:])
    return np.concatenate([q, k, v], axis=0)


def hf_metadata(config, arch, wtype):
    """The {arch}.* keys llama.cpp's converter writes for a Hugging Face config."""
    a = arch + "."
    c = dict(config)
    d = c.get("hidden_size", c.get("n_embd"))
    heads = c.get("num_attention_heads", c.get("n_head"))
    head_dim = c.get("head_dim") or d // heads
    kv = c.get("num_key_value_heads", c.get("num_kv_heads", 1 if c.get("multi_query") and
                                             not c.get("new_decoder_architecture") else heads))
    meta = [("general.architecture", "string", arch), ("general.name", "string", "test"),
            ("general.file_type", "u32", FILE_TYPES[wtype]),
            (a + "context_length", "u32", c.get("max_position_embeddings", c.get("n_positions"))),
            (a + "embedding_length", "u32", d),
            (a + "block_count", "u32", c.get("num_hidden_layers", c.get("n_layer"))),
            (a + "feed_forward_length", "u32", c.get("intermediate_size") or c.get("ffn_hidden_size")
             or c.get("n_inner") or 4 * d),
            (a + "attention.head_count", "u32", heads)]
    if arch != "gpt2":
        meta.append((a + "attention.head_count_kv", "u32", kv))
    if arch in ("llama", "qwen2", "gemma", "gemma2", "phi3"):
        meta.append((a + "attention.layer_norm_rms_epsilon", "f32", c.get("rms_norm_eps", 1e-6)))
        meta.append((a + "rope.freq_base", "f32", c.get("rope_theta", 10000.0)))
    else:
        meta.append((a + "attention.layer_norm_epsilon", "f32",
                     c.get("layer_norm_eps", c.get("layer_norm_epsilon", 1e-5))))
    if arch in ("llama", "qwen2", "gemma", "gemma2"):
        meta.append((a + "attention.key_length", "u32", head_dim))
        meta.append((a + "attention.value_length", "u32", head_dim))
    share = c.get("partial_rotary_factor", c.get("rotary_pct", 1.0))
    if arch in ("llama", "qwen2", "phi3", "gptneox"):
        meta.append((a + "rope.dimension_count", "u32", int(head_dim * share)))
    if arch == "gptneox":
        meta.append((a + "rope.freq_base", "f32", c.get("rotary_emb_base", 10000.0)))
        meta.append((a + "use_parallel_residual", "bool", c.get("use_parallel_residual", True)))
    if arch == "falcon":
        meta.append((a + "rope.freq_base", "f32", c.get("rope_theta", 10000.0)))
    if c.get("sliding_window") and (arch != "qwen2" or c.get("use_sliding_window")):
        meta.append((a + "attention.sliding_window", "u32", c["sliding_window"]))
    if arch == "gemma2":
        meta.append((a + "attn_logit_softcapping", "f32", c["attn_logit_softcapping"]))
        meta.append((a + "final_logit_softcapping", "f32", c["final_logit_softcapping"]))
    return meta


def convert_hf(folder, path, wtype="F32"):
    """A checkpoint of tests/data/hf as a GGUF file: names, Q/K rows (llama), Gemma's norms + 1,
    GPT-2's Conv1D transposed, fused q/k/v in blocks (GPT-NeoX, Falcon)."""
    config = json.load(open(os.path.join(folder, "config.json")))
    arch = ARCH_OF[config["model_type"]]
    tensors = {}
    for f in sorted(os.listdir(folder)):
        if f.endswith(".safetensors"):
            tensors.update(read_safetensors(os.path.join(folder, f)))
    heads = config.get("num_attention_heads", config.get("n_head"))
    kv = config.get("num_key_value_heads", config.get("num_kv_heads", heads))
    if arch == "falcon" and config.get("multi_query") and not config.get("new_decoder_architecture"):
        kv = 1
    out = []
    for name, a in tensors.items():
        if name.endswith((".attn.bias", ".attn.masked_bias", ".attention.bias",
                          ".attention.masked_bias", ".inv_freq")):
            continue  # causal-mask and rotary buffers: not weights, never written
        a = np.asarray(a, np.float32)
        if arch == "llama" and name.endswith(("q_proj.weight", "k_proj.weight")):
            a = permute(a, heads if "q_proj" in name else kv)
        if arch in ("gemma", "gemma2") and "norm" in name:
            a = a + np.float32(1)
        if arch == "gpt2" and name.endswith(("c_attn.weight", "c_proj.weight", "c_fc.weight")):
            a = np.ascontiguousarray(a.T)
        if arch in ("gptneox", "falcon") and "query_key_value" in name:
            a = qkv_to_blocks(a, heads, heads if arch == "gptneox" else kv)
        out.append((hf_to_gguf_name(arch, name), wtype if a.ndim == 2 else "F32", a))
    g.write_gguf(path, hf_metadata(config, arch, wtype), out)
    return config


def stored_rows(config, name, a):
    """The matrix as the GGUF file's rows run (GPT-2's Conv1D transposed); the other converter
    steps only reorder rows, which the row-wise blocks do not see."""
    conv1d = config["model_type"] == "gpt2" and name.endswith(("c_attn.weight", "c_proj.weight",
                                                               "c_fc.weight"))
    return (a.T, True) if conv1d else (a, False)


def fits(folder, wtype):
    """Whether every matrix's rows hold whole blocks of `wtype`."""
    config = json.load(open(os.path.join(folder, "config.json")))
    block = g.TYPES[wtype][1]
    for f in sorted(os.listdir(folder)):
        if f.endswith(".safetensors"):
            for name, a in read_safetensors(os.path.join(folder, f)).items():
                if a.ndim == 2 and stored_rows(config, name, a)[0].shape[1] % block:
                    return False
    return True


def as_f32_checkpoint(folder, out, wtype="F32", **config_changes):
    """The checkpoint re-saved in F32 (a float model's constants), its matrices as a GGUF file
    of `wtype` decodes them (gguf_writer.dequantize of the same blocks)."""
    config = json.load(open(os.path.join(folder, "config.json")))
    config.update(config_changes)
    tensors = {}
    for f in sorted(os.listdir(folder)):
        if f.endswith(".safetensors"):
            tensors.update(read_safetensors(os.path.join(folder, f)))
    kept = {}
    for name, a in tensors.items():
        a = np.asarray(a, np.float32)
        if a.ndim == 2 and wtype != "F32":
            rows, flipped = stored_rows(config, name, a)
            rows = np.ascontiguousarray(rows)
            rows = g.dequantize(wtype, g.quantize(wtype, rows), rows.size).reshape(rows.shape)
            a = rows.T if flipped else rows
        kept[name] = a
    save(out, kept, config)
    return out


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write_case(out, "llama_gqa", ["F32", "F16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K",
                                  "Q3_K", "Q4_K", "Q5_K", "Q6_K"])
    write_case(out, "qwen2_bias", ["F32", "Q4_K"])
    write_case(out, "llama3_scaled", ["F32"])


if __name__ == "__main__":
    main()
