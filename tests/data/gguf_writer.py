#!/usr/bin/env python3
"""GGUF files and ggml's block types, written here from the format's specification (ggml's
docs/gguf.md and the block layouts of ggml's quantization types), with NumPy only: the tests'
independent side of attn-viz's GGUF reader (lib/params/gguf.cpp, lib/params/ggml_types.cpp).

  write_gguf(path, metadata, tensors)   metadata: [(key, type, value)], type one of VALUE_TYPES
                                        (arrays: ("array", item_type)); tensors: [(name, type
                                        name, array)] with the array in PyTorch's order (rows
                                        last: ggml's dims[0] is the last axis)
  quantize(type, x) -> bytes            F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K,
                                        Q4_K, Q5_K, Q6_K of a float32 array whose length is whole
                                        blocks: simple rounding quantizers (any valid blocks do:
                                        the reader's job is to decode them)
  dequantize(type, data, count)         float32 [count], every product and sum rounded to float32
                                        in the order the specification writes it
  random_blocks(type, blocks, rng)      random bytes with finite, moderate f16 scales
"""
import struct

import numpy as np

VALUE_TYPES = {"u8": 0, "i8": 1, "u16": 2, "i16": 3, "u32": 4, "i32": 5, "f32": 6, "bool": 7,
               "string": 8, "array": 9, "u64": 10, "i64": 11, "f64": 12}
SCALAR_FORMATS = {"u8": "<B", "i8": "<b", "u16": "<H", "i16": "<h", "u32": "<I", "i32": "<i",
                  "f32": "<f", "bool": "<?", "u64": "<Q", "i64": "<q", "f64": "<d"}
# name: (ggml id, block elements, block bytes)
TYPES = {"F32": (0, 1, 4), "F16": (1, 1, 2), "BF16": (30, 1, 2), "Q4_0": (2, 32, 18),
         "Q4_1": (3, 32, 20), "Q5_0": (6, 32, 22), "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34),
         "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110), "Q4_K": (12, 256, 144),
         "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210)}


def _string(s):
    b = s.encode("utf-8") if isinstance(s, str) else bytes(s)
    return struct.pack("<Q", len(b)) + b


def _value(vtype, value):
    if isinstance(vtype, tuple):  # ("array", item type)
        item = vtype[1]
        tid = VALUE_TYPES["array"] if isinstance(item, tuple) else VALUE_TYPES[item]
        out = struct.pack("<IQ", tid, len(value))
        return out + b"".join(_value(item, v) for v in value)
    if vtype == "string":
        return _string(value)
    return struct.pack(SCALAR_FORMATS[vtype], value)


def gguf_bytes(metadata, tensors, alignment=32, version=3):
    """The file's bytes. tensors: [(name, type name, payload bytes, dims)], dims in ggml's order."""
    out = bytearray(b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(metadata)))
    for key, vtype, value in metadata:
        tid = VALUE_TYPES["array"] if isinstance(vtype, tuple) else VALUE_TYPES[vtype]
        out += _string(key) + struct.pack("<I", tid) + _value(vtype, value)
    offset = 0
    offsets = []
    for name, tname, payload, dims in tensors:
        offsets.append(offset)
        out += _string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", TYPES[tname][0], offset)
        offset += (len(payload) + alignment - 1) // alignment * alignment
    out += b"\0" * (-len(out) % alignment)
    for (name, tname, payload, dims), at in zip(tensors, offsets):
        out += payload + b"\0" * (-len(payload) % alignment)
    return bytes(out)


def write_gguf(path, metadata, tensors, alignment=32, version=3):
    items = []
    for name, tname, array in tensors:
        a = np.asarray(array, dtype=np.float32)
        items.append((name, tname, quantize(tname, a.reshape(-1)), list(reversed(a.shape))))
    if alignment != 32:
        metadata = list(metadata) + [("general.alignment", "u32", alignment)]
    with open(path, "wb") as f:
        f.write(gguf_bytes(metadata, items, alignment, version))


# ---- half floats -------------------------------------------------------------------------
def f16_bits(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16).view(np.uint16)


def f16_values(bits):
    return np.asarray(bits, dtype=np.uint16).view(np.float16).astype(np.float32)


def _half_at(blocks, at):
    return f16_values(blocks[:, at:at + 2].copy().view(np.uint16).reshape(-1))


# ---- dequantization, from the specification --------------------------------------------
def _f32(a):
    return np.asarray(a, dtype=np.float32)


def _blocks(data, tname):
    _, _, nbytes = TYPES[tname]
    return np.frombuffer(bytes(data), dtype=np.uint8).reshape(-1, nbytes)


def _nibbles32(qs):
    """Elements j < 16: low nibble of qs[j]; j >= 16: high nibble of qs[j - 16]."""
    return np.concatenate([qs & 15, qs >> 4], axis=1).astype(np.int32)


def _fifth_bit(qh_bytes):
    qh = qh_bytes.copy().view("<u4").reshape(-1, 1).astype(np.uint64)
    return ((qh >> np.arange(32, dtype=np.uint64)) & 1).astype(np.int32)


def _k_scale_min(s):
    """Q4_K / Q5_K: 8 six-bit scales and mins from 12 bytes per super-block."""
    s = s.astype(np.int32)
    sc = np.zeros((s.shape[0], 8), np.int32)
    mn = np.zeros((s.shape[0], 8), np.int32)
    for g in range(8):
        if g < 4:
            sc[:, g] = s[:, g] & 63
            mn[:, g] = s[:, g + 4] & 63
        else:
            sc[:, g] = (s[:, g + 4] & 15) | ((s[:, g - 4] >> 6) << 4)
            mn[:, g] = (s[:, g + 4] >> 4) | ((s[:, g] >> 6) << 4)
    return sc, mn


def _q3_scales(s):
    s = s.astype(np.int32)
    out = np.zeros((s.shape[0], 16), np.int32)
    for g in range(16):
        low = (s[:, g % 8] >> (4 * (g // 8))) & 15
        high = (s[:, 8 + g % 4] >> (2 * (g // 4))) & 3
        out[:, g] = (low | (high << 4)) - 32
    return out


def dequantize(tname, data, count):
    data = bytes(data)
    if tname == "F32":
        return np.frombuffer(data, "<f4")[:count].copy()
    if tname == "F16":
        return f16_values(np.frombuffer(data, "<u2")[:count])
    if tname == "BF16":
        return (np.frombuffer(data, "<u2")[:count].astype(np.uint32) << 16).view(np.float32)
    b = _blocks(data, tname)
    if tname == "Q8_0":
        d = _half_at(b, 0)[:, None]
        y = b[:, 2:].view(np.int8).astype(np.float32) * d
    elif tname == "Q4_0":
        y = _f32(_nibbles32(b[:, 2:18]) - 8) * _half_at(b, 0)[:, None]
    elif tname == "Q4_1":
        y = _f32(_nibbles32(b[:, 4:20])) * _half_at(b, 0)[:, None] + _half_at(b, 2)[:, None]
    elif tname in ("Q5_0", "Q5_1"):
        one = tname == "Q5_1"
        d = _half_at(b, 0)[:, None]
        qh = _fifth_bit(b[:, 4 if one else 2:][:, :4])
        q = _nibbles32(b[:, 8 if one else 6:][:, :16]) | (qh << 4)
        y = _f32(q) * d + _half_at(b, 2)[:, None] if one else _f32(q - 16) * d
    elif tname == "Q2_K":
        y = _q2_k(b)
    elif tname == "Q3_K":
        y = _q3_k(b)
    elif tname in ("Q4_K", "Q5_K"):
        y = _q45_k(b, tname == "Q5_K")
    elif tname == "Q6_K":
        y = _q6_k(b)
    else:
        raise ValueError(tname)
    return _f32(y).reshape(-1)[:count]


def _walk_2bit(qs):
    """Q2_K / Q3_K element order: halves of 128 from 32 bytes each; shift 0, 2, 4, 6; bytes
    [0, 16) then [16, 32). Returns the 2-bit values [blocks, 256] and, per element, (byte index
    within the half's 32, the shift's ordinal over the whole block)."""
    vals, byte, bit = [], [], []
    for half in range(2):
        q = qs[:, 32 * half:32 * half + 32].astype(np.int32)
        for s in range(4):
            for part in range(2):
                vals.append((q[:, 16 * part:16 * part + 16] >> (2 * s)) & 3)
                byte.extend(range(16 * part, 16 * part + 16))
                bit.extend([4 * half + s] * 16)
    return np.concatenate(vals, axis=1), np.array(byte), np.array(bit)


def _q2_k(b):
    scales = b[:, :16].astype(np.int32)
    q, _, _ = _walk_2bit(b[:, 16:80])
    d = _half_at(b, 80)[:, None]
    dmin = _half_at(b, 82)[:, None]
    dl = np.repeat(d * _f32(scales & 15), 16, axis=1)
    ml = np.repeat(dmin * _f32(scales >> 4), 16, axis=1)
    return dl * _f32(q) - ml


def _q3_k(b):
    hmask = b[:, :32].astype(np.int32)
    q, byte, bit = _walk_2bit(b[:, 32:96])
    high = (hmask[:, byte] >> bit) & 1
    v = q - np.where(high == 1, 0, 4)
    d = _half_at(b, 108)[:, None]
    dl = np.repeat(d * _f32(_q3_scales(b[:, 96:108])), 16, axis=1)
    return dl * _f32(v)


def _q45_k(b, five):
    d = _half_at(b, 0)[:, None]
    dmin = _half_at(b, 2)[:, None]
    sc, mn = _k_scale_min(b[:, 4:16])
    qs = b[:, 48:176] if five else b[:, 16:144]
    qh = b[:, 16:48].astype(np.int32)
    out = []
    for g in range(8):
        q = qs[:, 32 * (g // 2):32 * (g // 2) + 32].astype(np.int32)
        v = (q >> (4 * (g % 2))) & 15
        if five:
            v = v | (((qh >> g) & 1) << 4)
        dl = d * _f32(sc[:, g:g + 1])
        ml = dmin * _f32(mn[:, g:g + 1])
        out.append(dl * _f32(v) - ml)
    return np.concatenate(out, axis=1)


def _q6_k(b):
    d = _half_at(b, 208)[:, None]
    sc = b[:, 192:208].view(np.int8).astype(np.int32)
    y = np.zeros((b.shape[0], 256), np.float32)
    for half in range(2):
        ql = b[:, 64 * half:64 * half + 64].astype(np.int32)
        qh = b[:, 128 + 32 * half:128 + 32 * half + 32].astype(np.int32)
        for r in range(4):
            low = (ql[:, 32 * (r % 2):32 * (r % 2) + 32] >> (4 * (r // 2))) & 15
            q = (low | (((qh >> (2 * r)) & 3) << 4)) - 32
            s = np.stack([sc[:, 8 * half + 2 * r], sc[:, 8 * half + 2 * r + 1]], axis=1)
            scale = np.repeat(_f32(s), 16, axis=1)
            y[:, 128 * half + 32 * r:128 * half + 32 * r + 32] = (d * scale) * _f32(q)
    return y


# ---- quantization (simple rounding; any valid blocks serve the tests) --------------------
def quantize(tname, x):
    x = np.asarray(x, dtype=np.float32).reshape(-1)
    if tname == "F32":
        return x.astype("<f4").tobytes()
    if tname == "F16":
        return f16_bits(x).astype("<u2").tobytes()
    if tname == "BF16":
        bits = x.view(np.uint32)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even
        return rounded.astype("<u2").tobytes()
    _, block, _ = TYPES[tname]
    assert x.size % block == 0, (tname, x.size)
    return QUANTIZERS[tname](x.reshape(-1, block)).tobytes()


def _h(v):
    return f16_bits(v).astype("<u2").view(np.uint8).reshape(-1, 2)


def _safe(d):
    return np.where(d == 0, np.float32(1), d)


def _pack_nibbles32(q):
    return (q[:, :16] | (q[:, 16:] << 4)).astype(np.uint8)


def _q8_0(x):
    d = f16_values(f16_bits(np.abs(x).max(1) / 127))
    q = np.clip(np.rint(x / _safe(d)[:, None]), -127, 127).astype(np.int8)
    return np.concatenate([_h(d), q.view(np.uint8)], axis=1)


def _q4_0(x):
    d = f16_values(f16_bits(np.abs(x).max(1) / 7))
    q = np.clip(np.rint(x / _safe(d)[:, None]) + 8, 0, 15).astype(np.int32)
    return np.concatenate([_h(d), _pack_nibbles32(q)], axis=1)


def _affine(x, levels):
    lo, hi = x.min(1), x.max(1)
    d = f16_values(f16_bits((hi - lo) / levels))
    m = f16_values(f16_bits(lo))
    q = np.clip(np.rint((x - m[:, None]) / _safe(d)[:, None]), 0, levels).astype(np.int32)
    return d, m, q


def _q4_1(x):
    d, m, q = _affine(x, 15)
    return np.concatenate([_h(d), _h(m), _pack_nibbles32(q)], axis=1)


def _qh_bytes(q):
    bits = ((q >> 4) & 1).astype(np.uint64) << np.arange(32, dtype=np.uint64)
    return bits.sum(1).astype("<u4").view(np.uint8).reshape(-1, 4)


def _q5_0(x):
    d = f16_values(f16_bits(np.abs(x).max(1) / 15))
    q = np.clip(np.rint(x / _safe(d)[:, None]) + 16, 0, 31).astype(np.int32)
    return np.concatenate([_h(d), _qh_bytes(q), _pack_nibbles32(q & 15)], axis=1)


def _q5_1(x):
    d, m, q = _affine(x, 31)
    return np.concatenate([_h(d), _h(m), _qh_bytes(q), _pack_nibbles32(q & 15)], axis=1)


def _pack_k_scales(sc, mn):
    s = np.zeros((sc.shape[0], 12), np.int32)
    for g in range(8):
        if g < 4:
            s[:, g] |= sc[:, g] & 63
            s[:, g + 4] |= mn[:, g] & 63
        else:
            s[:, g + 4] |= (sc[:, g] & 15) | ((mn[:, g] & 15) << 4)
            s[:, g - 4] |= (sc[:, g] >> 4) << 6
            s[:, g] |= (mn[:, g] >> 4) << 6
    return s.astype(np.uint8)


def _q45_k_quant(x, five):
    levels = 31 if five else 15
    g = x.reshape(-1, 8, 32)
    lo = np.minimum(g.min(2), 0)
    scale = (g.max(2) - lo) / levels
    d = f16_values(f16_bits(scale.max(1) / 63))
    dmin = f16_values(f16_bits((-lo).max(1) / 63))
    sc = np.clip(np.rint(scale / _safe(d)[:, None]), 0, 63).astype(np.int32)
    mn = np.clip(np.rint(-lo / _safe(dmin)[:, None]), 0, 63).astype(np.int32)
    dl = (d[:, None] * sc.astype(np.float32))[:, :, None]
    ml = (dmin[:, None] * mn.astype(np.float32))[:, :, None]
    q = np.clip(np.rint((g + ml) / _safe(dl)), 0, levels).astype(np.int32)
    qs = np.zeros((x.shape[0], 128), np.int32)
    qh = np.zeros((x.shape[0], 32), np.int32)
    for j in range(8):
        qs[:, 32 * (j // 2):32 * (j // 2) + 32] |= (q[:, j] & 15) << (4 * (j % 2))
        qh |= ((q[:, j] >> 4) & 1) << j
    parts = [_h(d), _h(dmin), _pack_k_scales(sc, mn)]
    if five:
        parts.append(qh.astype(np.uint8))
    parts.append(qs.astype(np.uint8))
    return np.concatenate(parts, axis=1)


def _q6_k_quant(x):
    g = x.reshape(-1, 16, 16)
    s = np.abs(g).max(2) / 31
    d = f16_values(f16_bits(np.abs(s).max(1) / 127))
    sc = np.clip(np.rint(s / _safe(d)[:, None]), -128, 127).astype(np.int32)
    dl = (d[:, None] * sc.astype(np.float32))[:, :, None]
    q = (np.clip(np.rint(g / _safe(dl)), -32, 31) + 32).astype(np.int32).reshape(-1, 256)
    ql = np.zeros((x.shape[0], 128), np.int32)
    qh = np.zeros((x.shape[0], 64), np.int32)
    for half in range(2):
        for r in range(4):
            v = q[:, 128 * half + 32 * r:128 * half + 32 * r + 32]
            ql[:, 64 * half + 32 * (r % 2):64 * half + 32 * (r % 2) + 32] |= (v & 15) << (4 * (r // 2))
            qh[:, 32 * half:32 * half + 32] |= ((v >> 4) & 3) << (2 * r)
    return np.concatenate([ql.astype(np.uint8), qh.astype(np.uint8),
                           sc.astype(np.int8).view(np.uint8), _h(d)], axis=1)


def _q2_k_quant(x):
    g = x.reshape(-1, 16, 16)
    lo = np.minimum(g.min(2), 0)
    scale = (g.max(2) - lo) / 3
    d = f16_values(f16_bits(scale.max(1) / 15))
    dmin = f16_values(f16_bits((-lo).max(1) / 15))
    sc = np.clip(np.rint(scale / _safe(d)[:, None]), 0, 15).astype(np.int32)
    mn = np.clip(np.rint(-lo / _safe(dmin)[:, None]), 0, 15).astype(np.int32)
    dl = (d[:, None] * sc.astype(np.float32))[:, :, None]
    ml = (dmin[:, None] * mn.astype(np.float32))[:, :, None]
    q = np.clip(np.rint((g + ml) / _safe(dl)), 0, 3).astype(np.int32).reshape(-1, 256)
    qs = np.zeros((x.shape[0], 64), np.int32)
    e = 0
    for half in range(2):
        for s in range(4):
            for part in range(2):
                qs[:, 32 * half + 16 * part:32 * half + 16 * part + 16] |= q[:, e:e + 16] << (2 * s)
                e += 16
    return np.concatenate([(sc | (mn << 4)).astype(np.uint8), qs.astype(np.uint8), _h(d),
                           _h(dmin)], axis=1)


def _q3_k_quant(x):
    g = x.reshape(-1, 16, 16)
    s = np.abs(g).max(2) / 4
    d = f16_values(f16_bits(np.abs(s).max(1) / 31))
    sc = np.clip(np.rint(s / _safe(d)[:, None]), -32, 31).astype(np.int32)
    dl = (d[:, None] * sc.astype(np.float32))[:, :, None]
    q = (np.clip(np.rint(g / _safe(dl)), -4, 3) + 4).astype(np.int32).reshape(-1, 256)
    hmask = np.zeros((x.shape[0], 32), np.int32)
    qs = np.zeros((x.shape[0], 64), np.int32)
    e = 0
    for half in range(2):
        for sh in range(4):
            for part in range(2):
                v = q[:, e:e + 16]
                qs[:, 32 * half + 16 * part:32 * half + 16 * part + 16] |= (v & 3) << (2 * sh)
                hmask[:, 16 * part:16 * part + 16] |= ((v >> 2) & 1) << (4 * half + sh)
                e += 16
    stored = sc + 32
    packed = np.zeros((x.shape[0], 12), np.int32)
    for gi in range(16):
        packed[:, gi % 8] |= (stored[:, gi] & 15) << (4 * (gi // 8))
        packed[:, 8 + gi % 4] |= ((stored[:, gi] >> 4) & 3) << (2 * (gi // 4))
    return np.concatenate([hmask.astype(np.uint8), qs.astype(np.uint8), packed.astype(np.uint8),
                           _h(d)], axis=1)


QUANTIZERS = {"Q8_0": _q8_0, "Q4_0": _q4_0, "Q4_1": _q4_1, "Q5_0": _q5_0, "Q5_1": _q5_1,
              "Q2_K": _q2_k_quant, "Q3_K": _q3_k_quant, "Q4_K": lambda x: _q45_k_quant(x, False),
              "Q5_K": lambda x: _q45_k_quant(x, True), "Q6_K": _q6_k_quant}

# Where each block type keeps its f16 fields (byte offsets), for random_blocks.
HALF_FIELDS = {"Q8_0": [0], "Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2],
               "Q2_K": [80, 82], "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208]}


def random_blocks(tname, blocks, rng):
    """Random blocks: every bit of the quants and scales random, the f16 fields finite numbers
    of either sign between 2^-14 (subnormals too) and 4."""
    _, _, nbytes = TYPES[tname]
    b = rng.integers(0, 256, size=(blocks, nbytes), dtype=np.uint8)
    for at in HALF_FIELDS[tname]:
        v = rng.uniform(-4, 4, size=blocks).astype(np.float32)
        v[::7] = rng.uniform(-6e-5, 6e-5, size=v[::7].size)  # around and below f16's normals
        b[:, at:at + 2] = _h(v)
    return b.tobytes()
