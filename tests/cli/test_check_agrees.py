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
    from sim.specs.fight import load_fight

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
