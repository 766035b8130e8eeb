"""Shot profiles of the specific throws: files, combined shots, determinism, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sim.cli.main import main
from sim.engine.determinism import check_determinism
from sim.engine.release import Release
from sim.engine.worlds import thrower_for
from sim.rules.requirements import PREDICATES as REGISTRY
from sim.specs.datafiles import builtin_names
from sim.specs.scenario import Scenario
from sim.specs.shot import load_shot

SHOTS = Path(__file__).resolve().parents[2] / "shots"
ISSUE_SHOTS = ["arm", "elbow", "far", "fire-ring", "firewall", "friendly", "jump", "lava", "slap", "thumb", "flip",
               "wrist", "cup", "waterfall", "puddle", "gate", "smash"]
PROP_SHOTS = {"firewall": "firewall", "fire-ring": "fire-ring", "lava": "lava-mat", "puddle": "puddle", "gate": "gate",
              "smash": "stone-wall", "waterfall": "waterfall", "cup": "cup", "volcano": "volcano",
              "slow-tokens": "slow-tokens", "fire-token": "fire-token"}


def test_every_specific_throw_has_a_documented_shot_file():
    names = set(builtin_names("shot"))
    for s in ISSUE_SHOTS:
        assert s in names, s
        text = (SHOTS / f"{s}.toml").read_text()
        assert "Physical model" in text, f"{s}.toml must document its physical model"
        spec = load_shot(s)
        assert spec.estimated and "bounce-before-board" in spec.requirements
        for r in spec.requirements:
            assert r in REGISTRY


@pytest.mark.parametrize("shot, prop", sorted(PROP_SHOTS.items()))
def test_prop_shots_place_their_prop_and_report_every_requirement(shot, prop):
    sc = Scenario.build(shots=[shot])
    assert [p.name for p in sc.props] == [prop]
    th = thrower_for(sc)
    assert any(n.startswith(f"prop:{prop}") for n in th.physics.names())
    rel = sc.shot.release  # a plain release from the shot's hand position (the aimed solve is slow)
    hand = (-rel.distance_mm * 1e-3, rel.lateral_mm * 1e-3, rel.height_mm * 1e-3)
    speed = (1.2, 0.0, 0.4) if rel.aim != "none" else (0.0, 0.0, 0.0)
    o = th.throw_releases([Release(hand, speed, (0, 0, 0, 1), (0, 0, 0))]).outcome
    assert set(o.requirements) == set(sc.requirements)
    assert all(v in ("passed", "failed", "touched") for v in o.requirements.values())
    assert o.result in ("hit", "miss", "void")


def test_release_only_shots_differ_from_the_standard_throw_as_documented():
    std = load_shot("standard")
    assert load_shot("far").release.distance_mm == std.release.distance_mm + 700
    assert load_shot("friendly").noise.speed > 1 and load_shot("friendly").noise.azimuth > 1
    assert load_shot("jump").noise.height >= 3
    assert load_shot("wrist").release.height_mm <= 60 and load_shot("wrist").noise.height < 1
    assert abs(load_shot("thumb").release.spin_rps) >= 10
    assert load_shot("slap").release.height_mm <= 20
    assert load_shot("thumb").release != load_shot("flip").release  # two techniques (tests/engine/test_release_models.py)


def test_combined_shots_merge_props_requirements_and_release():
    fw = Scenario.build(shots=["firewall"])
    both = Scenario.build(shots=["firewall", "far"])
    assert both.shot.release.distance_mm == fw.shot.release.distance_mm + 700
    # no flat multiplier on the Far Shot's distance noise: the speed error grows with the speed a
    # longer throw needs (sim/engine/hand.py, the error law)
    assert both.shot.noise.distance == pytest.approx(fw.shot.noise.distance)
    assert both.requirements == ["bounce-before-board", "firewall"]  # identical requirements count once
    assert [p.name for p in both.props] == ["firewall"]
    # the Firewall stands relative to the board, so stepping back does not move it
    assert thrower_for(both).ctx.props["firewall"].position[0] == pytest.approx(-0.32)
    twice = Scenario.build(shots=["firewall", "firewall"])
    assert twice.requirements == ["bounce-before-board", "firewall"] and len(twice.props) == 1
    many = Scenario.build(shots=["fire-ring", "puddle", "wrist", "friendly"])
    assert many.shot.name == "friendly"  # whose hand throws: the technique
    assert [p.name for p in many.props] == ["puddle", "fire-ring"]
    assert many.requirements == ["bounce-before-board", "puddle", "fire-ring"]
    assert many.shot.release.height_mm == 60  # the wrist caps the friendly hand's release height
    assert many.shot.release.bounce_gap_mm == 180  # aimed into the Puddle's hole
    assert many.shot.noise.height == pytest.approx(1.8 * 0.3)
    assert many.key != Scenario.build(shots=["puddle"]).key


def test_props_are_part_of_the_scenario_key():
    plain = Scenario.build(shots=["standard"])
    assert "props" not in plain.description  # existing scenarios keep their keys
    assert Scenario.build(shots=["volcano"]).key != plain.key


def test_combined_shot_is_deterministic():
    # the Waterfall's release is not aimed (no aimed-release solve), and both props jitter per throw
    sc = Scenario.build(shots=["waterfall", "fire-ring"])
    assert [p.name for p in sc.props] == ["waterfall", "fire-ring"]
    check_determinism(sc, seed=2, throws=2)


def test_cli_combined_shot_and_exact_release(capsys):
    over = {"position_mm": [-1450, 0, 300], "velocity_mps": [3.0, 0, 0.5], "orientation_xyzw": [0, 0, 0, 1], "spin_radps": [0, 0, 0]}
    assert main(["throw", "--shot", "firewall", "--shot", "far", "--release", json.dumps(over), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["requirements"]) == {"bounce-before-board", "firewall"}
    low = {"position_mm": [-750, 0, 12], "velocity_mps": [2.0, 0, 0], "orientation_xyzw": [0, 0, 0, 1], "spin_radps": [0, 0, 0]}
    assert main(["throw", "--shot", "firewall", "--rule", "firewall_touch=always", "--release", json.dumps(low), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["requirements"]["firewall"] == "failed" and out["result"] == "miss" and out["hero_damage"] == 1


def test_cli_unknown_prop_is_one_line_exit_2(tmp_path, capsys):
    shot = tmp_path / "s.toml"
    shot.write_text('name = "s"\nprops = ["no-such-prop"]\n[release]\ndistance_mm = 650\nheight_mm = 100\n')
    assert main(["throw", "--shot", str(shot), "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "s.toml" in err and "props.0" in err and "no-such-prop" in err


def test_cli_props_listing(capsys):
    assert main(["props", "--json"]) == 0
    names = {p["name"] for p in json.loads(capsys.readouterr().out)}
    assert {"firewall", "cup", "waterfall"} <= names
