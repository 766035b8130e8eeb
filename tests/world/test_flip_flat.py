"""A flip ends only when the template lies flat: one standing on its edge is flipped again."""

from __future__ import annotations

import json
import math

import numpy as np

from sim.cli.main import main
from sim.specs.board import load_board
from sim.specs.flip import FlipProfile
from sim.specs.template import flat_pose, load_template
from sim.world.flight import FlightState
from sim.world.flip import FlipWorld, flip_template, lies_flat

BOARD = load_board("magma")
FIREBALL = load_template("fireball")  # a disk 100 mm across, 2 mm thick


def _edge_pose(spec, x_m: float, y_m: float, base_z_m: float):
    """Standing on its rim: normal horizontal (turned 90 deg about x), centre one radius up."""
    r = float(np.max(np.linalg.norm(np.asarray(spec.local_outline.exterior.coords), axis=1)))
    q = (math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4))
    return (x_m, y_m, base_z_m + r), q


def test_lies_flat_from_normal_and_height():
    top = BOARD.thickness_m
    pos, q = flat_pose(FIREBALL, 0, 0, 30, top)
    flat, tilt, rise = lies_flat(BOARD, FIREBALL, pos, q)
    assert flat and tilt < 1e-6 and abs(rise) < 1e-9
    # upside down is flat too (both faces are printed alike)
    assert lies_flat(BOARD, FIREBALL, pos, (1.0, 0.0, 0.0, 0.0))[0]
    # standing on its edge: neither the normal nor the height pass
    pos_e, q_e = _edge_pose(FIREBALL, 0.0, 0.0, top)
    flat, tilt, rise = lies_flat(BOARD, FIREBALL, pos_e, q_e)
    assert not flat and tilt > 89 and rise > 0.04
    # lying across a lower template's edge: a few degrees and about a thickness up -> flat
    a = math.radians(2.5)
    q_t = (math.sin(a / 2), 0.0, 0.0, math.cos(a / 2))
    z = top + FIREBALL.thickness_m / 2 + FIREBALL.thickness_m + 0.001
    assert lies_flat(BOARD, FIREBALL, (0, 0, z), q_t, [FIREBALL])[0]
    # either criterion alone rejects: tilted but low, or flat but high (propped on a prop)
    a = math.radians(FlipProfile().flat_tilt_deg + 1)
    assert not lies_flat(BOARD, FIREBALL, pos, (math.sin(a / 2), 0.0, 0.0, math.cos(a / 2)))[0]
    assert not lies_flat(BOARD, FIREBALL, (0, 0, pos[2] + 0.007), q)[0]


def test_template_set_standing_on_its_edge_is_not_accepted():
    w = FlipWorld(BOARD, [("fireball", FIREBALL)])
    try:
        pos, q = _edge_pose(FIREBALL, 0.02, 0.0, BOARD.thickness_m)
        # released at rest on its rim, as if it had just landed that way (turned more than enough)
        att = w.land("fireball", FlightState(np.array(pos), np.zeros(3), np.array(q), np.zeros(3)))
        # it stays standing (a symmetric disk set exactly upright) and comes to rest: not accepted
        assert att.tilt_deg > 80 and att.touching == ["board"], att
        assert att.status == "not-flat", att
    finally:
        w.physics.close()


def test_flip_that_stood_on_edge_is_flipped_again_and_ends_flat(capsys):
    # fireball, seed 49, flip 0: the first landing stands on its rim (tilt ~87 deg, centre ~52 mm up),
    # which was accepted before the rule; now it is flipped again from the stream's next draws
    r = flip_template(BOARD, FIREBALL, seed=49, index=0)[0]
    first, last = r.attempts[0], r.attempts[-1]
    assert first.status == "not-flat" and first.tilt_deg > 60 and first.position_mm[2] > 30
    assert r.placed is not None and last.status == "ok"
    assert last.tilt_deg <= FlipProfile().flat_tilt_deg and r.placed.tilt_deg <= FlipProfile().flat_tilt_deg
    assert r.not_flat >= 1 and r.reflips == r.flips - 1 >= 1
    # deterministic: the same seed re-flips the same way
    assert flip_template(BOARD, FIREBALL, seed=49, index=0)[0].to_json() == r.to_json()
    # and `dfsim flip --json` counts it
    assert main(["flip", "fireball", "--seed", "49", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["not_flat"] == r.not_flat and out["reflips"] == r.reflips
    assert out["attempts"][0]["status"] == "not-flat"
