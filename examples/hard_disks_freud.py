#!/usr/bin/env python3
"""Hard-disk configurations into freud through GSD: g(r) and the hexatic order parameter.

Independent hard-disk runs (one per seed) write their final configurations
(result.h5 where this clmc build and h5py have HDF5, else configuration.csv);
clmc.to_gsd puts them into one GSD file, one frame each, which is read back
with gsd and analysed with freud: the radial distribution function g(r) of all
frames and the hexatic order parameter psi_6 (six nearest neighbours).  The
contact value g(1+) (a quadratic fit over [1, 1.08] sigma, extrapolated to
contact, per frame) gives the pressure through the equation of state
beta P sigma^2 = rho (1 + pi/2 rho g(1+)), compared with clmc's own pressure
within the combined error (exit 1 beyond --sigmas).  Without freud the GSD file
is still written and checked, and the analysis skipped with a message.

    python3 examples/hard_disks_freud.py                                   # N = 1024, 8 seeds
    python3 examples/hard_disks_freud.py --N 256 --seeds 4 --sweeps 1000 --out out/disks-ci   # CI size
"""
import argparse
import importlib.util
import math
import sys
from pathlib import Path

import numpy as np

import clmc


def run_seeds(args):
    """One run per seed; result.h5 where possible, configuration.csv otherwise."""
    preset = {"name": "hard-disks-freud",
              "model": {"type": "hard_disks", "N": args.N, "packing_fraction": args.packing_fraction,
                        "write_configuration": True},
              "run": {"thermalization": args.sweeps // 2, "sweeps": args.sweeps, "measure_every": 10}}
    use_hdf5 = importlib.util.find_spec("h5py") is not None
    results = []
    for seed in range(1, args.seeds + 1):
        sets = {"run.seed": seed}
        if use_hdf5:
            sets["output.format"] = "hdf5"
        try:
            results.append(clmc.run(preset, out=Path(args.out) / f"seed-{seed}", device=args.device, sets=sets,
                                    overwrite=True))
        except clmc.ClmcError as failure:
            if not (use_hdf5 and failure.returncode == 2 and "lacks HDF5" in failure.stderr):
                raise
            use_hdf5 = False
            del sets["output.format"]
            results.append(clmc.run(preset, out=Path(args.out) / f"seed-{seed}", device=args.device, sets=sets,
                                    overwrite=True))
    print(f"{len(results)} runs, configurations from {'result.h5' if use_hdf5 else 'configuration.csv'}")
    return results


def contact_value(box, points, density, r_max=1.08, bin_width=0.01):
    """g(1+) of one frame: g(r) in bins of bin_width from contact, quadratic fit at r = 1."""
    import freud
    bins = int(round((r_max - 1) / bin_width))
    rdf = freud.density.RDF(bins=bins, r_max=r_max, r_min=1.0)
    rdf.compute(system=(box, points))
    coefficients = np.polyfit(rdf.bin_centers - 1, rdf.rdf, 2)
    return coefficients[-1]


def analyse(path, results, args):
    import freud
    import gsd.hoomd
    pressures, g_contact, psi_global, psi_local = [], [], [], []
    rdf = freud.density.RDF(bins=200, r_max=min(5.0, results[0].result["checks"]["box_length"] / 2 - 0.01))
    with gsd.hoomd.open(str(path), "r") as trajectory:
        for frame in trajectory:
            box = freud.box.Box.from_box(frame.configuration.box, dimensions=frame.configuration.dimensions)
            points = frame.particles.position
            density = frame.particles.N / box.volume  # the area of a 2D box
            rdf.compute(system=(box, points), reset=False)
            g1 = contact_value(box, points, density)
            g_contact.append(g1)
            pressures.append(density * (1 + math.pi / 2 * density * g1))
            hexatic = freud.order.Hexatic(k=6)
            hexatic.compute(system=(box, points), neighbors={"num_neighbors": 6})
            psi_global.append(abs(np.mean(hexatic.particle_order)))
            psi_local.append(np.mean(np.abs(hexatic.particle_order)))
    peak = rdf.bin_centers[np.argmax(rdf.rdf)]
    print(f"g(r): first peak at r = {peak:.3f} sigma, g = {rdf.rdf.max():.3f}; g(r) -> {rdf.rdf[-20:].mean():.3f} "
          f"at r ~ {rdf.bin_centers[-1]:.2f}")
    print(f"hexatic: |<psi_6>| = {np.mean(psi_global):.4f} (1/sqrt(N) = {1 / math.sqrt(args.N):.4f}), "
          f"<|psi_6|> = {np.mean(psi_local):.4f}")
    k = len(pressures)
    from_rdf, rdf_error = np.mean(pressures), np.std(pressures, ddof=1) / math.sqrt(k)
    measured = [r.observables["pressure"] for r in results]
    clmc_pressure = np.mean([m["mean"] for m in measured])
    clmc_error = math.sqrt(sum(m["error"] ** 2 for m in measured)) / k
    sigma = math.hypot(rdf_error, clmc_error)
    z = (from_rdf - clmc_pressure) / sigma
    print(f"g(1+) = {np.mean(g_contact):.3f}; beta P sigma^2 from freud's g(r): {from_rdf:.4f} +- {rdf_error:.4f}; "
          f"clmc: {clmc_pressure:.4f} +- {clmc_error:.4f}; difference {z:+.2f} sigma (tolerance {args.sigmas})")
    return abs(z) <= args.sigmas


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--N", type=int, default=1024)
    parser.add_argument("--packing-fraction", type=float, default=0.6)
    parser.add_argument("--seeds", type=int, default=8, help="independent runs, one GSD frame each")
    parser.add_argument("--sweeps", type=int, default=4000)
    parser.add_argument("--device", default=None)
    parser.add_argument("--out", default="out/hard-disks-freud")
    parser.add_argument("--sigmas", type=float, default=4.0, help="tolerance in units of the combined error")
    args = parser.parse_args()
    if importlib.util.find_spec("gsd") is None:
        print("SKIP: gsd is not installed (pip install './python[gsd]')")
        return 0
    results = run_seeds(args)
    path = clmc.to_gsd(results, Path(args.out) / "disks.gsd")
    import gsd.hoomd
    with gsd.hoomd.open(str(path), "r") as trajectory:
        positions, box = clmc.disk_positions(results[-1])
        frame = trajectory[len(trajectory) - 1]
        same = np.array_equal(frame.particles.position[:, :2], np.float32(positions - box / 2))
        print(f"{path}: {len(trajectory)} frames of {frame.particles.N} disks, box {box:.6f}, "
              f"positions {'equal' if same else 'DIFFERENT'}")
        if not same or len(trajectory) != len(results):
            return 1
    if importlib.util.find_spec("freud") is None:
        print("SKIP: freud is not installed (pip install freud-analysis); the g(r) and psi_6 analysis is skipped")
        return 0
    return 0 if analyse(path, results, args) else 1


if __name__ == "__main__":
    sys.exit(main())
