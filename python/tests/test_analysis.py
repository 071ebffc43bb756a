"""Analysis helpers against known answers: an AR(1) process, Gaussian and +-1 magnetisations,
Binder curves built to cross at a known point, and the exact reference against enumeration (L = 2)."""
import numpy as np
import pandas as pd
import pytest

from clmc import analysis
from clmc.exact import energy_and_specific_heat


def ar1(phi, n, seed=1):
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=n)
    x = np.empty(n)
    x[0] = noise[0] / np.sqrt(1 - phi**2)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + noise[i]
    return x


def test_tau_int_and_errors_of_an_ar1_process():
    phi, n = 0.8, 200_000
    x = ar1(phi, n)
    exact_tau = (1 + phi) / (2 * (1 - phi))  # 4.5: g = (1 + phi) / (1 - phi)
    exact_error = np.sqrt(1 / (1 - phi**2) * 2 * exact_tau / n)
    tau = analysis.tau_int(x)
    error = analysis.error(x)
    plateau = analysis.binning_errors(x).query("bin_size >= 64")["error"].mean()
    print(f"tau {tau:.3f} exact {exact_tau}; error {error:.5f} binning {plateau:.5f} exact {exact_error:.5f}")
    assert abs(tau / exact_tau - 1) < 0.1
    assert abs(error / exact_error - 1) < 0.1
    assert abs(plateau / exact_error - 1) < 0.15


def test_binder_cumulant_limits():
    rng = np.random.default_rng(2)
    gaussian = analysis.binder(rng.normal(size=400_000))
    ordered = analysis.binder(np.where(rng.random(1000) < 0.5, -1.0, 1.0))
    print(f"Gaussian {gaussian:.4f} (0), +-1 {ordered:.6f} (2/3)")
    assert abs(gaussian) < 0.02
    assert ordered == pytest.approx(2 / 3, abs=1e-12)


def test_binder_crossing_of_curves_that_cross_at_a_known_point():
    beta_c, rng = 0.44, np.random.default_rng(3)
    rows = []
    for L in (8, 16, 32):
        for beta in np.linspace(0.42, 0.46, 9):
            for seed in (1, 2):
                u = 0.61 + 0.9 * (beta - beta_c) * L  # nu = 1: the curves all cross at beta_c
                rows.append({"model.L": L, "ensemble.beta": beta, "run.seed": seed,
                             "binder": u + rng.normal(scale=0.002), "binder_error": 0.002})
    crossings = analysis.binder_crossing(pd.DataFrame(rows))
    print(crossings)
    assert list(crossings["L_small"]) == [8, 16]
    for _, row in crossings.iterrows():
        assert 0 < row["error"] < 0.005
        assert abs(row["beta_cross"] - beta_c) < 4 * row["error"]


def test_exact_ising_values_of_the_reference():
    # L = 2 by enumeration of the 16 states: the transfer matrix must agree.
    beta, L = 0.3, 2
    energies = []
    for k in range(16):
        s = np.array([1 if (k >> i) & 1 else -1 for i in range(4)]).reshape(2, 2)
        energies.append(-np.sum(s * np.roll(s, 1, 0)) - np.sum(s * np.roll(s, 1, 1)))
    energies = np.array(energies, dtype=float)
    w = np.exp(-beta * energies)
    e = np.sum(w * energies) / w.sum()
    c = beta**2 * (np.sum(w * energies**2) / w.sum() - e**2) / 4
    exact_e, exact_c = energy_and_specific_heat(beta, L)
    assert exact_e == pytest.approx(e / 4, rel=1e-6)
    assert exact_c == pytest.approx(c, rel=1e-4)
