"""Tests of the clmc Python package.  Tests that run the engine need the clmc executable
($CLMC_BIN, as the meson test `python` sets it, or clmc on PATH) and are skipped without it."""
import os
import shutil

import pytest


@pytest.fixture
def clmc_bin():
    path = os.environ.get("CLMC_BIN") or shutil.which("clmc")
    if not path or not os.path.exists(path):
        pytest.skip("no clmc executable (set CLMC_BIN)")
    return path
