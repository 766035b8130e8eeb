import pytest

from sim.specs.scenario import Scenario


@pytest.fixture(scope="session")
def magma_d8():
    return Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")


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
