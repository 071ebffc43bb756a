"""result.h5 through clmc.load (h5py) against series.csv of the same preset, and GSD export of
hard-disk configurations read back with gsd.  Each test skips, saying why, where h5py or gsd
is not installed or the clmc build lacks HDF5."""
import numpy as np
import pandas as pd
import pytest

import clmc

TEMPERING = {"model": {"type": "ising", "L": 8}, "algorithm": {"tile": 4},
             "ensemble": {"type": "parallel_tempering", "betas": [0.3, 0.4, 0.5], "exchange_every": 5},
             "run": {"thermalization": 100, "sweeps": 1000, "seed": 6}}
DISKS = {"model": {"type": "hard_disks", "N": 256, "packing_fraction": 0.6},
         "run": {"thermalization": 50, "sweeps": 200, "measure_every": 10, "seed": 3}}


def run_hdf5(preset, out, **sets):
    try:
        return clmc.run(preset, out=out, output__format="hdf5", **sets)
    except clmc.ClmcError as failure:
        if failure.returncode == 2 and "lacks HDF5" in failure.stderr:
            pytest.skip("this clmc build lacks HDF5 (meson -Dhdf5)")
        raise


def test_hdf5_series_equals_the_csv_series(clmc_bin, tmp_path):
    pytest.importorskip("h5py", reason="h5py not installed (pip install './python[hdf5]')")
    from_csv = clmc.run(TEMPERING, out=tmp_path / "csv")
    from_h5 = run_hdf5(TEMPERING, tmp_path / "h5")
    assert from_h5.h5_path is not None and not (tmp_path / "h5" / "series.csv").exists()
    print(from_h5.series.tail(3))
    print(f"{len(from_h5.series)} rows, columns {list(from_h5.series.columns)}")
    pd.testing.assert_frame_equal(from_h5.series, from_csv.series)
    assert from_h5.observables == from_csv.observables
    spins, _ = from_h5.configuration("spins")
    config_at, _ = from_h5.configuration("config_at")
    assert spins.shape == (3, 8, 8) and set(np.unique(spins)) <= {-1, 1}
    # The configuration at each temperature after the last sweep gives that temperature's last row.
    at_temperature = spins[config_at]
    energies = -(at_temperature * (np.roll(at_temperature, 1, axis=1) + np.roll(at_temperature, 1, axis=2))).sum(
        axis=(1, 2)) / 64
    last = from_h5.series["energy"].to_numpy()[-3:]
    print(f"config_at {config_at}; energies from the configurations {energies}, last rows {last}")
    np.testing.assert_array_equal(energies, last)


def test_gsd_round_trip_keeps_positions_and_box(clmc_bin, tmp_path):
    gsd_hoomd = pytest.importorskip("gsd.hoomd", reason="gsd not installed (pip install './python[gsd]')")
    r = clmc.run(DISKS, out=tmp_path / "disks", model__write_configuration=True)
    positions, box = clmc.disk_positions(r)
    assert positions.shape == (256, 2) and 0 <= positions.min() and positions.max() < box
    path = clmc.to_gsd([r, tmp_path / "disks"], tmp_path / "disks.gsd")
    with gsd_hoomd.open(str(path), "r") as trajectory:
        assert len(trajectory) == 2
        frame = trajectory[1]
        print(f"box {frame.configuration.box}, N {frame.particles.N}, first {frame.particles.position[0]}")
        assert frame.configuration.dimensions == 2
        np.testing.assert_array_equal(frame.configuration.box, np.float32([box, box, 0, 0, 0, 0]))
        assert frame.particles.N == 256 and list(frame.particles.types) == ["disk"]
        np.testing.assert_array_equal(frame.particles.position[:, :2], np.float32(positions - box / 2))
        assert not frame.particles.position[:, 2].any()
        assert frame.configuration.step == 250


def test_gsd_from_result_h5_equals_gsd_from_csv(clmc_bin, tmp_path):
    pytest.importorskip("h5py", reason="h5py not installed (pip install './python[hdf5]')")
    pytest.importorskip("gsd.hoomd", reason="gsd not installed (pip install './python[gsd]')")
    r = run_hdf5(DISKS, tmp_path / "disks", model__write_configuration=True)
    from_h5, box = clmc.disk_positions(r)
    csv = pd.read_csv(tmp_path / "disks" / "configuration.csv")[["x", "y"]].to_numpy()
    print(f"largest difference result.h5 - configuration.csv (9 digits): {np.abs(from_h5 - csv).max():.2g}")
    np.testing.assert_allclose(from_h5, csv, rtol=0, atol=1e-7 * box)
    assert box == r.result["checks"]["box_length"]
