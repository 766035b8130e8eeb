"""`dfsim place --shot NAME`: a die set down in the scene of a shot, its props included, so every
board reading (the Volcano's crater, a Slow token, templates over props) can be checked from the
command line."""

from __future__ import annotations

import json

import pytest

from sim.cli.main import main


def _place(capsys, *args: str) -> dict:
    assert main(["place", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_die_set_into_the_volcanos_crater_is_the_bullseye(capsys):
    o = _place(capsys, "--shot", "volcano", "--x", "-100", "--y", "100", "--up", "3")
    assert o["touching"] == ["prop:volcano"] and (o["section"], o["damage"]) == ("volcano-crater", 10.0)
    o = _place(capsys, "--shot", "volcano", "--x", "-100", "--y", "100", "--up", "3", "--template", "armor:60,-120,0")
    assert (o["section"], o["damage"]) == ("volcano-crater", 9.0) and "armor:-1" in o["effects"]


def test_a_die_set_on_a_slow_token_deals_two(capsys):
    o = _place(capsys, "--shot", "slow-tokens", "--x", "145.7", "--y", "53", "--up", "3")
    assert (o["result"], o["section"], o["damage"]) == ("hit", "slow-token:hole-1", 2.0)
    assert _place(capsys, "--x", "145.7", "--y", "53", "--up", "3")["reason"] == "in-hole"  # no token: a miss


@pytest.mark.parametrize("option", ["base", "expansion"])
def test_a_die_on_the_fireball_touching_a_stacked_weak_point_reads_the_fireball(capsys, option):
    o = _place(capsys, "--up", "blank", "--x", "150", "--y", "20", "--yaw", "60", "--template", "fireball:150,20,0",
               "--template", "weak-point:190,20,0", "--rule", f"partial_template={option}")
    assert "template:weak-point" in o["touching"]
    assert (o["template"], o["damage"], o["partial_template"]) == ("fireball", 6.0, False)
