"""Release models of the specific throws that change only the release (Arm, Elbow, Friendly, Jump,
Slap, Thumb, Flip, Wrist on the Table): every drawn release respects its shot's `[limits]` (what the
body allows), the aimed release is solved inside them, and Thumb and Flip are different throws."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from sim.engine.thrower import Thrower
from sim.errors import SpecError
from sim.seeding import Draw
from sim.specs.scenario import Scenario
from sim.specs.shot import LIMIT_PAIRS, ShotSpec, load_shot

SHOTS = Path(__file__).resolve().parents[2] / "shots"
RELEASE_SHOTS = ["arm", "elbow", "friendly", "jump", "slap", "thumb", "flip", "wrist"]
N = 400  # draws per shot
EPS = 1e-9


def components(rel) -> dict[str, np.ndarray]:
    """The limited quantities of releases: hand height and distance (mm), speed, elevation, tumble."""
    p, v, w = (np.array([getattr(r, k) for r in rel]) for k in ("position_m", "velocity_mps", "spin_radps"))
    horizontal = np.hypot(v[:, 0], v[:, 1])
    az = np.arctan2(v[:, 1], v[:, 0])
    axis = np.column_stack([-np.sin(az), np.cos(az), np.zeros(len(az))])
    return {"height": p[:, 2] * 1e3, "distance": -p[:, 0] * 1e3, "speed": np.linalg.norm(v, axis=1),
            "elevation": np.degrees(np.arctan2(v[:, 2], horizontal)), "spin": (w * axis).sum(axis=1) / (2 * math.pi)}


def draws(shot: str, skill: str = "novice", nominal: tuple[float, float] | None = (9.0, -70.0), n: int = N):
    """`n` drawn releases of a shot; with `nominal`, that aimed release given to the thrower instead of solving it
    (far outside every limit, so only the clipping keeps the draws inside)."""
    th = Thrower(Scenario.build(shots=[shot], skill=skill))
    try:
        if nominal is not None:
            th.set_nominal(nominal)
        return components([th.release_for(Draw.for_throw(3, k))[0] for k in range(n)])
    finally:
        th.physics.close()


@pytest.mark.parametrize("shot", RELEASE_SHOTS)
def test_every_draw_respects_the_body_limits(shot):
    spec = load_shot(shot)
    text = (SHOTS / f"{shot}.toml").read_text()
    assert "Physical model" in text and "Where it leaves from" in text and "Spin" in text
    got = draws(shot)
    for stem, _ in LIMIT_PAIRS:
        lo, hi = spec.limits.bounds(stem)
        assert lo is not None and hi is not None, f"{shot}: {stem} has no limits"
        vals = got[stem]
        assert vals.min() >= lo - EPS and vals.max() <= hi + EPS, (shot, stem, vals.min(), vals.max(), lo, hi)
    # the noise still spreads the draws inside the limits (the limits do not pin them to one value)
    assert np.ptp(got["height"]) > 0 and np.ptp(got["spin"]) > 0


def test_thumb_and_flip_are_different_throws():
    assert (SHOTS / "thumb.toml").read_bytes() != (SHOTS / "flip.toml").read_bytes()
    assert load_shot("thumb").release != load_shot("flip").release
    thumb, flip = draws("thumb", "casual", None, 150), draws("flip", "casual", None, 150)  # aimed releases solved
    # the forward flick spins forward, the coin toss backward; the toss leaves steeper
    assert thumb["spin"].min() > 0 > flip["spin"].max()
    d = flip["elevation"].mean() - thumb["elevation"].mean()
    se = math.sqrt(flip["elevation"].var(ddof=1) / 150 + thumb["elevation"].var(ddof=1) / 150)
    assert d > 5 * se and d > 10.0


def test_limits_move_with_combined_shots():
    assert not load_shot("standard").limits.any  # the standard throw is unlimited: its draws unchanged
    both = Scenario.build(shots=["thumb", "jump"]).shot
    assert both.limits.height_max_mm == 200 + 150 and both.release.height_mm == 120 + 150
    capped = Scenario.build(shots=["wrist", "thumb"]).shot
    assert capped.limits.height_max_mm == 60 and capped.limits.height_min_mm == 60 and capped.release.height_mm == 60
    with pytest.raises(SpecError, match="jump's release is at least 450 mm up"):
        Scenario.build(shots=["jump", "wrist"])  # the wrist on the table while in the air
    # the plain throw adds nothing to a technique: standard + wrist is the wrist shot
    assert Scenario.build(shots=["standard", "wrist"]).shot.release == load_shot("wrist").release


def test_bad_limits_are_refused():
    data = {"name": "x", "release": {"distance_mm": 600, "height_mm": 100}}
    with pytest.raises(SpecError, match="speed_min_mps"):
        ShotSpec.from_dict(data | {"limits": {"speed_min_mps": 3, "speed_max_mps": 1}}, "x.toml")
    with pytest.raises(SpecError, match="height_mm"):
        ShotSpec.from_dict(data | {"limits": {"height_max_mm": 80}}, "x.toml")
    with pytest.raises(SpecError):
        ShotSpec.from_dict(data | {"limits": {"spin_max_rps": 100}}, "x.toml")
