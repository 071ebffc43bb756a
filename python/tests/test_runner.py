"""clmc.run, clmc.scan and clmc.load through the clmc executable on tiny Ising lattices."""
import json

import numpy as np
import pytest

import clmc

PRESET = {"model": {"type": "ising", "L": 8}, "algorithm": {"tile": 4}, "ensemble": {"beta": 0.4},
          "run": {"thermalization": 100, "sweeps": 2000, "measure_every": 2}}


def test_keyword_arguments_become_set_options():
    assert clmc.set_overrides({"run.seed": 3}, model__L=16, output__dir="x y") == [
        "run.seed=3", "model.L=16", 'output.dir="x y"']


def test_run_a_dict_with_sets_and_load_it(clmc_bin, tmp_path):
    r = clmc.run(PRESET, out=tmp_path / "run", model__L=16, sets={"run.seed": 7})
    assert r.preset["model"]["L"] == 16 and r.preset["run"]["seed"] == 7
    assert r.sites == 256
    assert list(r.series.columns) == ["sweep", "energy", "magnetization"]
    assert len(r.series) == r.observables["measurements"] == 1000
    mean = r.series["energy"].mean()
    print(f"series mean {mean!r}, result.json {r.mean('energy')!r} +- {r.error('energy')}")
    assert mean == pytest.approx(r.mean("energy"), abs=1e-12)
    assert r.device["name"]
    again = clmc.load(tmp_path / "run")
    assert again.observables == r.observables


def test_bad_input_raises_with_status_2_naming_the_key(clmc_bin, tmp_path):
    with pytest.raises(clmc.ClmcError) as failure:
        clmc.run(PRESET, out=tmp_path / "bad", model__Lx=16)
    assert failure.value.returncode == 2
    assert "model.Lx" in failure.value.stderr


def test_scan_and_its_summary(clmc_bin, tmp_path):
    job = {"preset": PRESET, "grid": {"model.L": [8, 16], "run.seed": {"from": 1, "to": 2}}}
    s = clmc.scan(job, out=tmp_path / "scan", jobs=2)
    print(s.summary)
    assert len(s.summary) == 4
    assert list(s.summary["status"]) == ["done"] * 4
    assert list(s.summary["model.L"]) == [8, 8, 16, 16]
    assert list(s.summary["run.seed"]) == [1, 2, 1, 2]
    results = s.results()
    assert [r.preset["model"]["L"] for r in results] == [8, 8, 16, 16]
    for (_, row), r in zip(s.summary.iterrows(), results):
        assert row["energy"] == r.mean("energy") and row["energy_error"] == r.error("energy")
    before = (tmp_path / "scan" / "summary.csv").read_text()
    again = clmc.scan(job, out=tmp_path / "scan", jobs=2)  # every task done: nothing reruns
    assert (tmp_path / "scan" / "summary.csv").read_text() == before
    assert json.loads((tmp_path / "scan" / "summary.json").read_text())["job"]["grid"] == job["grid"]
    assert np.all(again.summary["energy"] == s.summary["energy"])


def test_scan_with_a_bad_grid_path(clmc_bin, tmp_path):
    with pytest.raises(clmc.ClmcError) as failure:
        clmc.scan({"preset": PRESET, "grid": {"model.LL": [8]}}, out=tmp_path / "bad")
    assert failure.value.returncode == 2 and "did you mean" in failure.value.stderr
