#!/usr/bin/env python3
"""ns per update versus system size for every device in clmc bench JSON files
(schema clmc-bench, or clmc-bench-scan as written by benchmarks/*_scan.sh),
one line per (device, model, layout, hits), like the seeds' figures; where
several tile edges were measured at one size, the fastest is plotted.

Usage: tools/plot_bench.py OUT.png FILE.json [FILE.json ...] [--title TEXT]
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def documents(doc):
    if doc.get("schema") == "clmc-bench-scan":
        for point in doc["points"]:
            yield from documents(point)
    elif doc.get("schema") == "clmc-bench":
        yield doc


def size(model):
    """Lattice edge L, or sqrt(N) for particle models."""
    if "L" in model:
        return model["L"]
    return model.get("N", 0) ** 0.5


def series_key(preset, device):
    m, a = preset["model"], preset.get("algorithm", {})
    parts = [device["name"], f'{m["type"]} {m.get("dim", 2)}D', a.get("layout", a.get("type", ""))]
    if a.get("hits", 1) != 1:
        parts.append(f'hits {a["hits"]}')
    return ", ".join(parts)


def main():
    args = sys.argv[1:]
    title = None
    if "--title" in args:
        i = args.index("--title")
        title = args[i + 1]
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    out, files = args[0], args[1:]
    lines = {}
    for path in files:
        for doc in documents(json.load(open(path))):
            for entry in doc["devices"]:
                if entry.get("status") != "ok":
                    continue
                preset = entry.get("resolved_preset", doc["preset"])
                ns = entry["metrics"]["ns_per_update"]["value"]
                points = lines.setdefault(series_key(preset, entry["device"]), {})
                x = size(preset["model"])
                points[x] = min(ns, points.get(x, ns))
    if not lines:
        sys.exit("no benchmark points found")
    fig, ax = plt.subplots(figsize=(8, 5))
    for label, points in sorted(lines.items()):
        xs = sorted(points)
        ax.plot(xs, [points[x] * 1e3 for x in xs], marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("L (or sqrt N)")
    ax.set_ylabel("ps per update")
    ax.grid(True, which="both", lw=0.3)
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out} ({len(lines)} lines)")


main()
