"""The Smash Shot's Stone Wall as loose pieces (`free = true`, touching at the joint; the built-in wall
is fixed, boards/props/stone-wall.toml): every throw reproducible, after other throws too (docs/shots-and-props.md)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sim.engine.release import Release
from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario

ROOT = Path(__file__).resolve().parents[2]
THROUGH = Release((-0.65, 0.0, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))  # into the joint: knocks them apart
BESIDE = Release((-0.65, 0.08, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))  # into one piece


def _differ(a: dict, b: dict) -> list[str]:
    return [k for k, v in a.items()
            if not (v == b[k] or (isinstance(v, float) and math.isnan(v) and math.isnan(b[k])))]


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("loose")
    loose = (ROOT / "boards" / "props" / "stone-wall.toml").read_text()
    (tmp / "loose.toml").write_text(loose.replace("free = false", "free = true").replace("gap_mm = 24", "gap_mm = 0.5"))
    shot = (ROOT / "shots" / "smash.toml").read_text().replace('props = ["stone-wall"]', f'props = ["{tmp / "loose.toml"}"]')
    (tmp / "shot.toml").write_text(shot)
    sc = Scenario.build(shots=[str(tmp / "shot.toml")])
    pair = build_thrower(sc), build_thrower(sc)
    yield pair
    for th in pair:
        th.physics.close()


def test_loose_pieces_first_throw_of_a_fresh_world_is_reproducible(worlds):
    a, b = (th.throw_releases([THROUGH]).record() for th in worlds)
    assert a["requirements"].endswith("stone-wall=passed")
    assert _differ(a, b) == []


def test_loose_pieces_after_other_throws(worlds):
    first, _ = worlds
    a = first.throw_releases([THROUGH]).record()
    first.throw_releases([BESIDE])
    assert _differ(a, first.throw_releases([THROUGH]).record()) == []
