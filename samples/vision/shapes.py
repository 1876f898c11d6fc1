#!/usr/bin/env python3
"""Synthetic scenes for the bundled vision model (samples/shapes-vit) and its pointing test:
64 x 64 pictures, each with one red target shape -- a circle, square, triangle or star, the
class to name -- among two or three distractor shapes of other colours (any of the four
shapes) on a textured background. Every scene comes from its own seed, so a scene is the same
wherever it is drawn, and its target's mask is known.

  /usr/bin/python3 samples/vision/shapes.py OUT_DIR --first 0 --count 8   # PNGs + masks

As a module: scene(seed) -> (uint8 [64, 64, 3] picture, class index, bool [64, 64] mask).
Training draws seeds from 0, the held-out scenes from HELD_OUT_FIRST on.
"""
import argparse
import json
import math
import os

import numpy as np

SIZE = 64
CLASSES = ["circle", "square", "triangle", "star"]
HELD_OUT_FIRST = 10_000_000
DISTRACTOR_COLOURS = [(40, 90, 220), (40, 170, 70), (225, 200, 40), (150, 60, 190), (30, 170, 180)]

_Y, _X = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64) + 0.5


def polygon_mask(points):
    """Pixels whose centres lie inside the polygon (even-odd rule)."""
    inside = np.zeros((SIZE, SIZE), bool)
    n = len(points)
    for k in range(n):
        (x0, y0), (x1, y1) = points[k], points[(k + 1) % n]
        crosses = (y0 > _Y) != (y1 > _Y)
        with np.errstate(divide="ignore", invalid="ignore"):
            at = (x1 - x0) * (_Y - y0) / (y1 - y0) + x0
        inside ^= crosses & (_X < at)
    return inside


def shape_mask(kind, cx, cy, r, angle):
    if kind == 0:
        return (_X - cx) ** 2 + (_Y - cy) ** 2 <= r * r
    corners = {1: 4, 2: 3, 3: 10}[kind]
    points = []
    for k in range(corners):
        a = angle + 2 * math.pi * k / corners
        radius = r * (0.45 if kind == 3 and k % 2 else 1.0) * (1.0 if kind != 1 else 1.15)
        points.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return polygon_mask(points)


def background(rng):
    base = rng.uniform(70, 190, 3)
    freq, angle = rng.uniform(0.15, 0.6), rng.uniform(0, math.pi)
    stripes = np.sin(freq * (_X * math.cos(angle) + _Y * math.sin(angle)))
    tint = rng.uniform(-35, 35, 3)
    noise = rng.normal(0, 12, (SIZE, SIZE, 3))
    img = base + stripes[..., None] * tint + noise
    # keep the background off the target's red: pull its red channel towards the others
    img[..., 0] = np.minimum(img[..., 0], img[..., 1:].mean(-1) + 25)
    return img


def place(rng, taken, r):
    """A centre whose disc of radius r is inside the picture and clear of `taken` discs."""
    for _ in range(200):
        cx, cy = rng.uniform(r + 1, SIZE - r - 1, 2)
        if all((cx - x) ** 2 + (cy - y) ** 2 > (r + s + 2) ** 2 for x, y, s in taken):
            return cx, cy
    return None


def scene(seed):
    rng = np.random.default_rng(seed)
    img = background(rng)
    label = int(rng.integers(0, 4))
    r = rng.uniform(7, 11)
    cx, cy = place(rng, [], r)
    taken = [(cx, cy, r)]
    mask = shape_mask(label, cx, cy, r, rng.uniform(0, 2 * math.pi))
    for _ in range(int(rng.integers(2, 4))):
        rd = rng.uniform(5, 9)
        at = place(rng, taken, rd)
        if at is None:
            continue
        taken.append((at[0], at[1], rd))
        m = shape_mask(int(rng.integers(0, 4)), at[0], at[1], rd, rng.uniform(0, 2 * math.pi))
        colour = np.array(DISTRACTOR_COLOURS[int(rng.integers(0, len(DISTRACTOR_COLOURS)))])
        img[m] = colour + rng.normal(0, 10, (m.sum(), 3))
    red = np.array([rng.uniform(200, 245), rng.uniform(20, 60), rng.uniform(20, 60)])
    img[mask] = red + rng.normal(0, 10, (mask.sum(), 3))
    return np.clip(img, 0, 255).astype(np.uint8), label, mask


def main():
    from PIL import Image
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--first", type=int, default=HELD_OUT_FIRST)
    ap.add_argument("--count", type=int, default=8)
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    listing = []
    for seed in range(a.first, a.first + a.count):
        img, label, mask = scene(seed)
        name = f"scene-{seed}-{CLASSES[label]}.png"
        Image.fromarray(img, "RGB").save(os.path.join(a.out_dir, name))
        listing.append({"file": name, "seed": seed, "class": CLASSES[label]})
    with open(os.path.join(a.out_dir, "scenes.json"), "w") as f:
        json.dump(listing, f, indent=1)


if __name__ == "__main__":
    main()
