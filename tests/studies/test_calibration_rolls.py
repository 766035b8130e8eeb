"""`dfsim calibrate` fits a pair's rolling resistance from roll rows: a round roller let go on a ramp of
the surface and how far it rolls out. Rows made by the engine (the calibration rig) at a known lever
arm are fitted back within the reported interval; a roll row without its roller, or asking for the
rolling resistance without roll rows, is refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from sim.engine.rigs import ROLL_FLOOR_HALF_M, MaterialRig, PairFactors, roller_die
from sim.errors import SpecError
from sim.specs.material import MaterialTable
from sim.specs.measurements import MeasurementsSpec
from sim.studies.calibration import calibrate, material_toml

TRUE_ARM_MM = 0.2
SET_UPS = ((20.0, 10.0), (40.0, 8.0))  # (roller's lowest point above the table mm, ramp angle deg)
TURNS = (2.0, 7.0, 12.0)  # the roller's turn about its axis at each release (deg; a facet is 15 deg)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The default table with the die on felt undamped (contact damping 0): then a roller's run-out is
    its rolling resistance's, which the rows must pin (with the default 0.99 damping the run-out is a
    few cm whatever the arm: docs/physics.md, "Rolling bodies")."""
    table = MaterialTable.default()
    pairs = [
        p.model_dump() | ({"contact_damping": 0.0} if {p.a, p.b} == {"plastic", "felt"} else {})
        for p in table.pairs
    ]
    made = MaterialTable.from_dict(
        {"name": "undamped-felt", "estimated": True, "materials": list(table.materials), "pairs": pairs}
    )
    path = tmp_path_factory.mktemp("rolls") / "undamped-felt.toml"
    path.write_text(material_toml(made))
    return path


def _rows(base_path) -> list[dict]:
    """What a player would write down if the arm were TRUE_ARM_MM: the engine's own run-outs."""
    table = MaterialTable.load(base_path, "material")
    rig = MaterialRig(roller_die(20.0, 20.0, "plastic"), "felt", table, floor_half_m=ROLL_FLOOR_HALF_M)
    try:
        pair = table.pair("plastic", "felt")
        rig.set_pair(PairFactors(pair.friction, 1.0, 0.0))
        factor = rig.factor_for(pair.restitution)
        rig.set_pair(PairFactors(pair.friction, factor, 0.0, TRUE_ARM_MM))
        return [
            {"height_mm": h, "angle_deg": a, "distance_mm": round(rig.roll(h, a, t), 1)}
            for h, a in SET_UPS
            for t in TURNS
        ]
    finally:
        rig.close()


def _spec(base_path, rows, **more) -> MeasurementsSpec:
    data = {
        "name": "felt-rolls",
        "die": "d6",
        "surface": "felt",
        "materials": str(base_path),
        "fit": ["rolling_resistance"],
        "roller": {"diameter_mm": 20.0, "length_mm": 20.0},
        "rolls": rows,
    } | more
    return MeasurementsSpec.from_dict(data, source="rolls.toml")


def test_rolls_fit_the_rolling_resistance_back(base, tmp_path):
    rows = _rows(base)
    assert np.ptp([r["distance_mm"] for r in rows]) > 20  # the two set-ups run out differently
    result = calibrate(_spec(base, rows))
    e = result.estimates["rolling_resistance"]
    assert e.bounded == "both" and e.low <= TRUE_ARM_MM <= e.high, e
    assert e.high - e.low < 0.25, e  # the rows pin it: the range searched is 0-2 mm
    assert {r.kind for r in result.residuals} == {"rolls"} and len(result.residuals) == len(rows)
    # the written table carries the fitted arm, and the other pairs' arms (glass keeps its own)
    path = tmp_path / "fitted.toml"
    path.write_text(material_toml(result.table))
    table = MaterialTable.load(path, "material")
    assert table.pair("plastic", "felt").rolling_resistance_mm == pytest.approx(e.value, abs=1e-4)
    assert table.pair("plastic", "glass") == MaterialTable.default().pair("plastic", "glass")


def test_roll_rows_need_their_roller(base):
    with pytest.raises(SpecError, match="roller"):
        _spec(base, [{"height_mm": 20.0, "angle_deg": 10.0, "distance_mm": 100.0}], roller=None)


def test_the_rolling_resistance_needs_roll_rows(base):
    with pytest.raises(SpecError, match="rolling_resistance is not identifiable without roll rows"):
        calibrate(_spec(base, [], roller=None))
