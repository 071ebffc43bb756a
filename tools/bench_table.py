#!/usr/bin/env python3
"""Markdown table of every recorded benchmark point in benchmarks/results/*.json.

Usage: tools/bench_table.py [RESULTS_DIR]  (prints to stdout)
"""
import glob
import json
import os
import sys


def points(doc):
    """Yield (preset, device entry) for a clmc-bench or clmc-bench-scan document."""
    if doc.get("schema") == "clmc-bench-scan":
        for p in doc["points"]:
            yield from points(p)
    elif doc.get("schema") == "clmc-bench":
        for d in doc["devices"]:
            yield doc["preset"], d


def row(preset, entry):
    preset = entry.get("resolved_preset", preset)
    m, a = preset["model"], preset["algorithm"]
    lattice = f'{m["type"]} {m["dim"]}D' + (f' x{m["realizations"]}' if "realizations" in m else "")
    if a.get("layout") == "msc" and "word_bits" in a:
        lattice += f' w{a["word_bits"]}'
    temperatures = len(preset.get("ensemble", {}).get("betas", []))
    if temperatures > 1:
        lattice += f' T{temperatures}'

    if "q" in m:
        lattice += f' q{m["q"]}'
    method = a.get("layout", a.get("type", "-")) + "".join(f' {a[k]}' for k in ("labeling", "consolidation") if k in a)
    if m["type"] == "percolation":
        method += f' {m.get("kind", "bond")} p={m.get("p")}'
    head = [entry["device"]["name"], lattice, str(m["L"]), method, str(a.get("hits", 1)), str(a.get("tile", 0))]
    metrics = entry.get("metrics", {})
    if entry.get("status") != "ok":
        return head + ["failed: " + entry.get("reason", "")[:60], "", ""]
    ns = metrics["ns_per_update"]["value"]
    frac = metrics["bandwidth_fraction"]["value"]
    return head + [f"{1000 * ns:.3f}", f'{metrics["achieved_bandwidth"]["value"] / 1e9:.0f}', f"{100 * frac:.1f}%"]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "benchmarks", "results")
    rows = []
    for path in sorted(glob.glob(os.path.join(root, "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        rows += [row(p, e) + [os.path.basename(path)] for p, e in points(doc)]
    rows.sort(key=lambda r: (r[0], r[1], int(r[2]), r[3], int(r[4]), int(r[5])))
    for r in rows:
        r[5] = r[5] if r[5] != "0" or r[3] == "naive" else "auto"
        r[5] = "-" if r[3] == "naive" else r[5]
    head = ["device", "model", "L", "layout", "hits", "tile", "ps/update", "GB/s", "of copy BW", "file"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
