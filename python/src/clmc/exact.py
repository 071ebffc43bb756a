"""Exact 2D Ising values on a periodic L x L lattice (J = 1) from the row transfer matrix, the
reference the examples and tests compare clmc with (L up to about 12: 2^L row states):
Z = Tr T^L with T[s, s'] = exp(beta (E_row(s)/2 + E_row(s')/2 + s.s')).
Independent of the engine; derivatives of ln Z by central differences.

    from clmc.exact import energy_and_specific_heat
    e, c = energy_and_specific_heat(0.44, 8)
"""
import numpy as np


def _log_z(beta, L):
    states = np.array([[1 if (k >> i) & 1 else -1 for i in range(L)] for k in range(2 ** L)], dtype=float)
    row = np.sum(states * np.roll(states, 1, axis=1), axis=1)
    vertical = states @ states.T
    t = beta * (row[:, None] / 2 + row[None, :] / 2 + vertical)
    shift = t.max()
    eigenvalues = np.linalg.eigvalsh(np.exp(t - shift))
    top = np.abs(eigenvalues).max()
    return L * shift + L * np.log(top) + np.log(np.sum((eigenvalues / top) ** L))


def energy_and_specific_heat(beta, L, h=1e-4):
    """(energy per spin, specific heat per spin beta^2 (<H^2> - <H>^2) / N)."""
    n = L * L
    lo, mid, hi = (_log_z(beta + d, L) for d in (-h, 0.0, h))
    energy = -(hi - lo) / (2 * h) / n
    specific_heat = beta**2 * (hi - 2 * mid + lo) / h**2 / n
    return energy, specific_heat
