#!/usr/bin/env python3
"""The specific heat of the 2D Ising model between tempering temperatures, by MBAR.

One parallel-tempering run of a small lattice (clmc.run), then clmc.analysis.mbar_reweight
(pymbar) on its series at a fine grid of inverse temperatures, sampled or not; every point is
compared with the exact finite-lattice curve (clmc.exact, transfer matrix).  Exits 1 where a
point lies more than --sigmas errors off; with matplotlib, draws the curve into OUT/specific_heat.png.

    python3 examples/mbar_specific_heat.py                      # L = 8, 6 temperatures
    python3 examples/mbar_specific_heat.py --sweeps 20000 --points 9 --out out/mbar-small   # CI size
"""
import argparse
import sys

import numpy as np

import clmc
from clmc.exact import energy_and_specific_heat


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--L", type=int, default=8, help="lattice edge (exact curve: L <= 12)")
    parser.add_argument("--betas", default="0.34,0.38,0.42,0.46,0.50,0.54", help="tempering ladder")
    parser.add_argument("--points", type=int, default=25, help="reweighted inverse temperatures across the ladder")
    parser.add_argument("--sweeps", type=int, default=100000)
    parser.add_argument("--bootstrap", type=int, default=40, help="bootstrap samples for the errors")
    parser.add_argument("--sigmas", type=float, default=4.0)
    parser.add_argument("--out", default="out/mbar-specific-heat")
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    ladder = [float(b) for b in args.betas.split(",")]
    preset = {"name": "mbar-specific-heat", "model": {"type": "ising", "dim": 2, "L": args.L},
              "algorithm": {"layout": "tiled", "tile": 4},
              "ensemble": {"type": "parallel_tempering", "betas": ladder, "exchange_every": 10},
              "run": {"thermalization": args.sweeps // 20, "sweeps": args.sweeps, "measure_every": 2, "seed": 3}}
    run = clmc.run(preset, device=args.device, out=args.out, overwrite=True)
    grid = np.linspace(ladder[0], ladder[-1], args.points)
    curve = clmc.analysis.mbar_reweight(run, list(grid), observables=("energy",), bootstrap=args.bootstrap)
    worst = 0.0
    print(f"{'beta':>8} {'C (MBAR)':>18} {'C exact':>9} {'z':>6}")
    for beta, row in curve.iterrows():
        exact = energy_and_specific_heat(beta, args.L)[1]
        z = (row["specific_heat"] - exact) / row["specific_heat_error"]
        worst = max(worst, abs(z))
        sampled = " (sampled)" if np.isclose(beta, ladder).any() else ""
        print(f"{beta:8.4f} {row['specific_heat']:9.4f} +- {row['specific_heat_error']:.4f} {exact:9.4f} {z:+6.2f}{sampled}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fine = np.linspace(ladder[0], ladder[-1], 200)
        plt.plot(fine, [energy_and_specific_heat(b, args.L)[1] for b in fine], label=f"exact, L = {args.L}")
        plt.errorbar(curve.index, curve["specific_heat"], curve["specific_heat_error"], fmt="o", ms=3, label="clmc + MBAR")
        plt.xlabel("beta"), plt.ylabel("specific heat per spin"), plt.legend()
        plt.savefig(f"{args.out}/specific_heat.png", dpi=120)
    except ImportError:
        pass
    print(f"largest deviation {worst:.2f} standard errors over {len(curve)} points (tolerance {args.sigmas})")
    return 0 if worst < args.sigmas else 1


if __name__ == "__main__":
    sys.exit(main())
