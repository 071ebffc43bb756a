"""MBAR reweighting of a parallel-tempering run (2D Ising L = 8, four temperatures) against
the exact finite-lattice energy and specific heat, at the sampled temperatures and between them."""
import numpy as np
import pytest

import clmc
from clmc.exact import energy_and_specific_heat

pytest.importorskip("pymbar")


def test_mbar_specific_heat_against_the_exact_finite_lattice(clmc_bin, tmp_path):
    L = 8
    preset = {"model": {"type": "ising", "L": L}, "algorithm": {"tile": 4},
              "ensemble": {"type": "parallel_tempering", "betas": [0.36, 0.40, 0.44, 0.48]},
              "run": {"thermalization": 1000, "sweeps": 20000, "measure_every": 2, "seed": 11}}
    r = clmc.run(preset, out=tmp_path / "pt")
    betas = [0.36, 0.38, 0.40, 0.42, 0.44, 0.46, 0.48]
    table = clmc.analysis.mbar_reweight(r, betas, observables=("energy",), bootstrap=40)
    print(table.to_string())
    for beta, row in table.iterrows():
        exact_e, exact_c = energy_and_specific_heat(beta, L)
        z_e = (row["energy"] - exact_e) / row["energy_error"]
        z_c = (row["specific_heat"] - exact_c) / row["specific_heat_error"]
        print(f"beta {beta}: energy {row['energy']:.5f} exact {exact_e:.5f} ({z_e:+.2f} sigma); "
              f"C {row['specific_heat']:.4f} exact {exact_c:.4f} ({z_c:+.2f} sigma)")
        assert abs(z_e) < 4
        assert abs(z_c) < 4
