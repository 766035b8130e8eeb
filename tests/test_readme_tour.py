"""The second half of the README's tour runs as written (tests/readme_tour.py), on a local Dask
cluster for its `--scheduler` line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from readme_tour import dask_scheduler_address, halves, run_tour  # noqa: E402

dask_scheduler = pytest.fixture(scope="module")(dask_scheduler_address)


def test_the_second_half_of_the_tour_runs_as_written(tmp_path, dask_scheduler):
    print("\n".join(run_tour(halves()[1], tmp_path, dask_scheduler)))  # -rP shows where the time goes
