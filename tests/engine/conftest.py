"""Fixtures of the engine tests."""

from __future__ import annotations

import pytest

from sim.engine.aim import clear_nominal_cache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty disk cache of this test's own, and no aim solved in this process before it."""
    monkeypatch.setenv("DFSIM_CACHE_DIR", str(tmp_path))
    clear_nominal_cache()
    yield tmp_path
    clear_nominal_cache()
