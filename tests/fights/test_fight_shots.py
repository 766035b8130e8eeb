"""A fight's cards must demand throws a hero can make: the monster's and the room's specific throws
combine into one throw or the fight is refused; a hero can't carry two Weapons with the same name."""

from __future__ import annotations

import pytest

from sim.cli.main import main
from sim.errors import SpecError
from sim.fights.spec import fight_from_dict, load_fight

MONSTER = {"name": "m", "life": 6, "miss_damage": 2, "level": 1, "reward_gold": 2}


def _fight(monster_reqs, room_reqs, heroes=None):
    data = {"name": "t", "monster": MONSTER | {"requirements": monster_reqs},
            "room": {"name": "r", "requirements": room_reqs}, "party": {"heroes": heroes or [{"name": "A"}]}}
    return fight_from_dict(data, "t.toml")


def test_a_monster_and_a_room_demanding_throws_that_cannot_be_combined_are_refused(tmp_path, capsys):
    with pytest.raises(SpecError) as e:
        _fight(["elbow"], ["wrist"])
    assert e.value.field == "room.requirements"
    assert "elbow + wrist cannot be combined: wrist holds the release at most 60 mm" in e.value.problem
    assert _fight(["firewall"], ["far"]).room.requirements == ["far"]  # these combine
    path = tmp_path / "f.toml"
    path.write_text('name = "f"\n[monster]\nname = "m"\nlife = 6\nmiss_damage = 2\nlevel = 1\nrequirements = ["thumb"]\n'
                    '[room]\nrequirements = ["elbow"]\n[party]\nheroes = [{ name = "A" }]\n')
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "room.requirements" in err and "both say where the die starts" in err


def test_the_rulebook_fights_still_combine():
    spec = load_fight("griller-queen")  # the Floor is Lava with the Bear Trap and the Sword of Friendship
    assert spec.room.requirements == ["lava"]


def test_a_hero_cannot_carry_two_weapons_with_the_same_name():
    sword = {"kind": "weapon", "name": "Sword", "bonus": 1}
    with pytest.raises(SpecError, match="a Hero can't have 2 Weapons with the same name") as e:
        _fight([], [], heroes=[{"name": "A", "equipment": [sword, sword]}])
    assert e.value.field.startswith("party.heroes.0.equipment.") and e.value.field.endswith(".name")
