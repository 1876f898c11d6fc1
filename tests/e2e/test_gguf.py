#!/usr/bin/env python3
"""attn-viz model on GGUF files (llama.cpp's and Ollama's format), against the same models as
Hugging Face checkpoints. tests/data/make_gguf_models.py makes random Llama (grouped-query,
untied, Q/K rows permuted as llama.cpp's converter does), Qwen2 (biases, tied) and Llama 3.1
(rope_freqs) checkpoints and writes them as GGUF with tests/data/gguf_writer.py (the format
written here from its specification, NumPy only):

* F32 and F16 files give the checkpoint's maps within 1e-5 and hidden state within 1e-4;
* every quantized type (Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K) gives the
  maps of a checkpoint holding the weights NumPy decodes from the same blocks, within 1e-5, and
  stays within a measured distance of the float model (printed);
* a file, a folder holding one, an Ollama blob without extension; generation; refusals."""
import gzip
import hashlib
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "data"))
from harness import import_numpy, main  # noqa: E402
from test_tokenizers import check_ids, tokenizer_fixture  # noqa: E402

np = import_numpy()
import gguf_writer  # noqa: E402
import make_gguf_models  # noqa: E402

QUANTIZED = ["Q8_0", "Q6_K", "Q5_K", "Q5_1", "Q5_0", "Q4_K", "Q4_1", "Q4_0", "Q3_K", "Q2_K"]
# The largest attention weight a quantized file may move from the float model's (random
# Gaussian weights, 12 tokens): measured 0.010 (Q8_0), 0.045 (Q6_K), 0.12 (Q5_*), 0.19-0.22
# (Q4_*), 0.36 (Q3_K), 0.41 (Q2_K), with about 1.5× room.
WORST = {"Q8_0": 0.02, "Q6_K": 0.07, "Q5_K": 0.2, "Q5_1": 0.2, "Q5_0": 0.2, "Q4_K": 0.33,
         "Q4_1": 0.33, "Q4_0": 0.33, "Q3_K": 0.55, "Q2_K": 0.62}
IDS = "1,5,9,33,100,7,250,3,19,64,2,77"


def models(env):
    root = env.path("gguf-models")
    if not os.path.isdir(root):
        os.makedirs(root)
        make_gguf_models.write_case(root, "llama_gqa", ["F32", "F16"] + QUANTIZED)
        make_gguf_models.write_case(root, "qwen2_bias", ["F32", "Q4_K"])
        make_gguf_models.write_case(root, "llama3_scaled", ["F32"])
    return root


def run(env, model, ids=IDS, *extra):
    out = env.path("out-" + os.path.basename(model) + "-" + str(abs(hash((ids,) + extra))))
    env.run("model", "--model", model, "--ids", ids, "--npy", out, "-q", *extra)
    return np.load(os.path.join(out, "attention.npy")), np.load(os.path.join(out, "hidden.npy"))


def test_float_files_give_the_checkpoints_maps(env):
    root = models(env)
    long_ids = ",".join(str(i) for i in range(1, 71))  # past llama3_scaled's original 32
    for case, types, ids in (("llama_gqa", ["F32", "F16"], IDS), ("qwen2_bias", ["F32"], IDS),
                             ("llama3_scaled", ["F32"], long_ids)):
        want, want_h = run(env, os.path.join(root, case), ids)
        for t in types:
            got, got_h = run(env, os.path.join(root, f"{case}.{t}.gguf"), ids)
            assert got.shape == want.shape, (case, t, got.shape)
            assert np.abs(got - want).max() <= 1e-5, (case, t, np.abs(got - want).max())
            assert np.abs(got_h - want_h).max() <= 1e-4, (case, t, np.abs(got_h - want_h).max())
            assert want[:, :, 1:].max() < 0.999  # rows past the first spread, not one-hot


def test_quantized_files_give_their_dequantized_checkpoints_maps(env):
    root = models(env)
    float_maps, _ = run(env, os.path.join(root, "llama_gqa"))
    for case, types in (("llama_gqa", QUANTIZED), ("qwen2_bias", ["Q4_K"])):
        for t in types:
            got, got_h = run(env, os.path.join(root, f"{case}.{t}.gguf"))
            want, want_h = run(env, os.path.join(root, f"{case}.{t}.dequantized"))
            assert np.abs(got - want).max() <= 1e-5, (case, t, np.abs(got - want).max())
            assert np.abs(got_h - want_h).max() <= 1e-4, (case, t, np.abs(got_h - want_h).max())
            assert np.allclose(got.sum(-1), 1.0, atol=1e-5)
            if case == "llama_gqa":
                moved = float(np.abs(got - float_maps).max())
                print(f"  {t}: largest change of an attention weight against F32: {moved:.4f}")
                assert 0 < moved <= WORST[t], (t, moved)


# The checkpoints of tests/data/hf (each checked against a float64 PyTorch forward in
# e2e.model) in every architecture attn-viz reads from GGUF, converted as llama.cpp's converter
# does (make_gguf_models.convert_hf).
ARCHITECTURES = ["llama_bf16_gqa", "mistral_f16_window", "qwen2_f32_bias", "gemma_bf16_mqa",
                 "gemma2_f32_capped", "phi3_bf16_window", "gpt2_f32", "gpt2_f16_sharded",
                 "pythia_bf16_sharded", "gpt_neox_f32_sequential", "falcon_f32_multiquery",
                 "falcon_new_bf16_grouped"]


def test_every_architecture_gives_its_checkpoints_maps(env):
    """F32 and F16 files, and Q8_0 / Q4_0 where every matrix's rows hold whole 32-element blocks,
    against the checkpoint re-saved in F32 with its matrices as the file's blocks decode them
    (NumPy; llama.cpp computes in float, so Gemma's √d is a float, not rounded to BF16), Gemma
    2's query_pre_attn_scalar set to the head size (GGUF does not store it)."""
    runs = 0
    for name in ARCHITECTURES:
        folder = os.path.join(env.data, "hf", name)
        ids = ",".join(str(int(i)) for i in np.load(os.path.join(folder, "reference.npz"))["ids"])
        for wtype in ("F32", "F16", "Q8_0", "Q4_0"):
            if not make_gguf_models.fits(folder, wtype):
                continue
            path = env.path(f"{name}.{wtype}.gguf")
            config = make_gguf_models.convert_hf(folder, path, wtype)
            extra = {"query_pre_attn_scalar": config["head_dim"]} if name.startswith("gemma2") else {}
            ref = make_gguf_models.as_f32_checkpoint(folder, env.path(f"{name}-{wtype}"), wtype,
                                                     **extra)
            want, want_h = run(env, ref, ids)
            got, got_h = run(env, path, ids)
            assert np.abs(got - want).max() <= 1e-5, (name, wtype, np.abs(got - want).max())
            assert np.abs(got_h - want_h).max() <= 1e-4, (name, wtype, np.abs(got_h - want_h).max())
            runs += 1
    print(f"  {len(ARCHITECTURES)} checkpoints, 8 architectures, {runs} files: maps within 1e-5")


def test_a_file_a_folder_and_an_ollama_blob(env):
    root = models(env)
    want, _ = run(env, os.path.join(root, "llama_gqa.Q8_0.gguf"))
    folder = env.path("holds-one")
    os.makedirs(folder)
    shutil.copy(os.path.join(root, "llama_gqa.Q8_0.gguf"), os.path.join(folder, "model.gguf"))
    blob = env.path("sha256-0f3a9c")  # Ollama's blobs: no extension, found by the magic
    shutil.copy(os.path.join(root, "llama_gqa.Q8_0.gguf"), blob)
    for model in (folder, blob):
        got, _ = run(env, model)
        assert np.array_equal(got, want), model


def test_generation_from_a_gguf_file_equals_the_checkpoints(env):
    """Greedy generation over the key/value cache: an F16 file as its checkpoint, a Q4_K file as
    the checkpoint of its decoded weights (one row of A at a time: the matrix-vector path
    decoding rows as it goes)."""
    root = models(env)
    for pair in (("llama_gqa", "llama_gqa.F16.gguf"),
                 ("llama_gqa.Q4_K.dequantized", "llama_gqa.Q4_K.gguf")):
        got = []
        for model in pair:
            out = env.path("gen-" + model)
            env.run("model", "--model", os.path.join(root, model), "--ids", IDS, "--generate", "8",
                    "--npy", out, "-q")
            got.append((json.load(open(os.path.join(out, "generation.json")))["generated_ids"],
                        np.load(os.path.join(out, "attention.npy"))))
        assert got[0][0] == got[1][0] and len(got[0][0]) == 8, (pair, got[0][0], got[1][0])
        assert np.abs(got[0][1] - got[1][1]).max() <= 1e-5, pair


def tokenizer_case(env, case, pre=None):
    """A tokenizer.json fixture of make_tokenizer_fixtures.mjs (ids from npm's
    @huggingface/tokenizers) as GGUF metadata in a tiny Llama."""
    tok, expected = tokenizer_fixture(env, case)
    meta, vocab = make_gguf_models.tokenizer_metadata(tok, pre)
    path = env.path(case + ".gguf")
    make_gguf_models.tiny_llama_gguf(path, vocab, meta)
    return path, expected


def test_the_tokenizer_from_the_metadata_matches_huggingface_tokenizers(env):
    # SentencePiece BPE with byte fallback (tokenizer.ggml.model llama: scores, token types)
    check_ids(env, *tokenizer_case(env, "sentencepiece_prepend"))
    # Llama 3's byte-level BPE (gpt2 with pre llama-bpe: the split regex, merges ignored for
    # whole-vocabulary words)
    check_ids(env, *tokenizer_case(env, "llama3_bytelevel", "llama-bpe"))


def test_a_sentencepiece_models_pieces_give_sentencepieces_ids(env):
    """tests/data/gguf/spm_bpe.json: a SentencePiece BPE model's pieces, scores and types as
    llama.cpp's converter stores them, and the ids SentencePiece itself gives."""
    f = json.load(open(os.path.join(env.data, "gguf", "spm_bpe.json"), encoding="utf-8"))
    meta = [("tokenizer.ggml.model", "string", "llama"),
            ("tokenizer.ggml.tokens", ("array", "string"), f["tokens"]),
            ("tokenizer.ggml.scores", ("array", "f32"), f["scores"]),
            ("tokenizer.ggml.token_type", ("array", "i32"), f["types"]),
            ("tokenizer.ggml.bos_token_id", "u32", f["bos"]),
            ("tokenizer.ggml.unknown_token_id", "u32", f["unk"])]
    path = env.path("spm.gguf")
    make_gguf_models.tiny_llama_gguf(path, len(f["tokens"]), meta)
    # SentencePiece reads "<s>" in a text as characters; Hugging Face's tokenizers (and
    # llama.cpp when it parses specials) split control tokens out first, as attn-viz does.
    plain = [k for k, t in enumerate(f["texts"]) if "<s>" not in t]
    check_ids(env, path, dict(f, texts=[f["texts"][k] for k in plain],
                                ids=[f["ids"][k] for k in plain]))
    out = env.path("spm-specials")
    env.run("model", "--model", path, "--text", "<s> inside </s> text", "--npy", out, "-q")
    got = np.load(os.path.join(out, "token_ids.npy")).tolist()
    assert got[:2] == [1, 1] and got.count(2) == 1, got


def test_bos_and_eos_flags(env):
    """add_bos_token / add_eos_token put the ids of bos_token_id / eos_token_id around the text
    (SentencePiece models add BOS unless told not to; byte-level ones only when told)."""
    f = json.load(open(os.path.join(env.data, "gguf", "spm_bpe.json"), encoding="utf-8"))
    base = [("tokenizer.ggml.model", "string", "llama"),
            ("tokenizer.ggml.tokens", ("array", "string"), f["tokens"]),
            ("tokenizer.ggml.scores", ("array", "f32"), f["scores"]),
            ("tokenizer.ggml.token_type", ("array", "i32"), f["types"]),
            ("tokenizer.ggml.bos_token_id", "u32", 1), ("tokenizer.ggml.eos_token_id", "u32", 2)]
    plain = f["ids"][0][1:]  # "Hello world" without <s>
    for flags, want in (([], [1] + plain),
                        ([("tokenizer.ggml.add_bos_token", "bool", False)], plain),
                        ([("tokenizer.ggml.add_eos_token", "bool", True)], [1] + plain + [2]),
                        ([("tokenizer.ggml.add_bos_token", "bool", False),
                          ("tokenizer.ggml.add_eos_token", "bool", True)], plain + [2])):
        path = env.path(f"flags-{len(flags)}-{hash(str(flags)) & 0xffff}.gguf")
        make_gguf_models.tiny_llama_gguf(path, len(f["tokens"]), base + flags)
        out = path + ".out"
        env.run("model", "--model", path, "--text", f["texts"][0], "--npy", out, "-q")
        assert np.load(os.path.join(out, "token_ids.npy")).tolist() == want, (flags, want)


def test_gpt2s_pre_tokenizer_from_the_metadata_matches_gpt_3_encoder(env):
    src = os.path.join(env.data, "tokenizers")
    vocab = json.loads(gzip.open(os.path.join(src, "gpt2", "vocab.json.gz")).read())
    merges = [l for l in gzip.open(os.path.join(src, "gpt2", "merges.txt.gz")).read()
              .decode("utf-8").split("\n")[1:] if l]
    tok = {"model": {"vocab": vocab, "merges": merges}, "added_tokens": [
        {"id": vocab["<|endoftext|>"], "content": "<|endoftext|>", "special": True}]}
    meta, n = make_gguf_models.tokenizer_metadata(tok, "gpt-2")
    path = env.path("gpt2-pre.gguf")
    make_gguf_models.tiny_llama_gguf(path, n, meta)
    check_ids(env, path, json.load(open(os.path.join(src, "gpt2_ids.json"), encoding="utf-8")))


NPM_TYPES = {"UINT8": "u8", "INT8": "i8", "UINT16": "u16", "INT16": "i16", "UINT32": "u32",
             "INT32": "i32", "FLOAT32": "f32", "BOOL": "bool", "STRING": "string", "ARRAY": "array",
             "UINT64": "u64", "INT64": "i64", "FLOAT64": "f64"}


def same_value(vtype, want, got):
    if isinstance(vtype, tuple):
        return len(want) == len(got) and all(same_value(vtype[1], w, g) for w, g in zip(want, got))
    if vtype in ("f32", "f64"):
        return np.float32(want) == np.float32(got) if vtype == "f32" else float(want) == float(got)
    if vtype in ("u64", "i64"):
        return int(want) == int(got)
    return want == got


def test_the_writer_agrees_with_huggingface_gguf(env):
    """tests/data/gguf/npm_readback.json: the writer's files as npm's @huggingface/gguf read them
    (check_gguf_with_npm.mjs). The same bytes again, and every key, value type, value, tensor
    name, shape, type and offset as the writer meant them."""
    npm = json.load(open(os.path.join(env.data, "gguf", "npm_readback.json"), encoding="utf-8"))
    root = models(env)
    case = make_gguf_models.CASES["llama_gqa"]
    tensors, config = make_gguf_models.make_checkpoint(env.path("npm-ckpt"), case, 0)
    for name, seen in npm["files"].items():
        path = os.path.join(env.data, "gguf", name) if name == "blocks.gguf" else os.path.join(root, name)
        assert hashlib.sha256(open(path, "rb").read()).hexdigest() == seen["sha256"], name
        if name == "blocks.gguf":
            continue  # its keys and tensors: unit.params.gguf
        wtype = name.split(".")[1]
        meta = make_gguf_models.metadata_of(config, "llama", wtype, "llama_gqa")
        for key, vtype, value in meta:
            got = seen["metadata"][key]
            want_type = "array" if isinstance(vtype, tuple) else vtype
            assert NPM_TYPES[got["type"]] == want_type, (name, key, got["type"])
            assert same_value(vtype, value, got["value"]), (name, key, value, got["value"])
        written = make_gguf_models.gguf_tensors(tensors, config, "llama", wtype)
        assert [t["name"] for t in seen["tensors"]] == [t[0] for t in written], name
        offset = 0
        for t, (tname, ttype, a) in zip(seen["tensors"], written):
            assert t["dims"] == list(reversed(a.shape)) and t["type"] == ttype, (name, t)
            assert t["offset"] == offset, (name, t, offset)
            nbytes = len(gguf_writer.quantize(ttype, a.reshape(-1)))
            offset += (nbytes + 31) // 32 * 32
    print(f"  {len(npm['files'])} files: {npm['producer']} reads what the writer wrote")


def write(env, name, metadata, tensors):
    path = env.path(name)
    gguf_writer.write_gguf(path, metadata, tensors)
    return path


def test_refusals_name_the_file_and_what_was_wrong(env):
    root = models(env)
    c = make_gguf_models.CASES["llama_gqa"]
    tensors, config = make_gguf_models.make_checkpoint(env.path("refusal-ckpt"), c, 3)
    meta = make_gguf_models.metadata_of(config, "llama", "F32", "r")
    full = make_gguf_models.gguf_tensors(tensors, config, "llama", "F32")
    cases = [
        (write(env, "mamba.gguf", [("general.architecture", "string", "mamba")] + meta[1:], full),
         "holds a model of architecture 'mamba', which attn-viz does not run from GGUF (it runs "
         "llama, qwen2, gemma, gemma2, phi3, gpt2, gptneox, falcon)"),
        (write(env, "missing.gguf", meta, [t for t in full if t[0] != "blk.1.ffn_up.weight"]),
         "has no tensor 'blk.1.ffn_up.weight' [512, 256] (the model's metadata says it needs one)"),
        (write(env, "nolayers.gguf", [m for m in meta if m[0] != "llama.block_count"], full),
         "has no metadata 'llama.block_count'"),
        (write(env, "split.gguf", meta + [("split.no", "u16", 1), ("split.count", "u16", 3)], full),
         "is part 2 of a GGUF model split in 3 files; merge them first"),
        (write(env, "longrope.gguf", meta, full + [("rope_factors_long.weight", "F32",
                                                   np.ones(32, np.float32))]),
         "holds tensor 'rope_factors_long.weight', which attn-viz does not run for architecture "
         "'llama'"),
    ]
    for path, want in cases:
        _, err = env.run("model", "--model", path, "--ids", "1,2", expect=2)
        assert want in err and path in err, err
    two = env.path("two-ggufs")
    os.makedirs(two)
    for name in ("b.gguf", "a.gguf"):
        shutil.copy(os.path.join(root, "llama_gqa.F32.gguf"), os.path.join(two, name))
    _, err = env.run("model", "--model", two, "--ids", "1,2", expect=2)
    assert "holds 2 .gguf files (a.gguf, b.gguf): give the one to run as --model" in err, err
    # A type attn-viz does not read: refused by ggml's name, with the byte offset.
    data = bytearray(open(os.path.join(root, "llama_gqa.F32.gguf"), "rb").read())
    at = data.index(b"blk.0.attn_q.weight") + len(b"blk.0.attn_q.weight")
    at += 4 + 2 * 8  # n_dims, dims
    data[at:at + 4] = (16).to_bytes(4, "little")  # IQ2_XXS
    iq = env.path("iq.gguf")
    open(iq, "wb").write(bytes(data))
    _, err = env.run("model", "--model", iq, "--ids", "1,2", expect=2)
    assert "tensor 'blk.0.attn_q.weight' is IQ2_XXS, which attn-viz does not read" in err, err
    assert "(byte " in err, err
    cut = env.path("cut.gguf")
    open(cut, "wb").write(open(os.path.join(root, "llama_gqa.F32.gguf"), "rb").read()[:-1000])
    _, err = env.run("model", "--model", cut, "--ids", "1,2", expect=2)
    assert "tensor 'output.weight'" in err and "runs past the end of the file" in err, err


if __name__ == "__main__":
    main(globals())
