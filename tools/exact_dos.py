#!/usr/bin/env python3
"""Exact density of states g(E) of the periodic L x L 2D Ising model (J = 1,
H = -sum over the 2N nearest-neighbour bonds of s_i s_j, N = L^2), as exact
integers, in the spirit of Beale (PRL 76, 78 (1996)): Kaufman's finite-lattice
partition function is a polynomial P(w) = Z e^{-2N beta} = sum_k g_k w^k in
w = e^{-4 beta} (E = -2N + 4k), evaluated with mpmath at M = N + 1 points
w_j = r e^{2 pi i j / M} on a circle of radius r = 1/2 (away from the
formula's singular points) with enough digits that the inverse discrete
Fourier transform, divided by r^k, rounds to the integers g_k.

Checks (any failure aborts): every coefficient within 1e-6 of a non-negative
integer and its imaginary part below 1e-6, sum g = 2^N, g(E) = g(-E), the
ground-state count is 2, the first excitation (one flipped spin, E = -2N + 8)
has 2N states, and for L = 4 the counts equal a brute-force enumeration.

Usage: tools/exact_dos.py L [L ...] > file; one block per L:
  # L <L> N <N>
  <E> <g(E)>       (only energies with g > 0, increasing)
tests/data/ising2d_dos.txt holds L = 4, 6, 8, 16; tests/data/ising2d_dos_L32.txt
L = 32 (about 20 minutes of one busy core).
"""
import sys

import mpmath as mp


def log_partition_terms(L, K):
    """Z(K) e^{-2NK} by Kaufman's formula (L even), K complex."""
    N = L * L
    c2, s2 = mp.cosh(2 * K), mp.sinh(2 * K)
    base = c2 * c2 / s2  # cosh 2K coth 2K

    def cosh_gamma(k):
        return base - mp.cos(mp.pi * k / L)

    # Pairs k <-> 2L - k share gamma_k: (2 cosh(L g/2))^2 = 2 + 2 cosh(L g),
    # (2 sinh(L g/2))^2 = 2 cosh(L g) - 2, both free of the branch of acosh.
    def cosh_L(k):
        return mp.cosh(L * mp.acosh(cosh_gamma(k)))

    z1 = z2 = mp.mpf(1)
    for k in range(1, L, 2):  # odd k < L, each paired with 2L - k
        ch = cosh_L(k)
        z1 *= 2 + 2 * ch
        z2 *= 2 * ch - 2
    z3 = z4 = mp.mpf(1)
    for k in range(2, L, 2):  # even 0 < k < L, paired with 2L - k
        ch = cosh_L(k)
        z3 *= 2 + 2 * ch
        z4 *= 2 * ch - 2
    gamma0 = 2 * K + mp.log(mp.tanh(K))  # 2K - 2K*, its sign matters below T_c
    gammaL = 2 * K - mp.log(mp.tanh(K))  # 2K + 2K*
    z3 *= 4 * mp.cosh(L * gamma0 / 2) * mp.cosh(L * gammaL / 2)
    z4 *= 4 * mp.sinh(L * gamma0 / 2) * mp.sinh(L * gammaL / 2)
    prefactor = mp.exp((N // 2) * mp.log(2 * s2) - 2 * N * K)
    return prefactor * (z1 + z2 + z3 + z4) / 2


def density_of_states(L):
    if L < 2 or L % 2:
        raise SystemExit("exact_dos.py: L must be even and >= 2")
    N = L * L
    M = N + 1
    # Values up to 2^N, divided by r^N = 2^-N, plus the transform's rounding.
    mp.mp.dps = int((2 * N + 64) * 0.30103) + 30
    r = mp.mpf(1) / 2
    values = []
    for j in range(M):
        w = r * mp.expjpi(mp.mpf(2 * j) / M)
        values.append(log_partition_terms(L, -mp.log(w) / 4))
    counts = []
    for k in range(M):
        acc = mp.mpc(0)
        for j in range(M):
            acc += values[j] * mp.expjpi(mp.mpf(-2 * j * k) / M)
        coefficient = acc / M / r**k
        g = int(mp.nint(coefficient.real))
        if abs(coefficient.real - g) > 1e-6 or abs(coefficient.imag) > 1e-6 or g < 0:
            raise SystemExit(f"exact_dos.py: L={L} k={k}: coefficient {coefficient} is not an integer")
        counts.append(g)
    if sum(counts) != 2**N or counts[0] != 2 or counts[2] != 2 * N or counts != counts[::-1]:
        raise SystemExit(f"exact_dos.py: L={L}: counts fail the checks")
    if L == 4:
        brute = brute_force_4x4()
        if brute != counts:
            raise SystemExit("exact_dos.py: L=4 differs from enumeration")
    return {-2 * N + 4 * k: g for k, g in enumerate(counts) if g}


def brute_force_4x4():
    L, N = 4, 16
    counts = [0] * (N + 1)
    for config in range(1 << N):
        s = [1 if config >> i & 1 else -1 for i in range(N)]
        e = 0
        for y in range(L):
            for x in range(L):
                i = y * L + x
                e -= s[i] * (s[y * L + (x + 1) % L] + s[((y + 1) % L) * L + x])
        counts[(e + 2 * N) // 4] += 1
    return counts


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for arg in sys.argv[1:]:
        L = int(arg)
        dos = density_of_states(L)
        print(f"# L {L} N {L * L}")
        for e, g in sorted(dos.items()):
            print(e, g)


if __name__ == "__main__":
    main()
