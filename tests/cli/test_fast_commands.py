"""Single commands stay cheap: `dfsim --help` and the listings import no heavy module, and a second
`dfsim throw` or `dfsim flip` reads its solved aim from the cache folder and prints the same answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("pybullet", "matplotlib", "pandas", "pyarrow", "scipy", "dask")


def _loaded(args: list[str]) -> set[str]:
    code = ("import sys; from sim.cli.main import main; rc = main(sys.argv[1:]); "
            f"print('\\n'.join(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return {line for line in out.stderr.splitlines() if line in HEAVY}


@pytest.mark.parametrize("args", [[], ["--help"], ["boards"], ["shots"], ["skills"], ["templates"], ["props"]])
def test_help_and_listings_import_no_heavy_module(args):
    assert _loaded(args) == set()


def test_dice_listing_needs_only_scipy():
    assert _loaded(["dice"]) <= {"scipy"}


def test_a_runs_modules_leave_scipy_stats_out():
    # scipy.stats costs a second to import; the runner and a pool worker need only scipy.special's
    # quantiles (sim/experiments/statistics.py)
    code = ("import sys, sim.experiments.runner, sim.experiments.throw_experiment; "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _dfsim(args: list[str], cache) -> subprocess.CompletedProcess:
    env = dict(os.environ, DFSIM_CACHE_DIR=str(cache))
    return subprocess.run([sys.executable, "-m", "sim.cli", *args], capture_output=True, text=True, env=env, check=True)


def test_a_warm_throw_is_the_cold_throw(tmp_path):
    args = ["throw", "--shot", "flip", "--seed", "7", "--index", "2", "--json"]  # a quick solve (conftest's quick_aim)
    cold = _dfsim(args, tmp_path)
    assert {p.parent.name for p in tmp_path.rglob("*.json")} == {"aim", "rebound"}
    warm = _dfsim(args, tmp_path)
    assert json.loads(warm.stdout) == json.loads(cold.stdout)
    assert "aiming" not in warm.stderr  # nothing solved, nothing shown


def test_a_warm_flip_is_the_cold_flip(tmp_path):
    args = ["flip", "fireball", "--seed", "3", "--json"]
    cold = _dfsim(args, tmp_path)
    assert list((tmp_path / "flip").glob("*.json"))
    assert json.loads(_dfsim(args, tmp_path).stdout) == json.loads(cold.stdout)
