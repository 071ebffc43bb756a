"""Analysis of clmc series and scans on established libraries: autocorrelation times and
subsampling from pymbar.timeseries, MBAR reweighting from pymbar, root finding and
interpolation from scipy.  Conventions: docs/python.md."""
import contextlib
import io

import numpy as np
import pandas as pd


def _pymbar():
    """pymbar, imported without its banners on stdout (the JAX notice, the timeseries caution)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            import pymbar
            from pymbar import timeseries  # noqa: F401  (prints its caution once, on import)
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError("this helper needs pymbar: pip install './python[mbar]'") from error
    return pymbar


def _timeseries():
    return _pymbar().timeseries


def tau_int(x):
    """Integrated autocorrelation time of a series, in measurements, in the convention
    of result.json: tau_int = g / 2, g the statistical inefficiency of
    pymbar.timeseries.statistical_inefficiency (1/2 for independent samples)."""
    return 0.5 * _timeseries().statistical_inefficiency(np.asarray(x, dtype=float))


def error(x):
    """Standard error of the mean of a correlated series: sqrt(var * g / n), with g the
    statistical inefficiency (pymbar.timeseries)."""
    x = np.asarray(x, dtype=float)
    g = _timeseries().statistical_inefficiency(x)
    return float(np.sqrt(np.var(x, ddof=1) * g / len(x)))


def binning_errors(x, min_bins=32):
    """Binning analysis: for bin sizes 1, 2, 4, ... (at least `min_bins` bins) the
    standard error of the mean from the bin averages.  A DataFrame with columns
    bin_size, bins and error; the error grows to a plateau once the bins are longer
    than the autocorrelation time, and the plateau is the honest error."""
    x = np.asarray(x, dtype=float)
    rows, size = [], 1
    while len(x) // size >= min_bins:
        n = len(x) // size
        means = x[: n * size].reshape(n, size).mean(axis=1)
        rows.append((size, n, float(np.std(means, ddof=1) / np.sqrt(n))))
        size *= 2
    return pd.DataFrame(rows, columns=["bin_size", "bins", "error"])


def binder(m):
    """Binder cumulant 1 - <m^4> / (3 <m^2>^2) of a magnetisation series (as result.json's `binder`)."""
    m = np.asarray(m, dtype=float)
    return float(1 - np.mean(m**4) / (3 * np.mean(m**2) ** 2))


def _curves(summary, size, temperature, value):
    """{L: (betas, U, dU)}: seeds and repeated points averaged (inverse-variance weights)."""
    curves = {}
    err = value + "_error"
    for L, by_size in summary.groupby(size):
        rows = []
        for beta, point in by_size.groupby(temperature):
            w = 1 / point[err].to_numpy() ** 2
            rows.append((beta, np.sum(w * point[value].to_numpy()) / np.sum(w), 1 / np.sqrt(np.sum(w))))
        rows.sort()
        curves[L] = tuple(np.array(column) for column in zip(*rows))
    return curves


def _crossing(beta, u_small, u_large, degree):
    """Where two curves sampled at the same betas cross: the root of a polynomial fit of
    their difference within the betas (scipy.optimize.brentq), or NaN."""
    from scipy.optimize import brentq

    fit = np.polynomial.Polynomial.fit(beta, u_large - u_small, min(degree, len(beta) - 1))
    grid = np.linspace(beta[0], beta[-1], 201)
    values = fit(grid)
    change = np.nonzero(np.sign(values[:-1]) != np.sign(values[1:]))[0]
    if len(change) == 0:
        return np.nan
    return brentq(fit, grid[change[0]], grid[change[0] + 1])


def binder_crossing(summary, size="model.L", temperature="ensemble.beta", value="binder", degree=2,
                    resamples=400, seed=1):
    """Crossings of Binder-cumulant curves U_L(beta) of successive sizes from a scan summary
    (ScanResult.summary or any DataFrame with the size, temperature, value and value_error
    columns).  Each pair of sizes gives the root of a polynomial fit (degree `degree`) of
    U_L' - U_L over the common betas; its error is the spread of the roots when every point
    is redrawn from a normal distribution with its error (`resamples` times).  Returns a
    DataFrame with L_small, L_large, beta_cross, error: the largest pair is the best estimate."""
    rng = np.random.default_rng(seed)
    curves = _curves(summary, size, temperature, value)
    sizes = sorted(curves)
    rows = []
    for small, large in zip(sizes, sizes[1:]):
        b1, u1, e1 = curves[small]
        b2, u2, e2 = curves[large]
        common = np.intersect1d(b1, b2)
        i1, i2 = np.searchsorted(b1, common), np.searchsorted(b2, common)
        beta, us, es, ul, el = common, u1[i1], e1[i1], u2[i2], e2[i2]
        root = _crossing(beta, us, ul, degree)
        draws = [_crossing(beta, rng.normal(us, es), rng.normal(ul, el), degree) for _ in range(resamples)]
        draws = np.array(draws)
        rows.append((small, large, root, float(np.nanstd(draws, ddof=1)), float(np.mean(np.isnan(draws)))))
    return pd.DataFrame(rows, columns=["L_small", "L_large", "beta_cross", "error", "no_crossing_fraction"])


def _column(frame, name):
    """A series column as a writable float array; "abs_NAME" is |NAME| where series.csv
    has only the signed column (abs_magnetization from magnetization)."""
    if name not in frame.columns and name.startswith("abs_") and name[4:] in frame.columns:
        return np.abs(np.array(frame[name[4:]], dtype=float))
    return np.array(frame[name], dtype=float)


def _states(result):
    """Per temperature: (beta, its rows of series.csv)."""
    series = result.series
    if "beta" not in series.columns:
        beta = result.preset["ensemble"]["beta"]
        return [(float(beta), series)]
    return [(float(beta), rows) for beta, rows in series.groupby("beta")]


def mbar_reweight(result, betas, observables=("energy",), subsample=True, bootstrap=0, seed=1):
    """MBAR (pymbar) estimates at inverse temperatures `betas` from a run with several
    temperatures (parallel tempering, independent systems) or from one temperature.

    Every row of series.csv is a sample of the state at its `beta`, with reduced energy
    beta * energy * N (energy per spin times the spins of one system, Result.sites).
    With subsample=True each state's samples are thinned to uncorrelated ones by
    pymbar.timeseries.subsample_correlated_data on the energy, as MBAR assumes
    independent samples.  Returns a DataFrame indexed by beta with NAME and NAME_error for
    every observable (a series.csv column, per spin; "abs_NAME" for |NAME|) and specific_heat = beta^2 N
    (<e^2> - <e>^2) with specific_heat_error from `bootstrap` resamplings of the samples
    (NaN when bootstrap is 0)."""
    MBAR = _pymbar().MBAR
    timeseries = _timeseries()
    n_sites = result.sites
    samples, counts, sampled_betas = [], [], []
    for beta, rows in _states(result):
        if subsample:
            rows = rows.iloc[timeseries.subsample_correlated_data(_column(rows, "energy"))]
        samples.append(rows)
        counts.append(len(rows))
        sampled_betas.append(beta)
    pooled = pd.concat(samples, ignore_index=True)
    counts = np.array(counts)

    def estimate(frame):
        with np.errstate(divide="ignore"):  # pymbar takes logs of |A|; a zero sample is fine
            return _estimate(frame)

    def _estimate(frame):
        e_total = _column(frame, "energy") * n_sites
        mbar = MBAR(np.outer(sampled_betas, e_total), counts, solver_protocol="robust")
        out = {}
        for beta in betas:
            u_n = beta * e_total
            row = {}
            for name in observables:
                r = mbar.compute_expectations(_column(frame, name), u_kn=u_n)
                row[name], row[name + "_error"] = float(np.ravel(r["mu"])[0]), float(np.ravel(r["sigma"])[0])
            e = _column(frame, "energy")
            mean_e = float(np.ravel(mbar.compute_expectations(e, u_kn=u_n, compute_uncertainty=False)["mu"])[0])
            mean_e2 = float(np.ravel(mbar.compute_expectations(e**2, u_kn=u_n, compute_uncertainty=False)["mu"])[0])
            row["specific_heat"] = beta**2 * n_sites * (mean_e2 - mean_e**2)
            out[beta] = row
        return out

    table = pd.DataFrame.from_dict(estimate(pooled), orient="index")
    table.index.name = "beta"
    table["specific_heat_error"] = np.nan
    if bootstrap:
        rng = np.random.default_rng(seed)
        values = []
        for _ in range(bootstrap):
            redrawn = pd.concat([s.iloc[rng.integers(0, len(s), len(s))] for s in samples], ignore_index=True)
            values.append([row["specific_heat"] for row in estimate(redrawn).values()])
        table["specific_heat_error"] = np.std(np.array(values), axis=0, ddof=1)
    return table
