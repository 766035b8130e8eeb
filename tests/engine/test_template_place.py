"""`dfsim place --template ...` and `dfsim templates` / `dfsim flip` (physics: dice placed on laid templates)."""

from __future__ import annotations

import json

import pytest

from sim.cli.main import main
from sim.engine.worlds import thrower_for


def _place(capsys, *args):
    rc = main(["place", "--json", *args])
    out = capsys.readouterr().out
    assert rc == 0
    return json.loads(out)


def test_die_fully_on_a_laid_template(capsys):
    o = _place(capsys, "--x", "-30", "--y", "0", "--template", "fireball:0,0,0")
    assert (o["result"], o["template"], o["partial_template"], o["damage"]) == ("hit", "fireball", False, 6.0)
    assert o["touching"] == ["template:fireball"]
    # the die rests on top of the 2 mm template on the 2 mm board
    assert o["position_mm"][2] > 4.0 + 5.0
    assert o["templates"][0]["position_mm"][2] == pytest.approx(3.0, abs=0.2)


def test_stacked_templates_top_counts_and_icon_on_weak_point(capsys):
    o = _place(capsys, "--x", "0", "--y", "0", "--up", "icon", "--template", "fireball:0,0,0", "--template", "weak-point:0,0,0")
    assert o["template"] == "weak-point" and o["insta_kill"] is True
    z = {t["id"]: t["position_mm"][2] for t in o["templates"]}
    assert z["weak-point"] == pytest.approx(z["fireball"] + 2.0, abs=0.3)


def test_partial_on_board_and_rule_options(capsys):
    # weak point (r = 35 mm) centred at x = 100. A d8 centred 6.5 mm beyond its edge has one corner
    # on it and tips onto the board: partly on the template, touching the board -> the section below.
    args = ["--x", "141.5", "--y", "0", "--template", "weak-point:100,0,0"]
    base = _place(capsys, *args)
    assert base["partial_template"] is True
    assert "board" in base["touching"] and "template:weak-point" in base["touching"]
    assert base["template"] is None and base["result"] == "hit" and base["section"] is not None
    c = _place(capsys, *args, "--rule", "partial_template=c")
    assert c["template"] == "weak-point" and c["damage"] == 7.0
    b = _place(capsys, *args, "--rule", "partial_template=b")
    assert b["result"] == "miss"
    # centred right on the edge the die bridges it, resting on the template alone: partial, but it
    # touches only the template, which then counts
    edge = _place(capsys, "--x", "135", "--y", "0", "--template", "weak-point:100,0,0")
    assert edge["touching"] == ["template:weak-point"]
    assert (edge["partial_template"], edge["template"], edge["damage"]) == (True, "weak-point", 7.0)


def test_armor_on_board_lowers_other_hits(capsys):
    plain = _place(capsys, "--x", "-150", "--y", "0")
    armored = _place(capsys, "--x", "-150", "--y", "0", "--template", "armor:150,0,0")
    assert plain["result"] == armored["result"] == "hit"
    assert armored["damage"] == plain["damage"] - 1


def test_cli_lists_and_flips(capsys):
    assert main(["templates", "--json"]) == 0
    lst = json.loads(capsys.readouterr().out)
    assert {t["name"] for t in lst} >= {"fireball", "slime", "weak-point"}
    assert main(["flip", "philosophers-stone", "--seed", "4", "--json"]) == 0
    f = json.loads(capsys.readouterr().out)
    assert f["flips"] == len(f["attempts"]) and f["damage"] >= 0
    assert main(["flip", "philosophers-stone", "--seed", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == f  # same seed, same flip
    assert main(["place", "--x", "0", "--y", "0", "--template", "fireball:0"]) == 2
    assert "NAME:X,Y" in capsys.readouterr().err


def test_templates_do_not_change_throws_that_miss_them(tmp_path):
    """Paired comparisons: adding template bodies leaves the dice's physics alone (same friction and
    restitution factors, same board mesh), so a throw that never meets a template is the same throw."""
    from sim.specs.scenario import Scenario

    shot = tmp_path / "fixed.toml"
    shot.write_text('name = "fixed"\nrequirements = ["bounce-before-board"]\n[release]\ndistance_mm = 650\n'
                    'height_mm = 100\naim = "none"\nspeed_mps = 1.634\nelevation_deg = 25.0\nspin_rps = 4.0\n')
    plain = thrower_for(Scenario.build(board="magma", dice=["hero-d8"], shots=[str(shot)]))
    far = thrower_for(Scenario.build(board="magma", dice=["hero-d8"], shots=[str(shot)],
                         templates=[{"name": "fireball", "x_mm": 0, "y_mm": 1500}]))
    for k in range(4):
        a, b = plain.throw(11, k).outcome, far.throw(11, k).outcome
        assert "template:fireball" not in b.touching
        assert a.position_mm == b.position_mm and a.orientation_xyzw == b.orientation_xyzw
