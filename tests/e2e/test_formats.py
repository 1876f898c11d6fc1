#!/usr/bin/env python3
"""Files other tools write and read. Embedding files in the formats users download, written here by Python's own struct and gzip
modules from the bundled GloVe sample: word2vec binary, fastText .vec (a header line), and each
gzip-compressed. Every form must give a run the same vectors, so the same JSON weights, as the
plain text file; broken forms must fail with exit 2 and the file named. And --npy: NumPy loads the arrays,
they equal the JSON's numbers, and the bytes are exactly what numpy.save writes."""
import gzip
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import main  # noqa: E402

SENTENCE = "the cat sat on the floor because it was tired"


def rows(env, limit=3000):
    out = []
    with open(env.embeddings, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ")
            if len(parts) > 1:
                out.append((parts[0], [float(x) for x in parts[1:]]))
            if len(out) == limit:
                break
    return out


def word2vec_binary(data):
    dim = len(data[0][1])
    blob = bytearray(f"{len(data)} {dim}\n".encode())
    for word, vec in data:
        blob += word.encode("utf-8") + b" " + struct.pack(f"<{dim}f", *vec) + b"\n"
    return bytes(blob)


def fasttext_vec(data):
    lines = [f"{len(data)} {len(data[0][1])}"]
    lines += [word + " " + " ".join(repr(v) for v in vec) for word, vec in data]
    return ("\n".join(lines) + "\n").encode()


def weights(env, embeddings):
    out = env.path("out.json")
    env.run("run", "--text", SENTENCE, "--embeddings", embeddings, "--json", out, "--heads", "2",
            "--oov", "error")
    with open(out, encoding="utf-8") as f:
        j = json.load(f)
    return [h["weights"] for h in j["heads"]]


def write(env, name, data):
    path = env.path(name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def test_every_format_gives_the_same_weights(env):
    data = rows(env)
    want = weights(env, env.embeddings)
    forms = {
        "sample.bin": word2vec_binary(data),
        "sample.vec": fasttext_vec(data),
        "sample.txt.gz": gzip.compress(open(env.embeddings, "rb").read()),
        "sample.bin.gz": gzip.compress(word2vec_binary(data)),
        "noext": gzip.compress(fasttext_vec(data)),  # detected by content, not by name
    }
    for name, blob in forms.items():
        got = weights(env, write(env, name, blob))
        assert got == want, f"{name}: weights differ from the text file's"


def test_broken_files_name_themselves(env):
    data = rows(env, 50)
    blob = word2vec_binary(data)
    cases = {
        "cut.bin": (blob[:-30], "is cut short"),
        "cut.txt.gz": (gzip.compress(fasttext_vec(data))[:-40], "ends too early"),
    }
    for name, (content, what) in cases.items():
        path = write(env, name, content)
        _, err = env.run("run", "--text", "the cat zzzqqq", "--embeddings", path, expect=2)
        assert path in err and what in err, f"{name}: {err}"
        assert "Traceback" not in err and "terminate" not in err


def test_npy_files_are_what_numpy_writes(env):
    import io
    try:
        import numpy as np
    except ImportError:
        print("  (numpy not installed: skipped)")
        return
    for heads in ("0", "5"):
        folder, js = env.path(f"npy{heads}"), env.path(f"npy{heads}.json")
        env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings,
                *(["--heads", heads] if heads != "0" else []), "--npy", folder, "--json", js)
        doc = json.load(open(js, encoding="utf-8"))
        names = ["weights", "scores", "context"] + (["output"] if heads != "0" else [])
        for name in names:
            path = os.path.join(folder, name + ".npy")
            a = np.load(path)
            assert a.dtype == np.dtype("<f4"), (name, a.dtype)
            want = (np.array(doc["output"], dtype=np.float32) if name == "output" else
                    np.array([h[name] for h in doc["heads"]], dtype=np.float32))
            assert a.shape == want.shape and np.array_equal(a, want), name
            buf = io.BytesIO()
            np.save(buf, a)  # NumPy's own bytes for the same array: the format matches exactly
            assert buf.getvalue() == open(path, "rb").read(), f"{name}.npy differs from np.save"
        tokens = open(os.path.join(folder, "query_tokens.txt"), encoding="utf-8").read().split("\n")
        assert tokens[:-1] == doc["query_tokens"]
        if heads == "5":
            assert np.allclose(np.load(os.path.join(folder, "weights.npy")).sum(axis=-1), 1,
                               atol=1e-6)
    # a file in the way, and a streamed run, are refused before any work
    blocker = write(env, "blocker", b"x")
    _, err = env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--npy", blocker,
                     expect=2)
    assert "exists and is not a folder" in err
    _, err = env.run("run", "--text", SENTENCE, "--embeddings", env.embeddings, "--stream",
                     "--npy", env.path("never"), expect=2)
    assert "--npy" in err and not os.path.exists(env.path("never"))


def test_cache_gives_the_same_bytes(env):
    data = rows(env)
    cache = env.path("cache")
    sources = [env.embeddings, write(env, "c.bin", word2vec_binary(data)),
               write(env, "c.txt.gz", gzip.compress(open(env.embeddings, "rb").read()))]
    for src in sources:
        plain, first, second = (env.path(n) for n in ("plain.json", "first.json", "second.json"))
        env.run("run", "--text", SENTENCE, "-e", src, "--heads", "2", "--json", plain)
        env.run("run", "--text", SENTENCE, "-e", src, "--heads", "2", "--json", first,
                "--cache-dir", cache)
        made = {f: os.stat(os.path.join(cache, f)).st_mtime_ns for f in os.listdir(cache)}
        env.run("run", "--text", SENTENCE, "-e", src, "--heads", "2", "--json", second,
                "--cache", extra_env={"ATTNVIZ_CACHE_DIR": cache})
        after = {f: os.stat(os.path.join(cache, f)).st_mtime_ns for f in os.listdir(cache)}
        assert made == after, "the second run rewrote the cache"
        for path in (first, second):
            assert open(path, "rb").read() == open(plain, "rb").read(), (src, path)
    assert len(os.listdir(cache)) == 3
    # a folder that cannot be made: exit 2, named
    _, err = env.run("run", "--text", SENTENCE, "--cache-dir", os.path.join(sources[1], "x"),
                     expect=2)
    assert "--cache" in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
