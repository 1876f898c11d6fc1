"""Streaming long inputs from the outside: the pooled map equals the full map pooled by NumPy,
streaming starts by itself past 4096 x 4096 cells, outputs are the same bytes on 1 and 2
threads, memory stays bounded, PNG levels change only the size."""
import json
import os
import random
import subprocess
import sys

from harness import import_numpy, main, sanitized

np = import_numpy()


def vocabulary(env):
    with open(env.embeddings, encoding="utf-8") as f:
        return [line.split(" ", 1)[0] for line in f if line.strip()][:800]


def sentence(env, n, seed=1):
    rnd = random.Random(seed)
    words = [w for w in vocabulary(env) if w.isalpha()]
    return " ".join(rnd.choice(words) for _ in range(n))


def pool(w, row_starts, col_starts, mode):
    out = np.zeros((len(row_starts) - 1, len(col_starts) - 1))
    for r in range(out.shape[0]):
        for c in range(out.shape[1]):
            block = w[row_starts[r]:row_starts[r + 1], col_starts[c]:col_starts[c + 1]]
            out[r, c] = block.mean() if mode == "mean" else block.max()
    return out


def test_streamed_map_is_the_full_map_pooled(env):
    text = sentence(env, 420)
    cases = [[], ["--heads", "5", "--mask", "causal,window:30", "--position", "alibi"],
             ["--score", "additive", "--pool", "max"], ["--align", "sparsemax", "--heads", "2"],
             ["--score", "general", "--align", "entmax15", "--mask", "causal"],
             ["--heads", "2", "--position", "rope", "--pool", "max"], ["--score", "cosine"]]
    for extra in cases:
        full_json, stream_json = env.path("full.json"), env.path("stream.json")
        env.run("run", "--text", text, "--embeddings", env.embeddings, "--no-stream", "--json",
                full_json, *extra)
        env.run("run", "--text", text, "--embeddings", env.embeddings, "--stream", "--pixels",
                "37", "--json", stream_json, *extra)
        full, streamed = json.load(open(full_json)), json.load(open(stream_json))
        p = streamed["pooling"]
        assert streamed["streamed"] is True and (p["rows"], p["cols"]) == (37, 37), extra
        assert p["row_starts"][0] == 0 and p["row_starts"][-1] == len(full["query_tokens"])
        heads = []
        for hf, hs in zip(full["heads"], streamed["heads"]):
            want = pool(np.array(hf["weights"], dtype=np.float64), p["row_starts"],
                        p["col_starts"], p["mode"])
            got = np.array(hs["pooled_weights"])
            assert np.abs(got - want).max() <= 1e-6 * np.abs(want).max(), extra
            assert hs["masked_rows"] == hf["masked_rows"], extra
            assert "weights" not in hs and "scores" not in hs
            heads.append(got)
        if len(heads) > 1:
            mean = np.array(streamed["mean_pooled_weights"])
            assert np.abs(mean - np.mean(heads, axis=0)).max() <= 1e-6 * mean.max()


def test_streaming_starts_by_itself_past_4096_squared_cells(env):
    text = sentence(env, 4200, seed=2)
    j = env.path("auto.json")
    _, err = env.run("run", "--text", "-", "--embeddings", env.embeddings, "--json", j,
                     "--pixels", "64", stdin=text)
    doc = json.load(open(j))
    assert doc["streamed"] is True and doc["pooling"]["rows"] == 64
    # row bins of a mean-pooled softmax map average to 1 / n_k per key: each row sums to 1
    w = np.array(doc["heads"][0]["pooled_weights"])
    sizes = np.diff(doc["pooling"]["col_starts"])
    assert np.allclose((w * sizes).sum(axis=1), 1.0, atol=1e-5)
    _, err = env.run("run", "--text", "-", "--embeddings", env.embeddings, stdin=text, expect=2)
    assert "streaming (automatic for long inputs)" in err and "--png" in err, err
    small = env.path("small.json")
    env.run("run", "--text", sentence(env, 50), "--embeddings", env.embeddings, "--json", small)
    assert "streamed" not in json.load(open(small))


def test_same_bytes_on_one_and_two_threads_and_a_readable_png(env):
    from PIL import Image
    text = sentence(env, 3000, seed=3)
    outs = []
    for threads in ("1", "2"):
        png, svg, j = (env.path(f"t{threads}.{ext}") for ext in ("png", "svg", "json"))
        env.run("--threads", threads, "run", "--text", "-", "--embeddings", env.embeddings,
                "--stream", "--heads", "2", "--pixels", "500", "--png", png, "--svg", svg,
                "--json", j, stdin=text)
        outs.append([open(p, "rb").read() for p in (png, svg, j)])
    assert outs[0] == outs[1]
    img = Image.open(env.path("t1.png"))
    img.load()
    assert img.width > 500 and img.height > 500
    svg_text = outs[0][1].decode()
    assert "<image " in svg_text and "data:image/png;base64," in svg_text


def test_png_level_changes_size_not_pixels(env):
    from PIL import Image
    text = sentence(env, 600, seed=4)
    sizes, pixels = [], []
    for level in ("0", "9"):
        png = env.path(f"level{level}.png")
        env.run("run", "--text", text, "--embeddings", env.embeddings, "--stream", "--png", png,
                "--png-level", level)
        sizes.append(os.path.getsize(png))
        pixels.append(Image.open(png).convert("RGB").tobytes())
    assert pixels[0] == pixels[1]
    assert sizes[0] > 3 * sizes[1]


def test_memory_stays_bounded_and_quiet_means_quiet(env):
    """12,000 tokens: the full maps would take 1.1 GB (scores and weights); streaming stays
    far below. Peak RSS from the kernel's accounting of the child (skipped under ASan, whose
    shadow memory is not the program's)."""
    n = 12000
    text = sentence(env, n, seed=5)
    png = env.path("long.png")
    proc = subprocess.Popen([env.exe, "run", "--text", "-", "--embeddings", env.embeddings,
                             "--stream", "--quiet", "--png", png, "--pixels", "1024"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(text.encode())
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, err
    assert "attending" not in err  # --quiet
    assert os.path.getsize(png) > 0
    if not sanitized(env.exe):
        rss_mib = usage.ru_maxrss / 1024
        assert rss_mib < 300, f"peak RSS {rss_mib:.0f} MiB"


if __name__ == "__main__":
    sys.exit(main(globals()))
