import pytest

from sim.specs.scenario import Scenario


@pytest.fixture(scope="session")
def magma_d8():
    return Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")


@pytest.fixture(scope="session", autouse=True)
def _private_cache_dir(tmp_path_factory):
    """Solved aims (sim/engine/aim_cache.py) go to a folder of this test session, never the user's cache;
    CLI subprocesses inherit it."""
    import os

    old = os.environ.get("DFSIM_CACHE_DIR")
    os.environ["DFSIM_CACHE_DIR"] = str(tmp_path_factory.mktemp("dfsim-cache"))
    yield
    if old is None:
        os.environ.pop("DFSIM_CACHE_DIR", None)
    else:
        os.environ["DFSIM_CACHE_DIR"] = old
