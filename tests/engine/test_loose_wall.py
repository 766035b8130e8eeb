"""The Smash Shot's Stone Wall: two loose pieces touching in the middle ("side by side, with the feet on
the sides, touching in the middle", the built-in boards/props/stone-wall.toml): every throw
reproducible, after other throws too (docs/shots-and-props.md)."""

from __future__ import annotations

import math

import pytest

from sim.engine.release import Release
from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario

THROUGH = Release((-0.65, 0.0, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))  # into the joint: knocks them apart
BESIDE = Release((-0.65, 0.08, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))  # into one piece


def _differ(a: dict, b: dict) -> list[str]:
    return [k for k, v in a.items()
            if not (v == b[k] or (isinstance(v, float) and math.isnan(v) and math.isnan(b[k])))]


@pytest.fixture(scope="module")
def worlds():
    sc = Scenario.build(shots=["smash"])
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


def test_the_built_in_pieces_are_loose_and_touch_in_the_middle(worlds):
    from sim.specs.prop import load_prop

    shape = load_prop("stone-wall").shape
    assert shape.free and shape.gap_mm == 0
    th, _ = worlds
    th.throw_releases([BESIDE])  # the pieces are rebuilt standing for every throw
    th.props.start(None)
    gap = th.physics.separation("prop:stone-wall:0", "prop:stone-wall:1")
    assert gap is not None and abs(gap) < 0.1e-3
