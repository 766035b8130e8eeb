"""Combined specific throws compose by what each shot says about the throw, never by the order they are
named in; the rulebook's own combinations throw as the rulebook describes them; the pairs that cannot be
thrown are refused in one line; docs/shots-and-props.md tabulates every pair."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from sim.cli.main import main
from sim.errors import SpecError
from sim.seeding import Draw
from sim.specs.combine import pair_table
from sim.specs.scenario import Scenario
from sim.specs.shot import load_shot

ROOT = Path(__file__).resolve().parents[2]
NAMES = sorted(p.stem for p in (ROOT / "shots").glob("*.toml"))


def _composed(shots):
    """What a combination throws (its technique after composing, every shot, its key), or its refusal."""
    try:
        sc = Scenario.build(shots=list(shots))
    except SpecError as exc:
        return ("refused", str(exc))
    return (sc.shot.model_dump(), [s.model_dump() for s in sc.shots], sc.requirements, [p.name for p in sc.props], sc.key)


def test_every_pair_composes_the_same_in_either_order():
    refused = 0
    for a, b in itertools.combinations(NAMES, 2):
        one, other = _composed((a, b)), _composed((b, a))
        assert one == other, (a, b)
        refused += one[0] == "refused"
    assert 0 < refused < len(NAMES) * (len(NAMES) - 1) // 2  # some pairs cannot be thrown, most can


def test_triples_compose_the_same_in_every_order():
    rng = np.random.default_rng(20)
    for _ in range(40):
        trio = [NAMES[i] for i in rng.choice(len(NAMES), 3, replace=False)]
        results = {repr(_composed(p)) for p in itertools.permutations(trio)}
        assert len(results) == 1, trio


def test_the_same_throws_whichever_order_the_shots_are_named_in():
    from sim.engine.thrower import Thrower

    releases = []
    for shots in (["far", "firewall"], ["firewall", "far"]):
        th = Thrower(Scenario.build(shots=shots))
        th.set_nominal((3.0, 20.0))  # the same technique for both: no aim solve needed to compare the draws
        releases.append([th.release_for(Draw.for_throw(5, k))[0] for k in range(5)])
        th.physics.close()
    assert releases[0] == releases[1]


def test_floor_is_lava_with_the_bear_trap_throws_from_the_elbow_onto_the_mat():
    # Malevolent Magma's combat example: the Floor is Lava (Lava Shot) and Torm's Bear Trap (Elbow Shot):
    # "He'll need to throw the die by creating a lever with his elbow and it must bounce on the Lava mat"
    sc = Scenario.build(shots=["lava", "elbow"])
    elbow, lava = load_shot("elbow"), load_shot("lava")
    assert sc.shot.name == "elbow"
    assert sc.shot.release.height_mm == elbow.release.height_mm == 350  # the elbow's height, not the hand's 120
    assert sc.shot.release.distance_mm == elbow.release.distance_mm
    assert sc.shot.release.bounce_gap_mm == lava.release.bounce_gap_mm  # aimed at the mat
    assert sc.shot.limits == elbow.limits and sc.shot.noise == elbow.noise
    assert sc.requirements == ["bounce-before-board", "lava-mat"] and [p.name for p in sc.props] == ["lava-mat"]
    from sim.engine.thrower import Thrower

    th = Thrower(sc)
    try:
        th.set_nominal((2.0, 10.0))
        z = [th.release_for(Draw.for_throw(3, k))[0].position_m[2] * 1e3 for k in range(20)]
    finally:
        th.physics.close()
    lo, hi = elbow.limits.bounds("height")
    assert all(lo <= v <= hi for v in z) and abs(float(np.mean(z)) - 350) < 40


def test_floor_is_lava_with_the_sword_of_friendship_throws_the_neighbours_hand_onto_the_mat():
    # Brockenstock "will use Torm's hand to perform the shot! It still needs to bounce on the Lava mat"
    sc = Scenario.build(shots=["friendly", "lava"])
    friendly = load_shot("friendly")
    assert sc.shot.name == "friendly"
    assert (sc.shot.release.lateral_mm, sc.shot.release.height_mm) == (-120, 150)
    assert sc.shot.release.bounce_gap_mm == load_shot("lava").release.bounce_gap_mm
    assert sc.shot.noise == friendly.noise and sc.shot.limits == friendly.limits
    assert "lava-mat" in sc.requirements


def test_the_firewall_stepped_back_is_the_firewalls_lob_from_a_step_further():
    sc = Scenario.build(shots=["far", "firewall"])
    fw = load_shot("firewall")
    assert sc.shot.name == "firewall"
    assert sc.shot.release.distance_mm == fw.release.distance_mm + 700
    assert sc.shot.release.height_mm == fw.release.height_mm and sc.shot.release.spin_rps == 0
    assert sc.shot.release.bounce_gap_mm == fw.release.bounce_gap_mm + 90
    assert sc.shot.limits.elevation_min_deg == 0  # still a lob
    assert sc.description["combined"]["release"]["distance_mm"] == 1500


def test_a_prop_demand_meets_the_technique_and_identical_cards_count_once():
    jump = Scenario.build(shots=["firewall", "jump"]).shot
    assert jump.name == "jump" and jump.limits.bounds("elevation") == (0, 40)  # the lob within the jump's range
    assert Scenario.build(shots=["firewall", "firewall"]).key == Scenario.build(shots=["firewall"]).key
    # the Thumb and Flip Shots have one rule text: either throw meets both cards
    assert Scenario.build(shots=["thumb", "flip"]).shot.release == load_shot("flip").release
    assert [s.name for s in Scenario.build(shots=["thumb", "flip"]).shots] == ["flip"]


@pytest.mark.parametrize("shots, words", [
    (["elbow", "wrist"], "wrist holds the release at most 60 mm above the table, elbow's release is at least 250 mm up"),
    (["wrist", "jump"], "jump's release is at least 450 mm up"),
    (["thumb", "elbow"], "elbow and thumb both say where the die starts"),
    (["cup", "waterfall"], "cup and waterfall both say where the die starts"),
])
def test_combinations_that_cannot_be_thrown_are_refused_in_one_line(shots, words, capsys):
    for order in (shots, shots[::-1]):
        with pytest.raises(SpecError, match=re.escape(words)):
            Scenario.build(shots=order)
        args = ["throw", "--seed", "1"] + [x for s in order for x in ("--shot", s)]
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and words in err


def test_an_empty_intersection_of_limits_is_refused(tmp_path):
    steep = tmp_path / "steep.toml"
    steep.write_text('name = "steep"\nrole = "scene"\n[release]\ndistance_mm = 650\nheight_mm = 100\n'
                     '[limits]\nelevation_min_deg = 70\n')
    with pytest.raises(SpecError, match=r"slap allows elevation -25\.\.20 deg, steep demands at least 70 deg"):
        Scenario.build(shots=[str(steep), "slap"])


def test_the_docs_tabulate_every_pair_as_composed():
    text = (ROOT / "docs" / "shots-and-props.md").read_text()
    table = text.split("<!-- shot pairs -->\n", 1)[1].split("\n<!-- /shot pairs -->", 1)[0]
    assert table.splitlines() == pair_table(NAMES)
