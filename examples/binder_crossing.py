#!/usr/bin/env python3
"""The critical temperature of the 2D Ising model from Binder-cumulant crossings.

A `clmc scan` over sizes L x inverse temperatures x seeds (tiled Metropolis), then clmc.analysis.binder_crossing on its summary: the
crossing of U_L and U_2L for the largest pair is compared with the exact
beta_c = ln(1 + sqrt 2) / 2 within its error.  Resumable: run it again to
continue an interrupted scan.

    python3 examples/binder_crossing.py                         # L = 8, 16, 32 (minutes on a GPU)
    python3 examples/binder_crossing.py --sizes 8,16 --sweeps 20000 --out out/binder-small   # CI size
"""
import argparse
import math
import sys

import numpy as np

import clmc

BETA_C = math.log(1 + math.sqrt(2)) / 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,16,32", help="lattice edges L, comma-separated")
    parser.add_argument("--betas", type=int, default=7, help="inverse temperatures in [0.425, 0.455]")
    parser.add_argument("--seeds", type=int, default=2, help="independent runs per point")
    parser.add_argument("--sweeps", type=int, default=100000)
    parser.add_argument("--out", default="out/binder-crossing")
    parser.add_argument("--devices", default=None, help="as clmc scan --devices (default: clmc's choice)")
    parser.add_argument("--sigmas", type=float, default=3.0, help="tolerance in units of the crossing's error")
    args = parser.parse_args()
    sizes = [int(L) for L in args.sizes.split(",")]
    job = {
        "preset": {"name": "binder-crossing", "model": {"type": "ising", "dim": 2, "L": sizes[0]},
                   "algorithm": {"layout": "tiled", "tile": 4},
                   "run": {"thermalization": 5000, "sweeps": args.sweeps, "measure_every": 5,
                           "checkpoint_every": "60s"}},
        "grid": {"model.L": sizes,
                 "ensemble.beta": {"from": 0.425, "to": 0.455, "count": args.betas},
                 "run.seed": {"from": 1, "to": args.seeds}},
    }
    scan = clmc.scan(job, out=args.out, devices=args.devices)
    crossings = clmc.analysis.binder_crossing(scan.summary, degree=2)
    print(crossings.to_string(index=False))
    best = crossings.iloc[-1]
    deviation = (best["beta_cross"] - BETA_C) / best["error"]
    print(f"beta_c from the L = {int(best['L_small'])}/{int(best['L_large'])} crossing: {best['beta_cross']:.5f} "
          f"+- {best['error']:.5f}; exact {BETA_C:.5f} ({deviation:+.2f} sigma)")
    ok = np.isfinite(deviation) and abs(deviation) < args.sigmas
    print("agrees with the exact value" if ok else "DOES NOT agree with the exact value")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
