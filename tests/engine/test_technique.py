"""Technique as part of the release (sim/engine/hand.py, sim/specs/shot.py, sim/specs/skill.py): grip and
spin fields validated in one line with exit status 2; a fixed grip puts the chosen face down at release
(checked on the release itself, not on where a chaotic throw ends); the spin given on purpose is the
release's; the error law grows the speed spread with the speed required."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from sim.cli.main import main
from sim.engine.hand import SPEED_ERROR_REF_MPS, Technique, speed_sd
from sim.engine.thrower import Thrower
from sim.errors import SpecError
from sim.seeding import Draw
from sim.specs.catalog import SPEC_CLASSES
from sim.specs.datafiles import builtin_dir
from sim.specs.die import quat_to_matrix
from sim.specs.scenario import Scenario
from sim.vectors import matmul

STANDARD = (builtin_dir("shot") / "standard.toml").read_text()
CASUAL = (builtin_dir("skill") / "casual.toml").read_text()

BAD = [
    ("shot", STANDARD.replace("[release]\n", '[release]\ngrip = "palm"\n'), "release.grip", "random"),
    ("shot", STANDARD.replace("[release]\n", '[release]\nspin_axis = "diagonal"\n'), "release.spin_axis", "lateral"),
    ("shot", STANDARD.replace("[release]\n", '[release]\ngrip_face = "3"\n'), "release.grip_face",
     "applies only with grip = 'face'"),
    ("shot", STANDARD + '\n[limits]\ngrips = []\n', "limits.grips", "at least 1"),
    ("shot", STANDARD + '\n[limits]\ngrips = ["face", "face"]\n', "limits.grips", "names a technique twice"),
    ("shot", STANDARD.replace("[release]\n", '[release]\ngrip = "vertex"\n') + '\n[limits]\ngrips = ["face"]\n',
     "release.grip", "not among the shot's limits.grips"),
    ("shot", STANDARD + '\n[limits]\nspin_axes = ["side", "wobble"]\n', "limits.spin_axes", "lateral"),
    ("skill", re.sub(r"(?m)^grip_sd_deg = .*$", "grip_sd_deg = -3", CASUAL), "grip_sd_deg", "greater than or equal"),
    ("skill", re.sub(r"(?m)^grip_sd_deg = .*$", "grip_sd_deg = 400", CASUAL), "grip_sd_deg", "less than or equal"),
]


@pytest.mark.parametrize("kind, text, field, words", BAD, ids=[f"{b[0]}-{b[2]}-{i}" for i, b in enumerate(BAD)])
def test_bad_grip_and_spin_fields_are_one_line_exit_2(tmp_path: Path, capsys, kind, text, field, words):
    path = tmp_path / f"{kind}.toml"
    path.write_text(text)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and field in err[0] and words in err[0], err
    with pytest.raises(SpecError):  # what a run loading the file does: the same refusal
        SPEC_CLASSES[kind].load(path, kind)


def test_a_grip_face_the_die_lacks_is_refused_when_the_scenario_is_built(tmp_path: Path, capsys):
    path = tmp_path / "shot.toml"
    path.write_text(STANDARD.replace("[release]\n", '[release]\ngrip = "face"\ngrip_face = "9"\n'))
    code = main(["throw", "--board", "magma", "--die", "hero-d8", "--shot", str(path), "--seed", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "release.grip_face" in err[0] and "no face '9'" in err[0], err


def _down_face(die, release) -> int:
    nz = matmul(die.face_normals, quat_to_matrix(release.orientation_xyzw).T)[:, 2]
    return int(np.argmin(nz))


@pytest.mark.parametrize("face", ["1", "4", "7"])
def test_a_fixed_grip_holds_the_chosen_face_down_at_release(face):
    """With a spread-free grip the chosen face points straight down in every release; with an expert's
    spread it is the face down in nearly every one, with a novice's in far fewer (the loose grip)."""
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="expert",
                        overrides={"shot.release.grip": "face", "shot.release.grip_face": face,
                                   "skill.grip_sd_deg": 0.0})
    th = Thrower(sc)
    try:
        die = sc.dice[0]
        want = die.face_index(face)
        th.set_nominal(Technique(2.0, 20.0, "face", 0.0, "lateral"))
        for k in range(20):
            r = th.release_for(Draw.for_throw(4, k))[0]
            nz = matmul(die.face_normals, quat_to_matrix(r.orientation_xyzw).T)[:, 2]
            assert _down_face(die, r) == want and nz[want] == pytest.approx(-1.0, abs=1e-9)
    finally:
        th.physics.close()
    n = 200
    shares = {}
    for skill in ("expert", "novice"):
        sk = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill=skill,
                            overrides={"shot.release.grip": "face", "shot.release.grip_face": face})
        th = Thrower(sk)
        try:
            th.set_nominal(Technique(2.0, 20.0, "face", 0.0, "lateral"))
            shares[skill] = sum(_down_face(die, th.release_for(Draw.for_throw(4, k))[0]) == want for k in range(n)) / n
        finally:
            th.physics.close()
    # expert 8 deg about each axis: the face down unless the turn passes ~35 deg (a d8's faces are 109 deg
    # apart), nearly always; novice 60 deg: a third or so of the time. 200 throws: sd of a share <= 3.5 pts
    assert shares["expert"] > 0.95 and shares["novice"] < 0.7, shares


def test_the_random_grip_leaves_the_die_as_it_lies():
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="expert")
    th = Thrower(sc)
    try:
        th.set_nominal(Technique(2.0, 20.0, "random", 4.0, "lateral"))
        for k in range(5):
            d = Draw.for_throw(4, k)
            assert th.release_for(d)[0].orientation_xyzw == d.orientation_xyzw
    finally:
        th.physics.close()


@pytest.mark.parametrize("axis, rps", [("lateral", -4.0), ("lateral", 6.0), ("side", 4.0)])
def test_the_spin_given_is_the_releases_spin(axis, rps):
    """Spread-free, the release spins at the technique's rate about its axis: the lateral axis across
    the throw (negative backspin), or the vertical (side spin)."""
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="expert",
                        overrides={"skill.spin_sd_rps": 0.0, "skill.azimuth_sd_deg": 0.0})
    th = Thrower(sc)
    try:
        th.set_nominal(Technique(2.0, 20.0, "face", rps, axis))
        r = th.release_for(Draw.for_throw(4, 0))[0]
        w = np.array(r.spin_radps) / (2 * math.pi)
        v = np.array(r.velocity_mps)
        az = math.atan2(v[1], v[0])
        lateral = np.array([-math.sin(az), math.cos(az), 0.0])
        if axis == "side":
            assert w == pytest.approx([0.0, 0.0, rps], abs=1e-9)
        else:
            assert w == pytest.approx(lateral * rps, abs=1e-9)
    finally:
        th.physics.close()


def test_the_speed_spread_grows_with_the_speed_required():
    """At the reference speed the skill's own fraction; twice as fast, sqrt(2) times the fraction (so
    twice the distance, about 2.8 times the speed error in m/s)."""
    assert speed_sd(0.1, SPEED_ERROR_REF_MPS) == pytest.approx(0.1)
    assert speed_sd(0.1, 2 * SPEED_ERROR_REF_MPS) == pytest.approx(0.1 * math.sqrt(2))
    assert speed_sd(0.1, SPEED_ERROR_REF_MPS / 4) == pytest.approx(0.05)


def test_techniques_round_trip_and_damaged_ones_are_refused():
    t = Technique(2.5, 10.0, "vertex", -4.0, "lateral")
    assert Technique.from_json(t.to_json()) == t
    for bad in ([2.5, 10.0], [2.5, 10.0, "palm", 0.0, "lateral"], [2.5, float("nan"), "face", 0.0, "side"],
                [2.5, 10.0, "face", 0.0, "diagonal"], "x", None):
        assert Technique.from_json(bad) is None
