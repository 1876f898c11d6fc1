#!/usr/bin/env python3
"""Scores samples/rv-kjv-marian on the held-out verses (train_translation_model.py writes them):
how well it translates, and how well its cross attention aligns words, against the translators'
own alignment (Strong's numbers, bible_corpus.py), beside three baselines measured the same way:
the diagonal (target word j to source word round(j·m/n)), a checkpoint of the same shape with
random weights, and IBM Model 2 with fast_align's diagonal (ibm_model2.py, both directions,
trained on the whole Bible; skipped without diatheke); and `attn-viz align`'s readings, one
direction and, with samples/kjv-rv-marian (English -> Spanish), both. The two readings that take
a threshold on the two directions' product (IBM Model 2's posteriors, the models' maps) take it
from a grid at the value that scores best on dev verses — every hundredth verse of the training
books, gold from the same Strong's numbers — never from the held-out verses.

    /usr/bin/python3 samples/translation/evaluate_translation.py [--exe build/attn-viz]

Every map comes from attn-viz: one teacher-forced run per verse (--npy) gives the cross
attention, from which every layer's and head's word alignment is scored here (argmax per target
word, the rule attn-viz's --align uses); the all-heads, best-layer and best-head figures are then
measured again by attn-viz itself (--align, --gold) and must agree. Translations are attn-viz's
greedy ones (--max-new 160), scored with chrF (Popović 2015: character 1- to 6-grams, β = 2,
spaces left out, statistics summed over the corpus). Writes samples/translation/evaluation.json
and prints a table; into each model's alignment.json it writes the readings the dev verses chose
(the model alone; both with the product's threshold), which attn-viz align then takes by default.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MARK = "\u2581"


def lines(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f]


def gold_sets(line):
    sure, possible = set(), set()
    for item in line.split():
        if "?" in item:
            i, j = item.split("?")
            possible.add((int(i), int(j)))
        else:
            i, j = item.split("-")[:2]
            (possible if item.endswith("-P") else sure).add((int(i), int(j)))
    return sure, possible | sure


def word_spans(tokens):
    """As attn-viz groups pieces (analysis/subwords.h), specials left out."""
    spans = []
    for k, t in enumerate(tokens):
        if t.startswith("<") and t.endswith(">"):
            continue
        if t.startswith(MARK) or not spans or spans[-1][1] != k:
            spans.append([k, k + 1])
        else:
            spans[-1][1] = k + 1
    return spans


def word_matrix(cross, rows, cols):
    """cross: nt × ns; target rows averaged, source columns summed per word."""
    summed = np.stack([cross[:, c0:c1].sum(1) for c0, c1 in cols], axis=1)
    return np.stack([summed[r0:r1].mean(0) for r0, r1 in rows])


def argmax_pairs(m):
    return {(int(np.argmax(m[j])), j) for j in range(m.shape[0])}


class Counts:
    def __init__(self):
        self.a = self.s = self.a_s = self.a_p = 0

    def add(self, pairs, sure, possible):
        self.a += len(pairs)
        self.s += len(sure)
        self.a_s += len(pairs & sure)
        self.a_p += len(pairs & possible)

    def aer(self):
        return 1 - (self.a_s + self.a_p) / (self.a + self.s)

    def row(self):
        return {"aer": round(self.aer(), 4), "precision": round(self.a_p / max(1, self.a), 4),
                "recall": round(self.a_s / max(1, self.s), 4)}


def chrf(hypotheses, references, n_max=6, beta=2.0):
    stats = np.zeros((n_max, 3))  # matches, hypothesis n-grams, reference n-grams
    for h, r in zip(hypotheses, references):
        h, r = h.replace(" ", ""), r.replace(" ", "")
        for n in range(1, n_max + 1):
            hc = Counter(h[i:i + n] for i in range(len(h) - n + 1))
            rc = Counter(r[i:i + n] for i in range(len(r) - n + 1))
            stats[n - 1] += (sum((hc & rc).values()), sum(hc.values()), sum(rc.values()))
    p = np.mean([m / hn if hn else 0 for m, hn, _ in stats])
    rec = np.mean([m / rn if rn else 0 for m, _, rn in stats])
    return 100 * (1 + beta ** 2) * p * rec / (beta ** 2 * p + rec) if p + rec else 0.0


def write_json(path, value, **dump):
    """The file written whole or not at all: a temporary beside it, renamed on success."""
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(value, f, **dump)
    os.replace(path + ".tmp", path)


def run(exe, *args):
    return subprocess.run([exe, *args], capture_output=True, text=True, check=True).stdout


def random_checkpoint(model, folder):
    """The same folder with every tensor redrawn: N(0, 0.02) matrices, unit norms, zero biases."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
    from formats import read_safetensors, write_safetensors
    shutil.copytree(model, folder)
    rng = np.random.default_rng(0)
    t = read_safetensors(os.path.join(model, "model.safetensors"))
    for name, a in t.items():
        if name.endswith("layer_norm.weight"):
            t[name] = np.ones_like(a)
        elif name.endswith(".bias") or name == "final_logits_bias":
            t[name] = np.zeros_like(a)
        else:
            t[name] = rng.normal(0, 0.02, a.shape)
    write_safetensors(os.path.join(folder, "model.safetensors"), t, "F16")


def score_model(exe, model, es, en, gold, work):
    """Per verse one teacher-forced run; every layer's and head's argmax alignment scored."""
    cfg = json.load(open(os.path.join(model, "config.json")))
    L, H = cfg["decoder_layers"], cfg["decoder_attention_heads"]
    counts = {"all": Counts(), **{f"layer {l}": Counts() for l in range(L)},
              **{f"layer {l} head {h}": Counts() for l in range(L) for h in range(H)}}
    diagonal, skipped = Counts(), 0
    for k, (src, tgt, g) in enumerate(zip(es, en, gold)):
        out = os.path.join(work, f"v{k}")
        run(exe, "model", "--model", model, "--text", src, "--target", tgt, "--npy", out, "-q")
        cross = np.load(os.path.join(out, "cross_attention.npy")).astype(np.float64)
        rows = word_spans(json.load(open(os.path.join(out, "target_tokens.json"), encoding="utf-8")))
        cols = word_spans(json.load(open(os.path.join(out, "source_tokens.json"), encoding="utf-8")))
        if len(rows) != len(tgt.split()) or len(cols) != len(src.split()):
            skipped += 1
            continue
        sure, possible = gold_sets(g)
        counts["all"].add(argmax_pairs(word_matrix(cross.mean((0, 1)), rows, cols)), sure, possible)
        for l in range(L):
            counts[f"layer {l}"].add(argmax_pairs(word_matrix(cross[l].mean(0), rows, cols)), sure, possible)
            for h in range(H):
                counts[f"layer {l} head {h}"].add(argmax_pairs(word_matrix(cross[l, h], rows, cols)),
                                                  sure, possible)
        m, n = len(cols), len(rows)
        diagonal.add({(min(m - 1, int(math.floor(j * m / n + 0.5))), j) for j in range(n)}, sure, possible)
        shutil.rmtree(out)
    return counts, diagonal, skipped


def attnviz_aer(exe, model, es, en, gold, work, layers=None, heads=None):
    """The same alignment measured by attn-viz itself: --align and --gold per verse, summed."""
    c = Counts()
    for k, (src, tgt, g) in enumerate(zip(es, en, gold)):
        path = os.path.join(work, "gold.txt")
        with open(path, "w") as f:
            f.write(g + "\n")
        args = ["model", "--model", model, "--text", src, "--target", tgt, "--gold", path, "-q"]
        args += (["--layers", layers] if layers else []) + (["--heads", heads] if heads else [])
        line = [l for l in run(exe, *args).splitlines() if l.startswith("alignment (")][0]
        # "… AER 0.412 (12 pairs predicted, 9 of them sure or possible in the gold; 6 of its 7
        # sure pairs found)"
        counts = line.rsplit("(", 1)[1].replace(";", " ").replace(")", " ").replace(",", " ")
        a, a_p, a_s, s = [int(x) for x in counts.split() if x.isdigit()]
        c.a, c.a_p, c.a_s, c.s = c.a + a, c.a_p + a_p, c.a_s + a_s, c.s + s
    return c


THRESHOLDS = (0.02, 0.05, 0.1, 0.25, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99)  # the grid the dev verses choose from


def bible():
    """(every verse pair of the Bible, the dev verses) or (None, None) without diatheke and the
    SWORD modules (bible_corpus.py). The dev verses are every hundredth verse of the training
    books, (key, Spanish words, English words, gold sets): the thresholds of the posterior
    readings are chosen on them, never on the held-out verses."""
    import bible_corpus
    try:
        corpus = bible_corpus.corpus()
    except (OSError, subprocess.CalledProcessError):
        return None, None
    held = set(bible_corpus.HELD_OUT)
    dev = []
    _, dev_verses = bible_corpus.dev_split([v for v in corpus if v[0][0] not in held])
    for key, es_markup, en_markup in dev_verses:
        sure, possible = bible_corpus.gold(es_markup, en_markup)
        dev.append((f"{key[0]} {key[1]}:{key[2]}", bible_corpus.plain(es_markup),
                    bible_corpus.plain(en_markup), (set(sure), set(sure) | set(possible))))
    return corpus, dev


def scored(links, golds):
    c = Counts()
    for l, (sure, possible) in zip(links, golds):
        c.add(l, sure, possible)
    return c


def ibm2_baseline(corpus, dev, keys, gold):
    """IBM Model 2 with fast_align's diagonal (ibm_model2.py), both directions trained on every
    verse pair of the Bible (the held-out ones included: an unsupervised aligner sees the text it
    aligns, as fast_align is run), scored on the held-out verses; posterior decoding at the
    threshold the dev verses choose. {} without the corpus."""
    import bible_corpus
    import ibm_model2
    if corpus is None:
        return {}, None
    index = {f"{k[0]} {k[1]}:{k[2]}": n for n, (k, _, _) in enumerate(corpus)}
    pairs = [(bible_corpus.plain(e).split(), bible_corpus.plain(g).split()) for _, e, g in corpus]
    al = ibm_model2.align(pairs)
    golds = [gold_sets(g) for g in gold]
    held = [index[k] for k in keys]
    pick = lambda links: [links[n] for n in held]  # noqa: E731
    out = {}
    for name, links in (("forward", al.forward), ("reverse", al.reverse), ("intersect", al.intersect()),
                        ("grow-diag-final-and", al.joined)):
        out[f"IBM Model 2 (fast_align's diagonal), {name}"] = scored(pick(links), golds)
    dev_rows = [index[k] for k, _, _, _ in dev]
    dev_aer = {t: scored([ibm_model2.posterior_links([al.products[n]], t)[0] for n in dev_rows],
                         [g for _, _, _, g in dev]).aer() for t in THRESHOLDS}
    best = min(THRESHOLDS, key=lambda t: (dev_aer[t], t))
    links = ibm_model2.posterior_links([al.products[n] for n in held], best)
    out[f"IBM Model 2 (fast_align's diagonal), both directions' posteriors multiplied > {best} "
        f"(chosen on the dev verses)"] = scored(links, golds)
    return out, {"IBM Model 2 posterior threshold": {str(t): round(v, 4) for t, v in dev_aer.items()}}


def align_readings(reverse):
    """attn-viz align's readings scored in the table: (name, flags), each model read at its
    alignment.json's layer and head; with the reverse model, both directions. The thresholds
    are fixed in advance, not tuned on the held-out verses: a word aligned where it holds at
    least half the row's weight (0.5), with two directions half of each (0.25 on the product)."""
    rows = [("align (argmax)", ["--extract", "argmax"]),
            ("align --extract argmax-null", ["--extract", "argmax-null"]),
            ("align --method alti", ["--method", "alti", "--extract", "argmax"]),
            ("align --extract threshold --threshold 0.5", ["--extract", "threshold", "--threshold", "0.5"])]
    if reverse:
        both = ["--reverse-model", reverse]
        for sym in ("intersect", "grow-diag-final-and"):
            rows += [(f"align, both directions, --symmetrize {sym}", both + ["--symmetrize", sym]),
                     (f"align, both directions, --extract argmax-null --symmetrize {sym}",
                      both + ["--extract", "argmax-null", "--symmetrize", sym])]
        rows.append(("align, both directions, --extract threshold --threshold 0.25 (on the product)",
                     both + ["--extract", "threshold", "--threshold", "0.25"]))
    return rows


def align_links(exe, model, extra, es, en, work):
    """attn-viz align's links for each pair of (es, en) lines, as sets of (source, target)."""
    src, tgt = os.path.join(work, "a.es"), os.path.join(work, "a.en")
    with open(src, "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in es))
    with open(tgt, "w", encoding="utf-8") as f:
        f.write("".join(l + "\n" for l in en))
    out = run(exe, "align", "--model", model, "--source", src, "--target", tgt, "-q", *extra)
    return [{tuple(map(int, p.split("-"))) for p in line.split()} for line in out.splitlines()]


def align_rows(exe, model, reverse, es, en, gold, dev, work):
    """attn-viz align's readings on the held-out verses, scored here; with the reverse model and
    the dev verses, also the threshold on the two maps' product at the value the dev verses
    choose (as IBM Model 2's posterior decoding is chosen)."""
    golds = [gold_sets(g) for g in gold]
    rows = {name: scored(align_links(exe, model, extra, es, en, work), golds)
            for name, extra in align_readings(reverse)}
    if not (reverse and dev):
        return rows, None
    both = ["--reverse-model", reverse, "--extract", "threshold", "--threshold"]
    dev_es, dev_en, dev_gold = [d[1] for d in dev], [d[2] for d in dev], [d[3] for d in dev]
    dev_aer = {t: scored(align_links(exe, model, both + [str(t)], dev_es, dev_en, work), dev_gold).aer()
               for t in THRESHOLDS}
    best = min(THRESHOLDS, key=lambda t: (dev_aer[t], t))
    rows[f"align, both directions, --extract threshold --threshold {best} (on the product; chosen "
         f"on the dev verses)"] = scored(align_links(exe, model, both + [str(best)], es, en, work), golds)
    return rows, {"align threshold on the product": {str(t): round(v, 4) for t, v in dev_aer.items()}}


def one_direction_reading(exe, model, dev, reverse_side, work):
    """The reading of one model alone that scores best on the dev verses: argmax, argmax-null or a
    threshold from the grid (the English -> Spanish model on the same verses turned round)."""
    es, en, gold = [d[1] for d in dev], [d[2] for d in dev], [d[3] for d in dev]
    if reverse_side:
        es, en = en, es
        gold = [({(j, i) for i, j in s}, {(j, i) for i, j in p}) for s, p in gold]
    flags = {"argmax": ["--extract", "argmax"], "argmax-null": ["--extract", "argmax-null"],
             **{f"threshold {t}": ["--extract", "threshold", "--threshold", str(t)] for t in THRESHOLDS}}
    dev_aer = {name: scored(align_links(exe, model, f, es, en, work), gold).aer() for name, f in flags.items()}
    best = min(flags, key=lambda name: (dev_aer[name], name))
    reading = ({"extract": "threshold", "threshold": float(best.split()[1])} if best.startswith("threshold")
               else {"extract": best})
    return reading, {k: round(v, 4) for k, v in dev_aer.items()}


def save_readings(exe, model, reverse, dev, product_threshold):
    """Each model folder's alignment.json gains the readings the dev verses chose, which
    attn-viz align takes when given no --extract, --threshold or --symmetrize: the model alone,
    and with the other direction (the threshold on the two maps' product: the same pairs whichever
    model is read first). Returns the dev figures."""
    work = tempfile.mkdtemp()
    figures = {}
    try:
        for folder, turned in ((model, False), (reverse, True)):
            reading, figures[os.path.basename(folder)] = one_direction_reading(exe, folder, dev, turned, work)
            path = os.path.join(folder, "alignment.json")
            saved = json.load(open(path)) if os.path.exists(path) else {}
            saved.update(reading)
            saved["with_reverse"] = {"extract": "threshold", "threshold": product_threshold}
            saved["reading_why"] = (f"the readings that scored best on {len(dev)} dev verses "
                                    "(samples/translation/evaluate_translation.py)")
            write_json(path, saved, indent=2)
    finally:
        shutil.rmtree(work)
    return figures


def translations(exe, model, sources):
    return [run(exe, "model", "--model", model, "--text", s, "--max-new", "160", "-q").splitlines()[1]
            for s in sources]


def dev_scores(exe, model, reverse, dev):
    """A candidate model scored on the dev verses alone (the held-out ones left for the shipped
    models): chrF of its greedy translations and AER of its guided head read by argmax-null and,
    with a reverse model, by the threshold on the two maps' product at each grid value — how
    sizes and recipes are chosen (--dev)."""
    es, en, gold = [d[1] for d in dev], [d[2] for d in dev], [d[3] for d in dev]
    work = tempfile.mkdtemp()
    try:
        out = {"verses": len(dev), "chrF": round(chrf(translations(exe, model, es), en), 2),
               "argmax-null": scored(align_links(exe, model, ["--extract", "argmax-null"], es, en, work),
                                     gold).row()}
        if reverse:
            both = ["--reverse-model", reverse, "--extract", "threshold", "--threshold"]
            out["threshold on the product"] = {
                str(t): scored(align_links(exe, model, both + [str(t)], es, en, work), gold).row()
                for t in THRESHOLDS}
    finally:
        shutil.rmtree(work)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "attn-viz"))
    ap.add_argument("--model", default=os.path.join(ROOT, "samples", "rv-kjv-marian"))
    ap.add_argument("--reverse-model", help="the English -> Spanish model, skipped if absent "
                    "[default: samples/kjv-rv-marian; with --dev, none]")
    ap.add_argument("--limit", type=int, default=0, help="only the first N verses (a quick look; "
                    "evaluation.json is then not written)")
    ap.add_argument("--dev", action="store_true", help="score --model (and --reverse-model) on the "
                    "dev verses only, print JSON (choosing a size or a recipe; evaluation.json untouched)")
    a = ap.parse_args()
    if a.dev:  # a candidate alone unless a reverse model is named
        _, dev = bible()
        if dev is None:
            sys.exit("--dev needs the Bible: apt-get install diatheke sword-text-sparv sword-text-kjv")
        reverse = a.reverse_model if a.reverse_model and os.path.isdir(a.reverse_model) else None
        print(json.dumps(dev_scores(a.exe, a.model, reverse, dev), indent=1))
        return
    es, en, gold, keys = lines("heldout.es"), lines("heldout.en"), lines("heldout.gold"), lines("heldout.keys")
    if a.limit:
        es, en, gold, keys = es[:a.limit], en[:a.limit], gold[:a.limit], keys[:a.limit]
    work = tempfile.mkdtemp()
    try:
        random_model = os.path.join(work, "random")
        random_checkpoint(a.model, random_model)
        trained, diagonal, skipped = score_model(a.exe, a.model, es, en, gold, work)
        rand, _, _ = score_model(a.exe, random_model, es, en, gold, work)
        layers = [k for k in trained if k.startswith("layer ") and "head" not in k]
        heads = [k for k in trained if "head" in k]
        best_layer = min(layers, key=lambda k: trained[k].aer())
        best_head = min(heads, key=lambda k: trained[k].aer())
        checks = {"all": attnviz_aer(a.exe, a.model, es, en, gold, work),
                  best_layer: attnviz_aer(a.exe, a.model, es, en, gold, work, best_layer.split()[1]),
                  best_head: attnviz_aer(a.exe, a.model, es, en, gold, work, best_head.split()[1],
                                         best_head.split()[3])}
        for k, c in checks.items():
            assert abs(c.aer() - trained[k].aer()) < 1e-9, (k, c.aer(), trained[k].aer())
        a.reverse_model = a.reverse_model or os.path.join(ROOT, "samples", "kjv-rv-marian")
        reverse = a.reverse_model if os.path.isdir(a.reverse_model) else None
        corpus, dev = bible()
        aligned, align_dev = align_rows(a.exe, a.model, reverse, es, en, gold, dev, work)
        hyps = translations(a.exe, a.model, es)
        back = translations(a.exe, reverse, en) if reverse else None
    finally:
        shutil.rmtree(work)
    readings_dev = None
    if align_dev and not a.limit:  # both models and the dev verses: their readings saved
        product = align_dev["align threshold on the product"]
        best = min(product, key=lambda t: (product[t], float(t)))
        readings_dev = save_readings(a.exe, a.model, reverse, dev, float(best))
    baseline, baseline_dev = ibm2_baseline(corpus, dev, keys, gold)
    result = {
        "held_out_verses": len(es), "verses_scored": len(es) - skipped,
        "chrF": round(chrf(hyps, en), 2),
        **({"chrF English -> Spanish": round(chrf(back, es), 2)} if back else {}),
        "aer": {"all heads averaged": trained["all"].row(), f"best layer ({best_layer})": trained[best_layer].row(),
                f"best head ({best_head})": trained[best_head].row(), "diagonal": diagonal.row(),
                "random checkpoint, all heads": rand["all"].row(),
                "random checkpoint, best head": min((rand[k] for k in heads), key=Counts.aer).row(),
                **{k: c.row() for k, c in aligned.items()}, **{k: c.row() for k, c in baseline.items()}},
        "every layer and head": {k: trained[k].row() for k in layers + heads},
        **({"dev verses": {"verses": len(dev), "AER at each threshold": {**(align_dev or {}),
                                                                     **(baseline_dev or {})},
                           **({"each model alone (saved in alignment.json)": readings_dev}
                              if readings_dev else {})}}
           if dev else {}),
        "best_layer": int(best_layer.split()[1]), "best_head": [int(best_head.split()[1]), int(best_head.split()[3])],
        "examples": [{"verse": keys[i], "source": es[i], "reference": en[i], "attn-viz": hyps[i]}
                     for i in (0, 100, 200) if i < len(es)],
    }
    if not a.limit:
        write_json(os.path.join(HERE, "evaluation.json"), result, indent=1, ensure_ascii=False)
    print(f"held-out verses {len(es)} (scored {len(es) - skipped}); chrF {result['chrF']}"
          + (f", English -> Spanish {result['chrF English -> Spanish']}" if back else ""))
    for k, v in result["aer"].items():
        print(f"  {k:<32} AER {v['aer']:.3f}  precision {v['precision']:.3f}  recall {v['recall']:.3f}")


if __name__ == "__main__":
    main()
