from pathlib import Path

import pytest

from sim.specs.scenario import Scenario

# The longest test files, longest first, by their time in a whole run (`--durations`, summed per file).
# `--dist loadfile` keeps a file on one worker, and a worker takes the next file when it is free: started
# last, a long file would run alone at the end while the other core idles (longest-first is the classic
# schedule that avoids it). pyproject.toml turns off pytest-xdist's own reordering (most tests first),
# which put these, having one or two tests each, at the very end.
LONG_FILES_FIRST = (
    "tests/test_readme_tour.py",
    "tests/test_readme.py",
    "tests/engine/test_determinism.py",
    "tests/studies/test_skill_fit.py",
    "tests/experiments/test_runner.py",
    "tests/studies/test_calibration.py",
    "tests/experiments/test_notebook_difficulty.py",
    "tests/studies/test_validation.py",
    "tests/studies/test_skill_order.py",
    "tests/fights/test_fight_physics.py",
    "tests/engine/test_portability.py",
    "tests/experiments/test_doctor_promises.py",
    "tests/viewer/test_viewer.py",
    "tests/cli/test_tune_cli.py",
    "tests/experiments/test_template_odds.py",
)


def pytest_collection_modifyitems(session, config, items):
    """Run the long files first (LONG_FILES_FIRST), the rest in collection order; a listed file that is
    gone is an error, so the list follows renames."""
    root = Path(__file__).resolve().parents[1]
    missing = [name for name in LONG_FILES_FIRST if not (root / name).is_file()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py: LONG_FILES_FIRST: no such file: {', '.join(missing)}")
    rank = {name: n for n, name in enumerate(LONG_FILES_FIRST)}

    def key(item):
        path = Path(str(item.path)).resolve()
        rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()
        return rank.get(rel, len(rank))

    items.sort(key=key)  # stable: within a file, and among the rest, the collected order


@pytest.fixture(scope="session")
def magma_d8():
    return Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")


@pytest.fixture(scope="session")
def quick_aim():
    """A scenario whose aim solve is among the quickest (the thumb flip: its elevation limits cut the
    grid, ~500 reference throws where the standard shot takes ~900): for tests of the cache that
    solve cold on purpose, which assert the same of any scenario's solve."""
    return Scenario.build(board="magma", dice=["hero-d8"], shots=["flip"], skill="casual")


@pytest.fixture
def grid_technique():
    """Give a thrower a candidate of its own aim grid in place of its solved aim (the middle one: a
    release bouncing on the table before the board, into the shot's props as the solved aim's does),
    for tests of what a throw does in a world, not of where the aim lies: a shot's solve costs seconds
    to half a minute (the Smash's loose wall). Returns the grid (None for an unaimed shot). The
    technique is that thrower's only (`Thrower.set_nominal`): nothing to forget afterwards."""

    def install(thrower):
        aim = thrower.aim_point()
        if aim is None:
            return None
        grid = thrower.aim.grid(aim)
        thrower.set_nominal(grid[len(grid) // 2])
        return grid

    return install


@pytest.fixture(scope="session", autouse=True)
def _private_cache_dir(tmp_path_factory):
    """Solved aims (sim/diskcache.py) go to a folder of this test session, never the user's cache; CLI
    subprocesses inherit it. pytest-xdist's workers share one folder (the cache is safe under
    concurrent writers), so an aim one worker solved is read by the other, as runs on one machine do."""
    import os

    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "dfsim-cache"
    folder.mkdir(exist_ok=True)
    old = os.environ.get("DFSIM_CACHE_DIR")
    os.environ["DFSIM_CACHE_DIR"] = str(folder)
    yield
    if old is None:
        os.environ.pop("DFSIM_CACHE_DIR", None)
    else:
        os.environ["DFSIM_CACHE_DIR"] = old


REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def load_script():
    """Load a script of the repository that is not a package module (a benchmark, a tool) by its path from
    the repository's root, registered under `name` (a dataclass in it looks its module up)."""
    import importlib.util
    import sys

    def load(relative: str, name: str):
        spec = importlib.util.spec_from_file_location(name, REPO / relative)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod

    return load


@pytest.fixture
def run_notebook(monkeypatch):
    """Execute notebooks/NAME top to bottom with these environment settings; its code cells' outputs,
    after checking that none is an error."""
    from pathlib import Path

    def run(name: str, env: dict[str, str], timeout: int = 600) -> list[dict]:
        nbformat = pytest.importorskip("nbformat")
        nbclient = pytest.importorskip("nbclient")
        # a kernel draws its figures inline: a backend another test's in-process `dfsim` set (it runs
        # headless, MPLBACKEND=Agg) must not reach it, or the notebook shows no figure
        monkeypatch.delenv("MPLBACKEND", raising=False)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        notebook = Path(__file__).resolve().parents[1] / "notebooks" / name
        nb = nbformat.read(notebook, as_version=4)
        client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                         resources={"metadata": {"path": str(notebook.parent)}})
        client.execute()
        outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
        assert not [o for o in outputs if o.get("output_type") == "error"]
        return outputs

    return run
