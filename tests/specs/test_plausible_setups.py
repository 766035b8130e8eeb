"""`dfsim check` and the commands that use a file agree, and impossible set-ups are refused with the
plausible range in the message: dice too small, too large or of absurd mass, a die that does not fit
on its board, unknown materials; tallies and calibration measurements are recognised and checked as
`fit-skill` and `calibrate` use them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim.cli.main import main

REPO = Path(__file__).resolve().parents[2]
D8 = (REPO / "boards/dice/d8.toml").read_text()
SMALL_BOARD = """name = "tiny"
thickness_mm = 2.0
[outline]
shape = "circle"
radius_mm = 32.0
[[sections]]
id = "all"
value = 1
shape = { kind = "circle", radius_mm = 32.0 }
"""


def _die(tmp_path: Path, key: str, value: str) -> Path:
    p = tmp_path / "die.toml"
    p.write_text(re.sub(rf"(?m)^{key} = .*$", f"{key} = {value}", D8))
    return p


def _refused(capsys, argv: list[str], needle: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1, err


@pytest.mark.parametrize("key, value, needle", [
    ("size_mm", "0.001", "dice are 3 to 100 mm across"),
    ("size_mm", "150", "dice are 3 to 100 mm across"),
    ("mass_g", "1e-300", "0.1 to 500 g"),
    ("mass_g", "2000", "0.1 to 500 g"),
    ("material", '"unobtainium"', "unknown material 'unobtainium'"),
])
def test_check_and_throw_refuse_an_implausible_die(tmp_path, capsys, key, value, needle):
    die = _die(tmp_path, key, value)
    _refused(capsys, ["check", str(die)], needle)
    if key != "material":  # a scenario checks materials against its own table (its message differs)
        _refused(capsys, ["throw", "--die", str(die), "--seed", "1"], needle)


def test_a_die_that_does_not_fit_on_its_board_is_refused(tmp_path, capsys):
    board = tmp_path / "board.toml"
    board.write_text(SMALL_BOARD)
    _refused(capsys, ["throw", "--die", str(_die(tmp_path, "size_mm", "60")), "--board", str(board), "--seed", "1"],
             "does not fit on board 'tiny'")


@pytest.mark.parametrize("name, kind", [("alice.toml", "tally"), ("kitchen-table.toml", "measurements")])
def test_check_recognises_tallies_and_measurements(capsys, name, kind):
    assert main(["check", str(REPO / "examples/calibration" / name)]) == 0
    assert f"is a valid {kind}" in capsys.readouterr().out


def test_check_of_a_tally_builds_its_scene(tmp_path, capsys):
    bad = tmp_path / "t.toml"
    bad.write_text((REPO / "examples/calibration/alice.toml").read_text().replace('board = "magma"', 'board = "nowhere"'))
    _refused(capsys, ["check", str(bad)], "unknown board 'nowhere'")
