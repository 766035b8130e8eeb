"""Props as physical bodies, and the specific-throw predicates over exact releases and hand-built traces."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import sim.cli.shots  # noqa: F401  (registers the prop kind, as the CLI does)
from sim.engine.release import Release
from sim.engine.worlds import thrower_for
from sim.errors import SpecError
from sim.rules.requirements import FAILED, PASSED, TOUCHED
from sim.specs.catalog import check_file, list_kind
from sim.specs.prop import PropSpec
from sim.specs.requirements import REQUIRED_PROP
from sim.specs.scenario import Scenario
from sim.trace import ContactEvent, EventTrace

PROPS = Path(__file__).resolve().parents[2] / "boards" / "props"


def rel(js: dict) -> Release:
    return Release.from_json(json.dumps(js))


def throw(shots, release: Release, rules=None):
    th = thrower_for(Scenario.build(shots=shots, rules=rules))
    return th, th.throw_releases([release])


# ------------------------------------------------------------------ files ----
def test_every_builtin_prop_loads_and_is_marked_estimated():
    props = list_kind("prop")
    names = {p.name for p in props}
    assert {"firewall", "fire-ring", "lava-mat", "volcano", "waterfall", "puddle", "gate", "stone-wall", "cup",
            "slow-tokens", "fire-token"} <= names
    for p in props:
        assert p.estimated
        text = (PROPS / f"{p.name}.toml").read_text()
        assert "Basis" in text, f"{p.name}: the file must say what its estimate is based on"
        kind, spec = check_file(PROPS / f"{p.name}.toml")
        assert kind == "prop" and spec.name == p.name


def test_bad_prop_file_names_file_and_field(tmp_path):
    bad = tmp_path / "props" / "wall.toml"
    bad.parent.mkdir()
    bad.write_text('name = "w"\n[shape]\ntype = "wall"\nwidth_mm = -3\nheight_mm = 10\nthickness_mm = 2\n')
    with pytest.raises(SpecError) as e:
        check_file(bad)
    assert "wall.toml" in str(e.value) and "shape" in str(e.value)


def test_every_predicate_names_a_prop_type_that_exists():
    types = {p.shape.type for p in list_kind("prop")}
    assert set(REQUIRED_PROP.values()) <= types


def test_props_are_bodies_in_the_world_and_their_contacts_are_events():
    th = thrower_for(Scenario.build(shots=["firewall"]))
    assert "prop:firewall" in th.physics.names()
    pp = th.ctx.props["firewall"]
    assert pp.position[0] == pytest.approx(-0.32)  # 4 cm in front of the 28 cm board edge nearest the thrower
    # a die thrown flat and low into the wall: its contact is an event in the trace
    res = th.throw_releases([Release((-0.75, 0.0, 0.012), (2.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))])
    assert any(e.other == "prop:firewall" for e in res.trace.events)


# --------------------------------------------------------------- firewall ----
# the touch cost is a rule option (RuleSet.firewall_touch): by default only Fire at Will's Firewall
# Shot charges it ("If the die touches the Firewall in the process, the Hero takes 1 damage, whether
# or not the die hits the Target board"); Malevolent Magma's has none
@pytest.mark.parametrize("shot, rules, cost", [
    ("firewall", None, 0), ("firewall-fire-at-will", None, 1),
    ("firewall", {"firewall_touch": "always"}, 1), ("firewall-fire-at-will", {"firewall_touch": "never"}, 0),
    ("firewall-fire-at-will", {"firewall_touch_damage": 3}, 3),
])
def test_firewall_aimed_low_fails_and_a_touch_costs_what_the_rules_say(shot, rules, cost):
    _, res = throw([shot], Release((-0.75, 0.0, 0.012), (2.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0)), rules)
    o = res.outcome
    assert o.requirements[shot] == FAILED
    assert o.result == "miss" and o.reason == f"requirement:{shot}"
    assert o.hero_damage == cost and (f"touched:firewall:-{cost}" in o.effects) == (cost > 0)


# Releases that clear / clip the wall, found here by a small search over the launch speed (never
# releases stored from another machine's throws: whether a throw clips the wall after its bounce can
# change with the last bits of the engine's arithmetic); the predicate logic itself is also tested on
# hand-built traces below.
HAND_M, SPIN = (-0.7875, 0.0, 0.309), (23.5, -19.5, 27.4)
ORIENTATION = (-0.3057564546111728, -0.9297124611044338, 0.17068893941172875, 0.11407460757434823)


@pytest.fixture(scope="module")
def wall_releases() -> dict[str, Release]:
    magma = thrower_for(Scenario.build(shots=["firewall"]))
    fire = thrower_for(Scenario.build(shots=["firewall-fire-at-will"]))
    found: dict[str, Release] = {}
    for vz in np.linspace(-0.5, 0.3, 33):
        for vx in (1.6, 1.7, 1.8, 1.9):
            r = Release(HAND_M, (vx, 0.0, float(vz)), ORIENTATION, SPIN)
            o = magma.throw_releases([r]).outcome
            got = o.requirements.get("firewall")
            if got == PASSED and o.requirements.get("bounce-before-board") == PASSED:
                found.setdefault("clear", r)
            elif got == TOUCHED and fire.throw_releases([r]).outcome.requirements["firewall-fire-at-will"] == TOUCHED:
                found.setdefault("clip", r)
            if len(found) == 2:
                return found
    pytest.fail(f"no release in the search cleared and clipped the wall: found {sorted(found)}")


def test_firewall_cleared_passes(wall_releases):
    th, res = throw(["firewall"], wall_releases["clear"])
    o = res.outcome
    assert o.requirements == {"bounce-before-board": PASSED, "firewall": PASSED}
    assert o.hero_damage == 0
    wall_x = th.ctx.props["firewall"].position[0]
    first_table = res.trace.first("die:0", "table")
    assert first_table.point_m[0] < wall_x  # bounced on the thrower's side


def test_firewall_clipped_is_touched_and_costs_one_damage_under_fire_at_will(wall_releases):
    _, res = throw(["firewall-fire-at-will"], wall_releases["clip"])
    o = res.outcome
    assert o.requirements["firewall-fire-at-will"] == TOUCHED
    assert o.reason != "requirement:firewall-fire-at-will"  # touched is met, not failed
    assert o.hero_damage == 1
    _, magma = throw(["firewall"], wall_releases["clip"])
    assert magma.outcome.requirements["firewall"] == TOUCHED and magma.outcome.hero_damage == 0


# ------------------------------------------------------- other props, physics ----
def test_fire_ring_through_then_table_passes_and_over_it_fails():
    th = thrower_for(Scenario.build(shots=["fire-ring"]))
    ring = th.ctx.props["fire-ring"]
    assert ring.nominal_position[0] == pytest.approx(-0.4) and ring.nominal_position[2] == pytest.approx(0.1)
    through = th.throw_releases([Release((-0.65, 0.0, 0.10), (1.2, 0.0, 0.9), (0, 0, 0, 1), (0, 0, 0))]).outcome
    assert through.requirements["fire-ring"] in (PASSED, TOUCHED)
    over = th.throw_releases([Release((-0.65, 0.0, 0.10), (1.2, 0.0, 2.0), (0, 0, 0, 1), (0, 0, 0))]).outcome
    assert over.requirements["fire-ring"] == FAILED and over.result == "miss"


def test_gate_through_the_opening_passes_over_it_fails():
    th = thrower_for(Scenario.build(shots=["gate"]))
    low = th.throw_releases([Release((-0.65, 0.0, 0.05), (1.5, 0.0, 0.2), (0, 0, 0, 1), (0, 0, 0))]).outcome
    assert low.requirements["gate"] in (PASSED, TOUCHED)
    high = th.throw_releases([Release((-0.65, 0.0, 0.25), (1.5, 0.0, 0.5), (0, 0, 0, 1), (0, 0, 0))]).outcome
    assert high.requirements["gate"] == FAILED


def test_smash_between_the_wall_pieces_passes_over_them_fails():
    th = thrower_for(Scenario.build(shots=["smash"]))
    smash = th.throw_releases([Release((-0.65, 0.0, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))])
    assert smash.outcome.requirements["stone-wall"] == PASSED
    lob = th.throw_releases([Release((-0.65, 0.0, 0.15), (1.5, 0.0, 1.0), (0, 0, 0, 1), (0, 0, 0))]).outcome
    assert lob.requirements["stone-wall"] == FAILED
    beside = th.throw_releases([Release((-0.65, 0.08, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))])
    assert beside.outcome.requirements["stone-wall"] == FAILED  # into one piece
    assert any(e.other.startswith("prop:stone-wall") for e in beside.trace.events)


def test_fixed_stone_wall_pieces_stay_an_option():
    fixed = {"prop.stone-wall.free": False, "prop.stone-wall.gap_mm": 24}
    th = thrower_for(Scenario.build(shots=["smash"], overrides=fixed))
    beside = th.throw_releases([Release((-0.65, 0.08, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))])
    assert beside.outcome.requirements["stone-wall"] == FAILED  # into a fixed piece
    ph = th.physics
    assert ph.mass_kg("prop:stone-wall:0") == 0.0 and ph.die_pose("prop:stone-wall:0")[0][0] == pytest.approx(-0.4)


def test_loose_stone_wall_pieces_are_knocked_apart():
    th = thrower_for(Scenario.build(shots=["smash"]))
    res = th.throw_releases([Release((-0.65, 0.0, 0.05), (4.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))])
    assert res.outcome.requirements["stone-wall"] == PASSED
    ph = th.physics
    yaws = [ph.client.getEulerFromQuaternion(ph.client.getBasePositionAndOrientation(ph.body(f"prop:stone-wall:{k}"))[1])[2]
            for k in (0, 1)]
    assert yaws[0] < -0.02 and yaws[1] > 0.02  # each piece turned away from the joint
    for k in (0, 1):  # each foot went with its piece (welded: one piece of card)
        panel, foot = (ph.die_pose(f"prop:stone-wall:{k}{p}") for p in ("", "f"))
        assert float(np.hypot(*(foot[0] - panel[0])[:2])) == pytest.approx(0.0635, abs=2e-4)


def test_waterfall_die_slides_off_the_far_edge():
    th = thrower_for(Scenario.build(shots=["waterfall"]))
    res = th.throw_releases([Release((-0.60, 0.0, 0.25), (0.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))])
    assert res.outcome.requirements["waterfall"] == PASSED
    assert res.trace.first("die:0", "prop:waterfall") is not None


def test_waterfall_die_that_stops_on_the_ramp_fails(tmp_path):
    flat = (PROPS / "waterfall.toml").read_text().replace("tilt_deg = 35", "tilt_deg = 5")
    (tmp_path / "flat-waterfall.toml").write_text(flat)
    shot = (Path(__file__).resolve().parents[2] / "shots" / "waterfall.toml").read_text()
    shot = shot.replace('props = ["waterfall"]', f'props = ["{tmp_path / "flat-waterfall.toml"}"]')
    (tmp_path / "shot.toml").write_text(shot)
    th = thrower_for(Scenario.build(shots=[str(tmp_path / "shot.toml")]))
    o = th.throw_releases([Release((-0.60, 0.0, 0.25), (0.0, 0.0, 0.0), (0, 0, 0, 1), (0, 0, 0))]).outcome
    assert "prop:waterfall" in o.touching  # it rests on the ramp
    assert o.requirements["waterfall"] == FAILED and o.result == "miss"


def test_cup_casts_the_die_and_a_still_cup_does_not(tmp_path):
    th = thrower_for(Scenario.build(shots=["cup"]))
    res = th.throw(11, 0)
    assert res.outcome.requirements["cup-cast"] == PASSED
    assert res.trace.of("die:0")[0].other == "prop:cup"  # it started in the cup
    still = (PROPS / "cup.toml").read_text().replace("cast_speed_mps = 1.6", "cast_speed_mps = 0.01")
    still = still.replace("tip_deg = 110", "tip_deg = 0")
    (tmp_path / "still-cup.toml").write_text(still)
    shot = (Path(__file__).resolve().parents[2] / "shots" / "cup.toml").read_text()
    (tmp_path / "shot.toml").write_text(shot.replace('props = ["cup"]', f'props = ["{tmp_path / "still-cup.toml"}"]'))
    th2 = thrower_for(Scenario.build(shots=[str(tmp_path / "shot.toml")]))
    o = th2.throw(11, 0).outcome
    assert o.requirements["cup-cast"] == FAILED and "prop:cup" in o.touching


def test_held_props_jitter_per_throw_but_exact_releases_use_the_nominal_placement(grid_technique):
    th = thrower_for(Scenario.build(shots=["fire-ring"]))
    grid_technique(th)  # where the throws fly does not matter here, only that the ring moves per throw
    ring = th.ctx.props["fire-ring"]
    th.throw(5, 0)
    p0 = ring.position.copy()
    th.throw(5, 1)
    p1 = ring.position.copy()
    th.throw(5, 0)
    assert not np.allclose(p0, p1) and np.allclose(ring.position, p0)
    th.throw_releases([Release((-0.65, 0.0, 0.10), (1.2, 0.0, 0.9), (0, 0, 0, 1), (0, 0, 0))])
    assert np.allclose(ring.position, ring.nominal_position)


# ------------------------------------------------------- predicates on traces ----
def _trace(events, path, dt=1 / 240):
    evs = [ContactEvent(t, "die:0", other, tuple(p), 1.0) for t, other, p in events]
    return EventTrace(events=evs, path_t=[dt * (i + 1) for i in range(len(path))], paths={"die:0": [tuple(p) for p in path]})


def _line(a, b, n=60):
    return [tuple(np.asarray(a) + (np.asarray(b) - np.asarray(a)) * k / (n - 1)) for k in range(n)]


@pytest.fixture(scope="module")
def combo():
    return thrower_for(Scenario.build(shots=["firewall", "puddle", "lava", "gate"]))


def test_firewall_predicate_on_traces(combo):
    from sim.rules.requirements import firewall

    ctx = combo.ctx
    over = _line((-0.49, 0, 0.0), (-0.19, 0, 0.06))  # crosses the wall (x=-0.32) at z~0.034 > 0.03
    assert firewall(_trace([(0.01, "table", (-0.48, 0, 0))], over), "die:0", ctx) == PASSED
    assert firewall(_trace([], over), "die:0", ctx) == FAILED  # no bounce before the wall
    assert firewall(_trace([(0.01, "table", (-0.48, 0, 0)), (0.1, "prop:firewall", (-0.32, 0, 0.03))], over), "die:0", ctx) == TOUCHED
    under = _line((-0.49, 0, 0.0), (-0.19, 0, 0.04))  # crosses at z~0.023 < 0.03: not over it
    assert firewall(_trace([(0.01, "table", (-0.48, 0, 0))], under), "die:0", ctx) == FAILED
    around = _line((-0.49, 0.2, 0.0), (-0.19, 0.2, 0.06))  # beside the 25 cm wall
    assert firewall(_trace([(0.01, "table", (-0.48, 0.2, 0))], around), "die:0", ctx) == FAILED


def test_puddle_predicate_on_traces(combo):
    from sim.rules.requirements import puddle

    ctx = combo.ctx
    hole = combo.ctx.props["puddle"].position  # the hole is at the puddle's centre
    path = _line((-0.7, 0, 0.1), (-0.2, 0, 0.01))
    in_hole = [(0.05, "table", (hole[0], 0.0, 0.0)), (0.2, "board", (-0.25, 0, 0.002))]
    assert puddle(_trace(in_hole, path), "die:0", ctx) == PASSED
    outside = [(0.05, "table", (hole[0] - 0.2, 0.0, 0.0)), (0.2, "board", (-0.25, 0, 0.002))]
    assert puddle(_trace(outside, path), "die:0", ctx) == FAILED
    touching = [(0.05, "table", (hole[0], 0.0, 0.0)), (0.1, "prop:puddle", (hole[0] + 0.08, 0, 0.002)),
                (0.2, "board", (-0.25, 0, 0.002))]
    assert puddle(_trace(touching, path), "die:0", ctx) == FAILED


def test_lava_mat_counts_as_the_table_for_the_standard_bounce(combo):
    from sim.rules.requirements import PREDICATES as REGISTRY

    ctx = combo.ctx
    path = _line((-0.7, 0, 0.1), (-0.2, 0, 0.01))
    on_mat = [(0.05, "prop:lava-mat", (-0.45, 0, 0.003)), (0.2, "board", (-0.25, 0, 0.002))]
    assert REGISTRY["lava-mat"](_trace(on_mat, path), "die:0", ctx) == PASSED
    assert REGISTRY["bounce-before-board"](_trace(on_mat, path), "die:0", ctx) == PASSED
    on_table = [(0.05, "table", (-0.65, 0, 0.0)), (0.2, "board", (-0.25, 0, 0.002))]
    assert REGISTRY["lava-mat"](_trace(on_table, path), "die:0", ctx) == FAILED
    direct = [(0.2, "board", (-0.25, 0, 0.002))]
    assert REGISTRY["bounce-before-board"](_trace(direct, path), "die:0", ctx) == FAILED


def test_gate_predicate_on_traces(combo):
    from sim.rules.requirements import gate

    ctx = combo.ctx
    gx = ctx.props["gate"].position[0]
    through = _line((gx - 0.1, 0.0, 0.05), (gx + 0.1, 0.0, 0.05))
    assert gate(_trace([], through), "die:0", ctx) == PASSED
    assert gate(_trace([(0.1, "prop:gate", (gx, 0.05, 0.05))], through), "die:0", ctx) == TOUCHED
    post = _line((gx - 0.1, 0.07, 0.05), (gx + 0.1, 0.07, 0.05))
    assert gate(_trace([], post), "die:0", ctx) == FAILED
    short = _line((gx - 0.1, 0.0, 0.05), (gx - 0.01, 0.0, 0.05))
    assert gate(_trace([], short), "die:0", ctx) == FAILED


def test_a_shot_needing_a_missing_prop_is_a_clear_error(tmp_path):
    shot = tmp_path / "bad.toml"
    shot.write_text('name = "bad"\nrequirements = ["firewall"]\n[release]\ndistance_mm = 650\nheight_mm = 100\n')
    with pytest.raises(SpecError, match="needs a 'wall' prop"):
        Scenario.build(shots=[str(shot)])  # refused when the scenario is built, never inside a worker


def test_prop_spec_rejects_unknown_shape():
    with pytest.raises(SpecError):
        PropSpec.from_dict({"name": "x", "shape": {"type": "pyramid"}}, "x.toml")


def test_math_sanity_of_rotation():
    from sim.specs.prop import rot_matrix

    r = rot_matrix(0.0, 30.0)
    assert r @ np.array([1.0, 0, 0]) == pytest.approx([math.cos(math.radians(30)), 0, -math.sin(math.radians(30))])


def test_props_held_by_the_thrower_are_as_steady_as_the_thrower():
    tilts = {}
    for skill in ("expert", "novice"):
        th = thrower_for(Scenario.build(shots=["waterfall"], skill=skill))
        ramp = th.ctx.props["waterfall"]
        vals = []
        for k in range(8):
            th.props.start((3, k))
            vals.append(ramp.tilt_deg - ramp.nominal_tilt_deg)
        tilts[skill] = np.std(vals)
    assert tilts["novice"] > 2 * tilts["expert"] > 0


def test_a_held_prop_follows_the_skill_the_releases_were_drawn_with():
    """A study throwing one world's draws with several skills (skill order, fit-skill, spread cost) holds
    the Waterfall as each of them does: the expert's draws replayed in a novice's world land where the
    expert's own world lands them, and the ramp tilts by the expert's share of the novice's jitter."""
    from sim.seeding import Draw
    from sim.specs.skill import load_skill

    expert, novice = load_skill("expert"), load_skill("novice")
    th = thrower_for(Scenario.build(shots=["waterfall"], skill="novice"))
    ramp = th.ctx.props["waterfall"]
    th.props.start((3, 1))
    as_novice = ramp.tilt_deg - ramp.nominal_tilt_deg
    th.props.start((3, 1), expert)
    as_expert = ramp.tilt_deg - ramp.nominal_tilt_deg
    assert as_novice != 0 and as_expert == pytest.approx(as_novice * expert.speed_sd_frac / novice.speed_sd_frac)
    borrowed = [th.replay(th.release_for(Draw.for_throw(3, k), expert), 3, k, expert).outcome for k in range(3)]
    own = thrower_for(Scenario.build(shots=["waterfall"], skill="expert"))
    assert [own.throw(3, k).outcome for k in range(3)] == borrowed
