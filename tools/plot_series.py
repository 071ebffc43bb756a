#!/usr/bin/env python3
"""Time series and histograms of a run's series.csv (or result.h5, read with h5py).

Usage: tools/plot_series.py RESULT_DIR [OUT.png] [--columns energy,magnetization]
One row of panels per column: the value against the sweep, and its histogram.
With tempering (a `temperature` column) each temperature gets its own colour.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_series(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no rows")
    return rows


def read_h5_series(path):
    """The rows of result.h5's /series (output.format "hdf5") as series.csv's rows."""
    import h5py
    with h5py.File(path, "r") as f:
        columns = f["series"].attrs["columns"]
        names = (columns.decode() if isinstance(columns, bytes) else str(columns)).split(",")
        data = [f["series"][name][()].tolist() for name in names]
    rows = [{name: str(value) for name, value in zip(names, values)} for values in zip(*data)]
    if not rows:
        sys.exit(f"{path}: no rows")
    return rows


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--columns")]
    chosen = [a.split("=", 1)[1].split(",") for a in sys.argv[1:] if a.startswith("--columns=")]
    if not args:
        sys.exit(__doc__)
    directory = args[0]
    out = args[1] if len(args) > 1 else os.path.join(directory, "series.png")
    h5 = os.path.join(directory, "result.h5")
    rows = read_h5_series(h5) if os.path.exists(h5) else read_series(os.path.join(directory, "series.csv"))
    skip = {"sweep", "temperature", "beta", "system"}
    columns = chosen[0] if chosen else [c for c in rows[0] if c not in skip]
    groups = {}
    for r in rows:
        groups.setdefault(r.get("temperature", "0"), []).append(r)
    fig, axes = plt.subplots(len(columns), 2, figsize=(10, 2.6 * len(columns)), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 1]})
    for row, name in enumerate(columns):
        for label, group in sorted(groups.items(), key=lambda g: float(g[0])):
            sweeps = [float(r["sweep"]) for r in group]
            values = [float(r[name]) for r in group]
            tag = f"T{label}" if len(groups) > 1 else None
            axes[row][0].plot(sweeps, values, lw=0.6, label=tag)
            axes[row][1].hist(values, bins=50, orientation="horizontal", histtype="step", label=tag)
        axes[row][0].set_ylabel(name)
        axes[row][1].set_xlabel("count")
    axes[-1][0].set_xlabel("sweep")
    if len(groups) > 1 and len(groups) <= 16:
        axes[0][0].legend(fontsize=6, ncol=4)
    fig.suptitle(os.path.basename(os.path.normpath(directory)))
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


main()
