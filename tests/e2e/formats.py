"""What several end-to-end tests need to read and write on their own, independently of the C++
code: safetensors files (F32, F16, BF16), the colour tables the figures use, and the round
numbers the colour ranges are rounded to, and the maps an explorer page holds."""
import base64
import json
import os
import re
import struct
import zlib

from harness import import_numpy

np = import_numpy()


def bf16_bits(a):
    """float32 -> bfloat16 bit patterns (round to nearest even), as uint16."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def write_safetensors(path, tensors, dtype="F32"):
    """name -> array, every tensor as `dtype` (F32, F16 or BF16)."""
    header, blobs, offset = {}, [], 0
    for name, a in tensors.items():
        a = np.ascontiguousarray(a, dtype=np.float32)
        if dtype == "F32":
            data = a.astype("<f4").tobytes()
        elif dtype == "F16":
            data = a.astype("<f2").tobytes()
        else:
            data = bf16_bits(a).astype("<u2").tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    """Every tensor of a safetensors file as float64 (F32, F16 and BF16 decoded here)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        raw = data[8 + n + b:8 + n + end]
        if e["dtype"] == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif e["dtype"] == "F16":
            a = np.frombuffer(raw, dtype="<f2")
        else:
            assert e["dtype"] == "BF16", e["dtype"]
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        out[name] = a.astype(np.float64).reshape(e["shape"])
    return out


def varint(data, at):
    """A protobuf varint at byte `at`: (its value, the byte after it)."""
    value = shift = 0
    while True:
        b = data[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, at


def colormap(env, name):
    """assets/colormaps/NAME.csv as 256 RGB byte triples (rounded as the C++ table rounds)."""
    path = os.path.join(os.path.dirname(env.samples), "assets", "colormaps", name + ".csv")
    rows = [l for l in open(path) if l.strip() and not l.startswith("#")]
    return np.array([[round(float(v) * 255) for v in l.split(",")] for l in rows])


def nice_at_or_above(x):
    """The least of 1, 2, 2.5, 5 x 10^k at or above x (1 for x <= 0): the colour ranges' top."""
    if x <= 0:
        return 1.0
    e = 10.0 ** np.floor(np.log10(x))
    for m in (1, 2, 2.5, 5, 10):
        if m * e >= x * (1 - 1e-12):
            return m * e


def _byte_alphabet():
    """GPT-2's byte-level alphabet: code point -> byte (printable bytes as themselves, the
    other 68 numbered from U+0100 in byte order)."""
    kept = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    out, extra = {}, 0
    for b in range(256):
        if b in kept:
            out[chr(b)] = b
        else:
            out[chr(256 + extra)] = b
            extra += 1
    return out


_ALPHABET = _byte_alphabet()


def _visible(raw):
    """bytes -> text with ' ' as ·, LF as ⏎, TAB as ⇥, other controls and bytes that are not
    whole UTF-8 characters as <0xNN>."""
    out, i = "", 0
    while i < len(raw):
        for n in (1, 2, 3, 4):
            try:
                ch = raw[i:i + n].decode("utf-8")
                break
            except UnicodeDecodeError:
                ch = None
        if ch is None or len(ch) != 1:
            out += "<0x%02X>" % raw[i]
            i += 1
            continue
        i += len(ch.encode("utf-8"))
        out += {" ": "\u00b7", "\n": "\u23ce", "\t": "\u21e5"}.get(ch, ch)
        if ord(ch) < 0x20 or ord(ch) == 0x7F:
            out = out[:-1] + "<0x%02X>" % ord(ch)
    return out


def shown_tokens(tokens):
    """A model's tokens as attn-viz's figures and pages show them (tokens.json keeps them raw):
    byte-level BPE decoded to text when the tokens are spelled in GPT-2's alphabet and use one of
    its stand-ins, SentencePiece's ▁ as a space and its <0x0A>-style control bytes as text, then
    spaces and breaks made visible."""
    stand_in = any(ord(c) >= 256 for t in tokens for c in t)
    if stand_in and all(c in _ALPHABET for t in tokens for c in t):
        return [_visible(bytes(_ALPHABET[c] for c in t)) for t in tokens]
    out = []
    for t in tokens:
        if len(t) == 6 and t.startswith("<0x") and t.endswith(">") and int(t[3:5], 16) in \
                list(range(0x21)) + [0x7F] and t[3:5] == t[3:5].upper():
            out.append(_visible(bytes([int(t[3:5], 16)])))
        else:
            out.append(_visible(t.replace("\u2581", " ").encode("utf-8")))
    return out


def page_blob(html, blob_id, count, encoding):
    """The values of one blob of an explorer page (render/page_blobs.h): base64 of a zlib stream
    of the values' byte planes, float32 ("f32") or 16-bit fixed point q / 65535 ("u16"); read
    with Python's base64 and zlib, not the page's own decoder."""
    m = re.search(r'<script type="application/octet-stream" id="%s">([^<]*)</script>'
                  % re.escape(blob_id), html)
    assert m, blob_id
    width = 4 if encoding == "f32" else 2
    planes = np.frombuffer(zlib.decompress(base64.b64decode(m.group(1))), np.uint8)
    planes = planes.reshape(width, count)
    if encoding == "f32":
        return planes.T.copy().view("<f4").reshape(count).astype(np.float64)
    return (planes[0].astype(np.float64) + 256.0 * planes[1]) / 65535.0


def page_maps(html, data, stack=None):
    """Every map of a page's stack (the page's data, or one of its "stacks"): [L, H, n, n_keys]."""
    s = stack if stack is not None else data
    n, nk = s["n"], s.get("n_keys", s["n"])
    maps = [page_blob(html, k, n * nk, data["encoding"]) for k in s["maps"]]
    return np.array(maps).reshape(s["layers"], s["heads"], n, nk)


def page_aggregate(html, data, k, stack=None):
    """Aggregate k (the mean, max, rollout, flow) of a page's stack: [n, n_keys]."""
    s = stack if stack is not None else data
    n, nk = s["n"], s.get("n_keys", s["n"])
    return page_blob(html, s["aggregates"][k]["map"], n * nk, data["encoding"]).reshape(n, nk)
