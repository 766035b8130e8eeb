"""Release JSON: every key is required; a partial release is an error, never zeros filled in."""

from __future__ import annotations

import pytest

from sim.engine.release import Release
from sim.errors import SpecError

FULL = {"position_mm": [-650, 0, 100], "velocity_mps": [1.5, 0, 0.7], "orientation_xyzw": [0, 0, 0, 1],
        "spin_radps": [0, 25, 0]}


def test_full_release_round_trips():
    r = Release.from_json(FULL)
    assert Release.from_json(r.to_json()) == r


@pytest.mark.parametrize("key", list(FULL))
def test_each_missing_key_is_an_error(key):
    partial = {k: v for k, v in FULL.items() if k != key}
    with pytest.raises(SpecError) as exc:
        Release.from_json(partial)
    assert exc.value.field == key and "is required" in exc.value.problem


def test_unknown_key_is_an_error():
    with pytest.raises(SpecError, match="unknown key"):
        Release.from_json({**FULL, "spin_rps": [0, 0, 0]})
