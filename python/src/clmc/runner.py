"""Running the clmc executable: presets and jobs as files, --set options from keyword arguments."""
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .results import load, load_scan


class ClmcError(RuntimeError):
    """clmc exited with a non-zero status; `returncode` and `stderr` say why (2: bad input, 3: device)."""

    def __init__(self, returncode, stderr, command):
        self.returncode, self.stderr, self.command = returncode, stderr, command
        super().__init__(f"clmc exited with status {returncode}: {stderr.strip()}")


def executable():
    """The clmc executable: $CLMC_BIN, else `clmc` on PATH."""
    path = os.environ.get("CLMC_BIN") or shutil.which("clmc")
    if not path:
        raise FileNotFoundError("clmc executable not found: set CLMC_BIN or put clmc on PATH")
    return path


def set_overrides(sets=None, **kwargs):
    """["PATH=VALUE", ...] from a dict of dotted paths and from keyword arguments,
    where a double underscore stands for the dot (model__L=16 -> model.L=16).
    Values are written as JSON, so numbers, booleans, lists and strings keep their type."""
    pairs = dict(sets or {})
    pairs.update({key.replace("__", "."): value for key, value in kwargs.items()})
    return [f"{path}={json.dumps(value)}" for path, value in pairs.items()]


def _call(args):
    command = [executable(), *args]
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise ClmcError(done.returncode, done.stderr, command)
    return done


def _preset_file(preset, folder):
    """A path for a preset given as a path or as a dict (written into `folder`)."""
    if isinstance(preset, (str, os.PathLike)):
        return str(preset)
    path = Path(folder) / "preset.json"
    path.write_text(json.dumps(preset, indent=2))
    return str(path)


def run(preset, device=None, out=None, sets=None, overwrite=False, **kwargs):
    """Runs one preset (a file name or a dict) with `clmc run` and returns its Result.

    device: a device selector as `clmc devices` lists (default: clmc's choice);
    out: the output directory (default: the preset's output.dir, out/<name>);
    sets / kwargs: --set overrides (set_overrides); overwrite: --overwrite.
    Raises ClmcError when clmc fails."""
    overrides = set_overrides(sets, **kwargs)
    with tempfile.TemporaryDirectory(prefix="clmc-preset-") as folder:
        path = _preset_file(preset, folder)
        set_args = [arg for pair in overrides for arg in ("--set", pair)]
        if out is None:
            resolved = json.loads(_call(["check", path, *set_args]).stdout)
            out = resolved["output"]["dir"]
        args = ["run", path, "--out", str(out), "--quiet", *set_args]
        if device is not None:
            args += ["--device", str(device)]
        if overwrite:
            args.append("--overwrite")
        _call(args)
    return load(out)


def scan(job, out=None, devices=None, jobs=None, check=True):
    """Runs a job (a file name or a dict {"preset": ..., "grid": {...}}) with `clmc scan`
    and returns its ScanResult.  A dict's preset file name is taken relative to the
    current directory.  out: the scan directory (default: out/<job file name>, or
    out/scan for a dict); devices: "all" or a list of selectors; jobs: tasks at a
    time per device.  Running it again resumes the scan.  With check=False a scan
    with failed tasks returns its result instead of raising ClmcError."""
    with tempfile.TemporaryDirectory(prefix="clmc-job-") as folder:
        if isinstance(job, (str, os.PathLike)):
            path = str(job)
        else:
            job = dict(job)
            if isinstance(job.get("preset"), (str, os.PathLike)):
                job["preset"] = os.path.abspath(job["preset"])
            path = os.path.join(folder, "scan.json")
            Path(path).write_text(json.dumps(job, indent=2))
        if out is None:
            out = os.path.join("out", Path(path).stem)
        args = ["scan", path, "--out", str(out), "--quiet"]
        if devices is not None:
            args += ["--devices", devices if isinstance(devices, str) else ",".join(devices)]
        if jobs is not None:
            args += ["--jobs", str(int(jobs))]
        try:
            _call(args)
        except ClmcError as error:
            if check or error.returncode == 2 or not os.path.exists(os.path.join(out, "summary.csv")):
                raise
    return load_scan(out)
