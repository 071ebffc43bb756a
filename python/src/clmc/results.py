"""Reading clmc's result files: result.json and series.csv of a run, summary files of a scan."""
import json
from pathlib import Path

import pandas as pd


class Result:
    """One run's results (docs/results.md).

    dir: the output directory; result: result.json as a dict; preset: the resolved
    preset; observables: name -> {"mean", "error", "tau_int"} (and the model's extras);
    device: the device that ran it; series: series.csv as a pandas DataFrame (read on
    first use)."""

    def __init__(self, directory):
        self.dir = Path(directory)
        with open(self.dir / "result.json") as f:
            self.result = json.load(f)
        self.preset = self.result["preset"]
        self.observables = self.result["observables"]
        self.device = self.result.get("device", {})
        self._series = None

    @property
    def series(self):
        if self._series is None:
            self._series = pd.read_csv(self.dir / "series.csv")
        return self._series

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
