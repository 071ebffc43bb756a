"""Hard-disk configurations as GSD files (HOOMD-blue's format), which freud and OVITO open."""
from pathlib import Path

import numpy as np
import pandas as pd

from .results import Result, load


def _result(run):
    return run if isinstance(run, Result) else load(run)


def disk_positions(run):
    """(positions, box_length) of a hard-disk run's final configuration: centres [N, 2] in
    units of sigma inside [0, box_length), from result.h5 (output.format "hdf5") or else
    configuration.csv (model.write_configuration)."""
    r = _result(run)
    if r.preset["model"]["type"] != "hard_disks":
        raise ValueError(f"{r.dir}: model.type is {r.preset['model']['type']!r}, not 'hard_disks'")
    if r.h5_path:
        positions, attributes = r.configuration("positions")
        return positions, float(attributes["box_length"])
    csv = r.dir / "configuration.csv"
    if not csv.exists():
        raise FileNotFoundError(f"{r.dir} holds no configuration: run with output.format \"hdf5\" or "
                                "model.write_configuration true")
    return pd.read_csv(csv)[["x", "y"]].to_numpy(), float(r.result["checks"]["box_length"])


def to_gsd(runs, path):
    """Writes the final configurations of hard-disk runs (Results or directories; one or a
    list, one frame each) into the GSD file `path`: a 2D square box of edge L
    (configuration.box = [L, L, 0, 0, 0, 0], dimensions 2), positions shifted into
    [-L/2, L/2) as HOOMD-blue and freud expect (z = 0), one type "disk", diameter 1 (sigma),
    configuration.step the run's sweeps.  Returns the path."""
    try:
        import gsd.hoomd
    except ImportError as missing:
        raise ImportError("GSD export needs gsd: pip install './python[gsd]'") from missing
    runs = runs if isinstance(runs, (list, tuple)) else [runs]
    with gsd.hoomd.open(str(path), "w") as trajectory:
        for run in runs:
            r = _result(run)
            positions, box = disk_positions(r)
            frame = gsd.hoomd.Frame()
            frame.configuration.step = int(r.preset["run"]["thermalization"] + r.preset["run"]["sweeps"])
            frame.configuration.dimensions = 2
            frame.configuration.box = [box, box, 0, 0, 0, 0]
            frame.particles.N = len(positions)
            frame.particles.types = ["disk"]
            frame.particles.typeid = np.zeros(len(positions), dtype=np.uint32)
            centred = np.zeros((len(positions), 3), dtype=np.float32)
            centred[:, :2] = positions - box / 2
            frame.particles.position = centred
            frame.particles.diameter = np.ones(len(positions), dtype=np.float32)
            trajectory.append(frame)
    return Path(path)
