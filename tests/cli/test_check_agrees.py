"""`dfsim check` refuses what the using command refuses, by the same validation (the spec's own):
one line naming the file, the field and the problem, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.cli.main import main
from sim.errors import SpecError
from sim.specs.catalog import SPEC_CLASSES

D8 = """kind = "die"
name = "t-d8"
shape = "d8"
size_mm = 14.0
mass_g = 1.7
faces = ["icon", "+8", "blank", "blank", "+8", "blank", "blank", "blank"]
"""
SHOT = """kind = "shot"
name = "t-shot"
[release]
distance_mm = 700
height_mm = 300
"""
MATERIALS = """kind = "material"
name = "t-materials"
materials = ["plastic", "wood"]
[[pairs]]
a = "plastic"
b = "wood"
friction = 0.3
restitution = 0.5
[[pairs]]
a = "wood"
b = "plastic"
friction = 0.4
restitution = 0.5
"""

CASES = [
    ("die", D8 + 'icon_labels = ["skull"]\n', "icon_labels.0", "names no face"),
    ("die", D8 + "dims_mm = [14, 14, 14]\n", "dims_mm", "does not apply to a d8"),
    ("die", D8 + "radius_mm = 7\n", "radius_mm", "does not apply to a d8"),
    ("shot", SHOT.replace("[release]\n", "[release]\naim = \"bullseye\"\naim_mm = [10, 0]\n"), "aim_mm",
     "applies only with aim = 'point'"),
    ("material", MATERIALS, "pairs.1", "repeats the pair"),
]


@pytest.mark.parametrize("kind, text, field, words", CASES, ids=[c[2] for c in CASES])
def test_check_and_the_using_load_refuse_in_one_line(tmp_path: Path, capsys, kind, text, field, words):
    path = tmp_path / f"{kind}.toml"
    path.write_text(text)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and field in err[0] and words in err[0], err
    with pytest.raises(SpecError) as used:  # what a run, throw or fight loading the file does
        SPEC_CLASSES[kind].load(path, kind)
    assert err[0] == f"dfsim: {used.value}", (err[0], str(used.value))


def test_a_die_of_the_right_keys_still_passes(tmp_path: Path, capsys):
    path = tmp_path / "die.toml"
    path.write_text(D8 + 'icon_labels = ["icon", "+8"]\n')
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


# files whose using command validates more than the spec's own load: (file name, text, field, words,
# what the using command runs on the file)
def _resolve_experiment(path: Path) -> None:
    from sim.experiments.spec import resolve_experiment

    resolve_experiment(path)


def _load_fight(path: Path) -> None:
    from sim.fights.spec import load_fight

    load_fight(path)


REPO = Path(__file__).resolve().parents[2]
FIGHT = (REPO / "fights" / "reference.toml").read_text()
assert 'colored_die = "hero-d8"' in FIGHT
# a traversal path to a file that exists but is no die (this very test file)
TRAVERSAL = f"{Path(__file__).resolve().parent}/../cli/{Path(__file__).name}"

EXPERIMENT = """kind = "experiment"
name = "t-exp"
seed = 1
throws = 10
[defaults]
board = "magma"
[stop]
width = 0.1
max_throws = 100
"""

USING_CASES = [
    ("experiment.toml", EXPERIMENT + 'rate = "section:r999-0"\n', "stop.rate", "has no section 'r999-0'",
     _resolve_experiment),
    ("experiment.toml", EXPERIMENT.replace("[stop]", "templates = [" + ", ".join(
        ['{ name = "armor", x_mm = 0, y_mm = 0 }'] * 21) + "]\n[stop]") + 'rate = "hit"\n', "defaults.templates",
     "at most 20 items", _resolve_experiment),
    ("fight.toml", FIGHT.replace('colored_die = "hero-d8"', f'colored_die = "{TRAVERSAL}"'), "throws.colored_die",
     "neither a built-in die name nor a path to a .toml die file", _load_fight),
    ("fight.toml", FIGHT.replace('white_die = "white-d8"', f'white_die = "{REPO}/boards/magma.toml"'),
     "throws.white_die", "is not a die file", _load_fight),
]


@pytest.mark.parametrize("name, text, field, words, using", USING_CASES, ids=[c[2] for c in USING_CASES])
def test_check_refuses_what_the_using_command_refuses(tmp_path: Path, capsys, name, text, field, words, using):
    path = tmp_path / name
    path.write_text(text)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and field in err[0] and words in err[0], err
    with pytest.raises(SpecError) as used:
        using(path)
    assert err[0] == f"dfsim: {used.value}", (err[0], str(used.value))
    assert list(tmp_path.iterdir()) == [path]  # nothing written


@pytest.mark.parametrize("die", ["white-d8", "boards/dice/white-d8.toml", f"{REPO}/boards/dice/white-d8.toml"])
def test_a_fight_naming_a_real_die_still_passes(tmp_path: Path, capsys, monkeypatch, die):
    monkeypatch.chdir(REPO)  # a relative die path is read from the working folder
    path = tmp_path / "fight.toml"
    path.write_text(FIGHT.replace('white_die = "white-d8"', f'white_die = "{die}"'))
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


def test_a_stop_rate_on_a_real_section_still_passes(tmp_path: Path, capsys):
    path = tmp_path / "experiment.toml"
    path.write_text(EXPERIMENT + 'rate = "section:r280-0"\n')
    assert main(["check", str(path)]) == 0, capsys.readouterr().err


# `dfsim throw --release`: a die started in the table or inside the board is refused, naming the range
def _release(x_mm: float, y_mm: float, z_mm: float) -> str:
    import json

    return json.dumps({"position_mm": [x_mm, y_mm, z_mm], "velocity_mps": [1, 0, 0],
                       "orientation_xyzw": [0, 0, 0, 1], "spin_radps": [0, 0, 0]})


RELEASE_CASES = [
    ("under-table", _release(-700, 0, -5), "into the table", "z >= "),
    ("in-table", _release(-700, 0, 1), "into the table", "z >= "),
    ("in-board", _release(0, 0, 7), "inside the board", "z >= "),
]


@pytest.mark.parametrize("name, release, words, range_words", RELEASE_CASES, ids=[c[0] for c in RELEASE_CASES])
def test_a_release_in_the_table_or_the_board_is_refused(tmp_path: Path, capsys, monkeypatch, name, release, words,
                                                        range_words):
    from sim.engine.release import Release, check_release_position
    from sim.specs.scenario import Scenario

    monkeypatch.chdir(tmp_path)
    assert main(["throw", "--board", "magma", "--release", release, "--replay", "r.html"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--release" in err[0] and "position_mm" in err[0] and words in err[0], err
    assert range_words in err[0], err
    assert list(tmp_path.iterdir()) == []  # nothing written
    with pytest.raises(SpecError) as used:  # the one shared check
        check_release_position(Release.from_json(release), Scenario.build(board="magma"))
    assert err[0] == f"dfsim: {used.value}", (err[0], str(used.value))


def test_a_release_clear_of_table_and_board_passes_the_check():
    from sim.engine.release import Release, check_release_position
    from sim.specs.scenario import Scenario

    sc = Scenario.build(board="magma")
    for pos in ((-700, 0, 300), (0, 0, 12), (-700, 0, 8)):  # in the air; just over the board; low off the board
        check_release_position(Release.from_json(_release(*pos)), sc)


def _fight_with_template_cards(folder: Path, n: int) -> str:
    """The reference fight with n template cards, each its own template file, spread over the heroes."""
    armor = (REPO / "boards" / "templates" / "armor.toml").read_text()
    cards = []
    for k in range(n):
        t = folder / f"t{k}.toml"
        t.write_text(armor)
        cards.append(f'{{ kind = "template", name = "Card {k}", template = "{t}" }}')
    text = FIGHT
    for i, hero in enumerate(("Torm", "Brockenstock", "Melissa")):
        mine = cards[i * 8:(i + 1) * 8]
        if mine:
            text = text.replace(f'name = "{hero}"\n', f'name = "{hero}"\nequipment = [{", ".join(mine)}]\n', 1)
    return text


def test_a_fight_past_the_template_cap_is_refused(tmp_path: Path, tmp_path_factory, capsys):
    from sim.specs.template_setup import MAX_TEMPLATES

    assert MAX_TEMPLATES == 20  # the documented cap (docs/data-files.md)
    folder = tmp_path_factory.mktemp("templates")
    path = tmp_path / "fight.toml"
    path.write_text(_fight_with_template_cards(folder, MAX_TEMPLATES + 1))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and "party.heroes.2.equipment.4.template" in err[0], err
    assert "at most 20 templates" in err[0], err
    with pytest.raises(SpecError) as used:
        _load_fight(path)
    assert err[0] == f"dfsim: {used.value}", (err[0], str(used.value))
    assert list(tmp_path.iterdir()) == [path]


def test_a_fight_at_the_template_cap_passes(tmp_path: Path, capsys):
    path = tmp_path / "fight.toml"
    path.write_text(_fight_with_template_cards(tmp_path, 20))
    assert main(["check", str(path)]) == 0, capsys.readouterr().err
