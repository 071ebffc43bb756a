"""clmc from Python: run presets and scans through the clmc executable and read their results.

    import clmc
    r = clmc.run("presets/ising2d-critical.json", model__L=32, run__sweeps=1000)
    r.observables["energy"]["mean"], r.series.head()
    s = clmc.scan({"preset": "...", "grid": {"model.L": [8, 16]}}, out="out/myscan")
    s.summary  # one row per task

The reference is docs/python.md in the clmc repository.
"""
from .runner import ClmcError, executable, run, scan, set_overrides
from .results import Result, ScanResult, load, load_scan
from .export import disk_positions, to_gsd
from . import analysis, exact

__all__ = ["ClmcError", "Result", "ScanResult", "analysis", "disk_positions", "exact", "executable", "load", "load_scan", "run",
           "scan", "set_overrides", "to_gsd"]
__version__ = "0.1.0"
