"""What several end-to-end tests need to read and write on their own, independently of the C++
code: safetensors files (F32, F16, BF16), the colour tables the figures use, and the round
numbers the colour ranges are rounded to."""
import json
import os
import struct

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
