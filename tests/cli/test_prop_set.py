"""`--set prop.NAME.FIELD=VALUE`: prop sizes and placements from the command line (and an experiment's
overrides); a bad prop name, field or value is one line on stderr, exit 2."""

from __future__ import annotations

import json

import pytest

from sim.cli.main import main
from sim.errors import SpecError
from sim.experiments.spec import parse_experiment
from sim.specs.scenario import Scenario

LOW = {"position_mm": [-750, 0, 12], "velocity_mps": [2.0, 0, 0], "orientation_xyzw": [0, 0, 0, 1], "spin_radps": [0, 0, 0]}


def test_prop_sizes_and_placement_are_set_and_enter_the_key():
    base = Scenario.build(shots=["firewall"])
    sc = Scenario.build(shots=["firewall"], overrides={"prop.firewall.height_mm": 40,
                                                       "prop.firewall.placement.x_mm": -60,
                                                       "prop.firewall.shape.width_mm": 300})
    wall = sc.props[0]
    assert (wall.shape.height_mm, wall.shape.width_mm, wall.placement.x_mm) == (40, 300, -60)
    assert base.props[0].shape.height_mm == 30  # the file is unchanged for other scenarios
    assert sc.key != base.key and sc.description["props"]["firewall"]["shape"]["height_mm"] == 40


def test_cli_throw_with_the_wall_moved_aside(capsys):
    # a low, flat die into the wall touches it (a cost under firewall_touch = always); moved 50 cm
    # aside, the wall is never touched
    args = ["throw", "--shot", "firewall", "--rule", "firewall_touch=always", "--release", json.dumps(LOW), "--json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["hero_damage"] == 1
    assert main([*args, "--set", "prop.firewall.placement.y_mm=500"]) == 0
    aside = json.loads(capsys.readouterr().out)
    assert aside["hero_damage"] == 0 and aside["requirements"]["firewall"] == "failed"


@pytest.mark.parametrize("setting, needle", [
    ("prop.firewal.height_mm=40", "no prop 'firewal' (props: firewall)"),
    ("prop.firewall.heigth_mm=40", "no field 'heigth_mm' (its sizes: width_mm, height_mm, thickness_mm"),
    ("prop.firewall.height_mm=-3", "overridden by prop.firewall.height_mm"),
    ("prop.firewall.shape.colour=3", "colour"),
    ("prop.firewall=3", "prop.NAME.FIELD"),
])
def test_bad_prop_settings_are_one_line_exit_2(setting, needle, capsys):
    code = main(["throw", "--shot", "firewall", "--seed", "1", "--set", setting])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err


def test_a_scene_without_the_prop_refuses_it(capsys):
    assert main(["place", "--x", "0", "--y", "0", "--set", "prop.firewall.height_mm=40"]) == 2
    assert "no prop 'firewall' (props: none)" in capsys.readouterr().err
    with pytest.raises(SpecError):
        Scenario.build(shots=["smash"], overrides={"prop.firewall.height_mm": 40})


def test_experiment_overrides_take_hyphenated_prop_names():
    exp = parse_experiment({"name": "x", "seed": 1, "throws": 10, "defaults": {"shots": ["smash"]},
                            "variants": [{"name": "wide", "overrides": {"prop.stone-wall.gap_mm": 30}}]}, "x.toml")
    assert exp.variants[0].overrides == {"prop.stone-wall.gap_mm": 30}
    assert Scenario.build(shots=["smash"], overrides=exp.variants[0].overrides).props[0].shape.gap_mm == 30
