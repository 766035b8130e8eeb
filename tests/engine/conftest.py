"""Fixtures of the engine tests."""

from __future__ import annotations

import pytest

from sim.engine.worlds import clear_worlds


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty disk cache of this test's own, and no world of this thread holding an aim solved before
    it (aims are held by their throwers: a new Thrower solves or reads its own)."""
    monkeypatch.setenv("DFSIM_CACHE_DIR", str(tmp_path))
    clear_worlds()
    yield tmp_path
    clear_worlds()
