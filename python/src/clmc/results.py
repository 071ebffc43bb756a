"""Reading clmc's result files: result.json and series.csv (or result.h5) of a run, summary files of a scan."""
import json
from pathlib import Path

import numpy as np
import pandas as pd


def _h5py():
    try:
        import h5py
    except ImportError as missing:
        raise ImportError("reading result.h5 needs h5py: pip install './python[hdf5]'") from missing
    return h5py


class Result:
    """One run's results (docs/results.md).

    dir: the output directory; result: result.json as a dict; preset: the resolved
    preset; observables: name -> {"mean", "error", "tau_int"} (and the model's extras);
    device: the device that ran it; series: the time series as a pandas DataFrame (read
    on first use) from result.h5 where the run wrote one (output.format "hdf5", read with
    h5py), else from series.csv, with the same columns and values either way;
    configuration(): the final configuration from result.h5."""

    def __init__(self, directory):
        self.dir = Path(directory)
        with open(self.dir / "result.json") as f:
            self.result = json.load(f)
        self.preset = self.result["preset"]
        self.observables = self.result["observables"]
        self.device = self.result.get("device", {})
        self._series = None

    @property
    def h5_path(self):
        """DIR/result.h5, or None where the run wrote csv files."""
        path = self.dir / "result.h5"
        return path if path.exists() else None

    @property
    def series(self):
        if self._series is None:
            self._series = self._read_h5_series() if self.h5_path else pd.read_csv(self.dir / "series.csv")
        return self._series

    def _read_h5_series(self):
        with _h5py().File(self.h5_path, "r") as f:
            group = f["series"]
            columns = group.attrs["columns"]
            columns = columns.decode() if isinstance(columns, bytes) else str(columns)
            return pd.DataFrame({name: np.asarray(group[name]) for name in columns.split(",")})

    def configuration(self, name=None):
        """The final configuration stored in result.h5 (docs/results.md): the array
        /configuration/NAME ("spins", "positions", "config_at", "picture"; default: the
        only one besides config_at and the picture) and its attributes as a dict."""
        if not self.h5_path:
            raise FileNotFoundError(f"{self.dir} has no result.h5 (run with output.format \"hdf5\")")
        with _h5py().File(self.h5_path, "r") as f:
            group = f["configuration"]
            if name is None:
                names = [key for key in group if key not in ("picture", "config_at")]
                if len(names) != 1:
                    raise KeyError(f"configuration arrays {list(group)}: name one")
                name = names[0]
            return np.asarray(group[name]), {key: value.item() if hasattr(value, "item") else value
                                              for key, value in group[name].attrs.items()}

    def mean(self, name):
        return self.observables[name]["mean"]

    def error(self, name):
        return self.observables[name]["error"]

    @property
    def sites(self):
        """Spins of one system of a lattice model: L^dim (model.dim defaults to 2)."""
        model = self.preset["model"]
        return int(model["L"]) ** int(model.get("dim", 2))

    def __repr__(self):
        return f"Result({str(self.dir)!r})"


class ScanResult:
    """A scan's results (docs/scan.md): summary (summary.csv as a DataFrame, one row per
    task), job (the job), tasks (task name -> summary.json entry), and result(task) ->
    Result of a finished task."""

    def __init__(self, directory):
        self.dir = Path(directory)
        self.summary = pd.read_csv(self.dir / "summary.csv", dtype={"task": str})
        with open(self.dir / "summary.json") as f:
            document = json.load(f)
        self.job = document["job"]
        self.tasks = {task["task"]: task for task in document["tasks"]}

    def result(self, task):
        return Result(self.dir / "tasks" / str(task))

    def results(self):
        """Results of every finished task, in task order."""
        return [self.result(name) for name, task in self.tasks.items() if task["status"] == "done"]

    def __repr__(self):
        return f"ScanResult({str(self.dir)!r}, {len(self.tasks)} tasks)"


def load(directory):
    """The Result in a run's output directory."""
    return Result(directory)


def load_scan(directory):
    """The ScanResult in a scan directory."""
    return ScanResult(directory)
