#!/usr/bin/env python3
"""PNG of a configuration picture written by `clmc run --set output.picture=true`
(configuration.pgm, binary grey map).

Usage: tools/plot_configuration.py RESULT_DIR [OUT.png]
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_pgm(path):
    data = open(path, "rb").read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at + 1].isspace():
            at += 1
        start = at
        while not data[at:at + 1].isspace():
            at += 1
        fields.append(data[start:at])
    if fields[0] != b"P5":
        sys.exit(f"{path}: not a binary grey map (P5)")
    width, height = int(fields[1]), int(fields[2])
    pixels = data[at + 1:at + 1 + width * height]
    return [list(pixels[r * width:(r + 1) * width]) for r in range(height)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    directory = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(directory, "configuration.png")
    image = read_pgm(os.path.join(directory, "configuration.pgm"))
    fig, ax = plt.subplots(figsize=(6, 6))
    ax.imshow(image, cmap="gray", vmin=0, vmax=255, interpolation="nearest", origin="lower")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(os.path.basename(os.path.normpath(directory)))
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


main()
