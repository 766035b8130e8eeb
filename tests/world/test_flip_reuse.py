"""A flip session in a reused flip world is the session of a world built for it, to the bit: the
template bodies are made again at every session start (`FlipWorld.new_session`), so nothing Bullet
keeps in a body it resets carries from one session to the next."""

from __future__ import annotations

import pytest

from sim.specs.board import load_board
from sim.specs.scenario import Scenario
from sim.specs.template import load_template
from sim.world.flip import FlipRequest, FlipWorld, flip_onto

BOARD = load_board("magma")
WEAK_POINT = load_template("weak-point")
FIREBALL = load_template("fireball")


def _requests(k: int) -> list[FlipRequest]:
    return [FlipRequest("weak-point", WEAK_POINT, 64 * k, "casual"), FlipRequest("fireball", FIREBALL, 64 * k + 1, "casual")]


def test_sessions_in_a_reused_world_in_any_order_are_those_of_fresh_worlds():
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["volcano"], skill="casual")  # a prop at every flip
    fresh = {k: [r.to_json() for r in flip_onto(BOARD, _requests(k), 11, scenario=sc, prop_draw=(11, k)).results]
             for k in range(3)}
    world = FlipWorld(BOARD, [("weak-point", WEAK_POINT), ("fireball", FIREBALL)], scenario=sc, prop_draw=(11, 0))
    ids = dict(world.physics._ids)
    try:
        for k in (2, 0, 1, 0):  # another history than the fresh ones', a session repeated
            again = [r.to_json() for r in flip_onto(BOARD, _requests(k), 11, scenario=sc, prop_draw=(11, k), world=world).results]
            assert again == fresh[k], k
        assert world.physics._ids == ids  # the bodies made again took their old ids
    finally:
        world.physics.close()


def test_a_reused_world_must_hold_the_sessions_templates():
    world = FlipWorld(BOARD, [("fireball", FIREBALL)])
    try:
        with pytest.raises(ValueError, match="reused flip world"):
            flip_onto(BOARD, _requests(0), 1, world=world)
    finally:
        world.physics.close()


def test_a_thrower_rebuilding_its_flip_world_throws_the_same_throws(monkeypatch):
    """The template layer reuses one flip world and builds it again every RENEWALS sessions: how often
    changes nothing (a session is the same in a reused world as in a new one)."""
    from sim.engine import templates as layer_module
    from sim.engine.worlds import build_thrower

    def records(renewals: int) -> list:
        monkeypatch.setattr(layer_module, "RENEWALS", renewals)
        # flipped templates only: a session with laid templates gets a world of its own anyway
        sc = Scenario.build(templates=[{"name": "fireball", "flip": True}, {"name": "weak-point", "flip": True}])
        th = build_thrower(sc)
        try:
            th.nominal()
            out = []
            for k in range(4):
                res = th.throw(5, k)
                out.append((res.outcome.result, tuple(res.outcome.position_mm), res.extra["tpl_on_board"],
                            [t.position_m for t in th.templates]))
            return out
        finally:
            th.physics.close()

    assert records(1) == records(1000)


def test_a_thrower_with_laid_and_flipped_templates_throws_the_same_throws_in_any_order():
    """Laid templates asleep on the board, a flipped one flipped onto them before every throw: throw k is
    the same throw whatever was thrown before it."""
    from sim.engine.worlds import build_thrower

    sc = Scenario.build(templates=[{"name": "fireball", "x_mm": -60, "y_mm": 40}, {"name": "armor", "x_mm": 150, "y_mm": -60},
                                   {"name": "weak-point", "flip": True}])

    def throws(order) -> dict:
        th = build_thrower(sc)
        try:
            th.nominal()
            out = {}
            for k in order:
                o = th.throw(4004, k).outcome
                out[k] = (o.result, tuple(o.position_mm), tuple(o.orientation_xyzw), [(t.id, t.position_m) for t in th.templates])
            return out
        finally:
            th.physics.close()

    ks = [2, 7, 10, 29]  # 7 and 29 differed with the world reused across sessions with laid templates
    assert throws(ks) == throws(ks[::-1])


def test_a_reused_world_takes_no_laid_templates():
    from sim.specs.template import PlacedTemplate

    world = FlipWorld(BOARD, [("fireball", FIREBALL), ("weak-point", WEAK_POINT)])
    laid = [PlacedTemplate("fireball", FIREBALL, (0.0, 0.0, 0.003), (0.0, 0.0, 0.0, 1.0))]
    try:
        with pytest.raises(ValueError, match="laid templates"):
            flip_onto(BOARD, [FlipRequest("weak-point", WEAK_POINT, 0, "casual")], 1, laid=laid, world=world)
    finally:
        world.physics.close()
