#!/usr/bin/env python3
"""Does the attention find the object? The pointing test of the bundled vision model
(samples/shapes-vit) on held-out synthetic scenes whose target masks are known
(samples/vision/shapes.py), run through attn-viz itself:

  /usr/bin/python3 samples/vision/pointing_test.py --exe build/attn-viz [--count 300]

For every reading of the CLS query's attention -- each layer and head, each layer's mean over
its heads, the rollout through every layer -- under each measure (weights, norms, contrib,
alti), over the patches:
  pointing   the share of scenes whose largest patch value lies on the target: its patch
             holds at least one pixel of the target's mask (the "pointing game")
  mass       the mean share of the map's total on the target: sum_p v_p f_p / sum_p v_p, f_p the
             share of patch p's pixels inside the mask
beside two baselines that ignore the picture: the centre patch, and a random patch (its
expected pointing: the share of patches touching the target; its mass: the target's area).
Writes the table as JSON (--json) and prints the best readings.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shapes  # noqa: E402

MEASURES = ["weights", "norms", "contrib", "alti"]


def patch_fractions(mask, rows, cols):
    """f[r, c]: the share of patch (r, c)'s pixels inside the mask."""
    ph, pw = mask.shape[0] // rows, mask.shape[1] // cols
    return mask[:rows * ph, :cols * pw].reshape(rows, ph, cols, pw).mean((1, 3))


def scores(maps, fractions):
    """maps [S, R, C] and fractions [S, R, C] -> (pointing, mass)."""
    s = maps.shape[0]
    flat = maps.reshape(s, -1)
    hit = fractions.reshape(s, -1)[np.arange(s), flat.argmax(1)] > 0
    mass = (flat * fractions.reshape(s, -1)).sum(1) / np.maximum(flat.sum(1), 1e-30)
    return float(hit.mean()), float(mass.mean())


def run_measure(exe, model, listing, out, measure, rollout=()):
    argv = [exe, "model", "--model", model, "--images", listing, "--out-dir", out, "--formats",
            "npy", "--view", "rollout", "--quiet", *rollout]
    if measure != "weights":
        argv += ["--measure", measure]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def rollout_of(folders, first, S, R, C):
    return np.stack([np.load(os.path.join(os.path.dirname(f), "view.npy"))[0, first:]
                     for f in folders]).reshape(S, R, C)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exe", required=True)
    ap.add_argument("--model", default=os.path.join(os.path.dirname(HERE), "shapes-vit"))
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--json", help="write the table here")
    a = ap.parse_args()
    from PIL import Image
    work = tempfile.mkdtemp(prefix="attnviz-pointing-")
    seeds = range(shapes.HELD_OUT_FIRST, shapes.HELD_OUT_FIRST + a.count)
    masks, labels, names = [], [], []
    for seed in seeds:
        img, label, mask = shapes.scene(seed)
        name = f"s{seed}.png"
        Image.fromarray(img, "RGB").save(os.path.join(work, name))
        masks.append(mask)
        labels.append(label)
        names.append(name)
    listing = os.path.join(work, "list.txt")
    with open(listing, "w") as f:
        f.write("\n".join(names) + "\n")
    table = {"scenes": a.count, "readings": []}
    fractions = None
    for measure in MEASURES:
        out = os.path.join(work, measure)
        run_measure(a.exe, a.model, listing, out, measure)
        index = json.load(open(os.path.join(out, "index.json")))
        folders = [os.path.join(out, next(f for f in p["files"] if f.endswith("cls_map.npy")))
                   for p in index["pictures"]]
        cls = np.stack([np.load(f) for f in folders])  # [S, L, H, R, C]
        S, L, H, R, C = cls.shape
        if fractions is None:
            fractions = np.stack([patch_fractions(m, R, C) for m in masks])
        first = 1  # ViT: CLS, then the patches
        readings = [("rollout", rollout_of(folders, first, S, R, C))]
        if measure == "weights":  # vit-explain's: the heads' max, 90 % of each layer discarded
            out2 = out + "-max"
            run_measure(a.exe, a.model, listing, out2, measure,
                        ("--head-fusion", "max", "--discard-ratio", "0.9"))
            readings.append(("rollout max, discard 0.9",
                             rollout_of([f.replace(out, out2, 1) for f in folders], first, S, R, C)))
        for l in range(L):
            readings.append((f"layer {l} mean", cls[:, l].mean(1)))
            if measure in ("weights", "norms"):  # contrib and alti: one map a layer
                readings += [(f"layer {l} head {h}", cls[:, l, h]) for h in range(H)]
        for name, maps in readings:
            p, m = scores(maps, fractions)
            table["readings"].append({"measure": measure, "reading": name, "pointing": round(p, 4),
                                      "mass": round(m, 4)})
    centre = np.zeros((a.count, R, C))
    centre[:, R // 2, C // 2] = 1.0
    p, m = scores(centre, fractions)
    table["baselines"] = {
        "centre": {"pointing": round(p, 4), "mass": round(m, 4)},
        "random": {"pointing": round(float((fractions > 0).mean()), 4),
                   "mass": round(float(np.mean([mk.mean() for mk in masks])), 4)}}
    best = sorted(table["readings"], key=lambda r: -r["pointing"])
    print(f"{a.count} held-out scenes; baselines: centre {table['baselines']['centre']}, "
          f"random {table['baselines']['random']}")
    for r in best[:8]:
        print(f"  {r['measure']:8} {r['reading']:26} pointing {r['pointing']:.3f}  mass {r['mass']:.3f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(table, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
