#!/usr/bin/env python3
"""The translation model in the box (samples/rv-kjv-marian, trained by
samples/translation/train_translation_model.py on the Reina-Valera 1909 and the King James
Version, Debian's SWORD modules): on held-out verses its cross attention aligns words better
than the diagonal and than a random checkpoint of the same shape, scored by attn-viz's own
--gold against the translators' Strong's-number alignment (samples/translation/heldout.gold);
with the English -> Spanish model (samples/kjv-rv-marian) and their guided heads, both
directions intersected align better still; it translates the first held-out verse into English
words; and its tokenizers are Marian's (python3-sentencepiece + vocab.json give the same
ids)."""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Skipped, import_numpy, main, sanitized  # noqa: E402

np = import_numpy()
# of the 209 held out: enough for stable counts, quick enough for a test (fewer under the
# sanitizers, where each run is several times slower)
VERSES = 40


def verses(env):
    return 30 if sanitized(env.exe) else VERSES


def folder(env):
    return os.path.join(env.samples, "rv-kjv-marian")


def heldout(env, name):
    with open(os.path.join(env.samples, "translation", name), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f][:verses(env)]


def aer_of(env, model, layers=None):
    """attn-viz's --gold counts summed over the verses: (AER, precision, recall)."""
    total = [0, 0, 0, 0]  # predicted, sure-or-possible hits, sure hits, sure
    gold_path = env.path("gold.txt")
    for es, en, gold in zip(heldout(env, "heldout.es"), heldout(env, "heldout.en"), heldout(env, "heldout.gold")):
        with open(gold_path, "w") as f:
            f.write(gold + "\n")
        args = ["model", "--model", model, "--text", es, "--target", en, "--gold", gold_path, "-q"]
        stdout, _ = env.run(*args + (["--layers", str(layers)] if layers is not None else []))
        line = [l for l in stdout.splitlines() if l.startswith("alignment (")][0]
        counts = line.rsplit("(", 1)[1].replace(";", " ").replace(")", " ").replace(",", " ")
        for k, v in enumerate(int(x) for x in counts.split() if x.isdigit()):
            total[k] += v
    a, a_p, a_s, s = total
    return 1 - (a_s + a_p) / (a + s), a_p / a, a_s / s


def diagonal_aer(env):
    """Target word j to source word round(j·m/n), scored the same way."""
    a = a_p = a_s = s = 0
    for es, en, gold in zip(heldout(env, "heldout.es"), heldout(env, "heldout.en"), heldout(env, "heldout.gold")):
        m, n = len(es.split()), len(en.split())
        pairs = {(min(m - 1, int(math.floor(j * m / n + 0.5))), j) for j in range(n)}
        sure, possible = set(), set()
        for item in gold.split():
            i, j = (int(x) for x in item.replace("?", "-").split("-")[:2])
            (possible if "?" in item or item.endswith("-P") else sure).add((i, j))
        possible |= sure
        a, a_p, a_s, s = a + len(pairs), a_p + len(pairs & possible), a_s + len(pairs & sure), s + len(sure)
    return 1 - (a_s + a_p) / (a + s)


def random_copy(env):
    """The same folder with every tensor redrawn, as the evaluation script makes its baseline."""
    sys.path.insert(0, os.path.join(env.samples, "translation"))
    from evaluate_translation import random_checkpoint
    path = env.path("random-marian")
    random_checkpoint(folder(env), path)
    return path


def test_the_trained_model_aligns_better_than_the_baselines(env):
    evaluation = json.load(open(os.path.join(env.samples, "translation", "evaluation.json")))
    best = evaluation["best_layer"]
    trained_all = aer_of(env, folder(env))
    trained_best = aer_of(env, folder(env), best)
    random_all = aer_of(env, random_copy(env))
    diagonal = diagonal_aer(env)
    print(f"  {verses(env)} held-out verses: AER trained, all heads {trained_all[0]:.3f} (precision "
          f"{trained_all[1]:.3f}, recall {trained_all[2]:.3f}); trained, layer {best} "
          f"{trained_best[0]:.3f}; diagonal {diagonal:.3f}; random checkpoint {random_all[0]:.3f}")
    assert trained_best[0] < diagonal and trained_best[0] < random_all[0]
    assert trained_all[0] < random_all[0]


def align_aer(env, *flags):
    """attn-viz align over the held-out verses, scored here: (AER, precision, recall)."""
    src, tgt = env.path("held.es"), env.path("held.en")
    for path, name in ((src, "heldout.es"), (tgt, "heldout.en")):
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in heldout(env, name)))
    out, _ = env.run("align", "--model", folder(env), "--source", src, "--target", tgt, "-q", *flags)
    a = a_p = a_s = s = 0
    for line, gold in zip(out.splitlines(), heldout(env, "heldout.gold")):
        pairs = {tuple(int(x) for x in p.split("-")) for p in line.split()}
        sure, possible = set(), set()
        for item in gold.split():
            i, j = (int(x) for x in item.replace("?", "-").split("-")[:2])
            (possible if "?" in item else sure).add((i, j))
        possible |= sure
        a, a_p, a_s, s = a + len(pairs), a_p + len(pairs & possible), a_s + len(pairs & sure), s + len(sure)
    return 1 - (a_s + a_p) / (a + s), a_p / max(1, a), a_s / s


def test_the_guided_heads_of_both_directions_align_best(env):
    """The models' alignment.json head (trained towards word links) read in both directions
    and intersected aligns better than the plain average of every head, and than one
    direction alone, each by argmax; the readings alignment.json saves (argmax-null alone, the
    threshold on the two maps' product with both) do better than argmax, and the saved reading
    of both directions best of all."""
    reverse = os.path.join(env.samples, "kjv-rv-marian")
    every = align_aer(env, "--layers", "0-2", "--heads", "0-3", "--extract", "argmax")
    guided = align_aer(env, "--extract", "argmax")
    both = align_aer(env, "--reverse-model", reverse, "--symmetrize", "intersect")
    saved_alone = align_aer(env)
    saved_both = align_aer(env, "--reverse-model", reverse)
    print(f"  {verses(env)} held-out verses: AER every head {every[0]:.3f}, the guided head "
          f"{guided[0]:.3f}, both directions intersected {both[0]:.3f} (precision {both[1]:.3f}, "
          f"recall {both[2]:.3f}); saved readings: alone {saved_alone[0]:.3f}, both "
          f"{saved_both[0]:.3f} (precision {saved_both[1]:.3f}, recall {saved_both[2]:.3f})")
    assert both[0] < guided[0] and both[0] < every[0]
    assert saved_alone[0] < guided[0]
    assert saved_both[0] < min(both[0], saved_alone[0], every[0])


def test_it_translates_and_its_tokenizers_are_marians(env):
    es = heldout(env, "heldout.es")[0]
    out = env.path("generated")
    stdout, _ = env.run("model", "--model", folder(env), "--text", es, "--max-new", "120", "--npy", out, "-q")
    text = stdout.splitlines()[1]
    reference = heldout(env, "heldout.en")[0]
    shared = set(text.lower().split()) & set(reference.lower().split())
    print(f"  {es}\n  -> {text}\n  words shared with the KJV's: {len(shared)}")
    assert len(shared) >= 5, (text, reference)
    try:
        import sentencepiece as spm
    except ImportError:
        return
    vocab = json.load(open(os.path.join(folder(env), "vocab.json"), encoding="utf-8"))
    sp = spm.SentencePieceProcessor(model_file=os.path.join(folder(env), "source.spm"))
    want = [vocab.get(p, vocab["<unk>"]) for p in sp.encode(es, out_type=str)] + [vocab["</s>"]]
    assert np.load(os.path.join(out, "source_ids.npy")).tolist() == want


def test_training_sizes_and_dev_verses(env):
    """train_translation_model.py's --size takes only the model's shape keys (d a multiple of
    the heads); --hold-dev leaves out exactly the verses evaluate_translation.py --dev scores
    (every hundredth of the training books, bible_corpus.dev_split), so a size is chosen on verses
    it never trained on."""
    sys.path.insert(0, os.path.join(env.samples, "translation"))
    try:
        import train_translation_model as train
    except ImportError as e:  # torch or sentencepiece missing
        raise Skipped(f"train_translation_model.py needs {e.name}")
    import argparse
    from bible_corpus import dev_split
    assert train.model_size("d=256,encoder_layers=4,ffn=1024") == {"d": 256, "encoder_layers": 4,
                                                                    "ffn": 1024}
    for bad in ("d=250", "vocab_each=100", "d=0", "heads=x", "d"):
        try:
            train.model_size(bad)
        except argparse.ArgumentTypeError:
            continue
        raise AssertionError(f"--size {bad} accepted")
    verses = [(("Genesis", 1, k), f"es {k}", f"en {k}") for k in range(1, 351)]
    rest, dev = dev_split(verses)
    assert [v[0][2] for v in dev] == [1, 101, 201, 301]
    assert len(rest) == 346 and not set(rest) & set(dev) and sorted(rest + dev) == sorted(verses)


if __name__ == "__main__":
    sys.exit(main(globals()))
