"""dfsim board-plot and board-from-measurements: PNGs for every shipped board and over the example photo;
bad input is one line, exit status 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.cli.main import main
from sim.specs.datafiles import builtin_names

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "measured-board"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("board", builtin_names("board"))
def test_every_shipped_board_draws(board, tmp_path, capsys):
    out = tmp_path / f"{board}.png"
    assert main(["board-plot", board, "--out", str(out)]) == 0, capsys.readouterr().err
    assert out.read_bytes()[:8] == PNG and out.stat().st_size > 20_000


def test_board_over_the_example_photo_and_from_measurements(tmp_path, capsys):
    board = tmp_path / "mine.toml"
    assert main(["board-from-measurements", str(EXAMPLE / "measurements.toml"), "--out", str(board)]) == 0
    assert "19 sections, 4 holes, 3 bones" in capsys.readouterr().out
    assert board.read_text() .split("\n", 3)[3] == (EXAMPLE / "board.toml").read_text().split("\n", 3)[3]
    for source in (board, EXAMPLE / "measurements.toml"):  # a measurement file draws directly too
        out = tmp_path / f"over-{source.stem}.png"
        assert main(["board-plot", str(source), "--photo", str(EXAMPLE / "photo.png"), "--scale-px-per-mm", "1",
                     "--centre-px", "300,290", "--rotate-deg", "20", "--out", str(out)]) == 0
        assert out.read_bytes()[:8] == PNG and out.stat().st_size > 50_000
    assert main(["check", str(board)]) == 0
    assert main(["check", str(EXAMPLE / "measurements.toml")]) == 0
    assert "valid measured board (19 sections" in capsys.readouterr().out


@pytest.mark.parametrize("args, needle", [
    (["magma", "--photo", "nope.png", "--scale-px-per-mm", "1", "--centre-px", "1,1"], "--photo: file not found"),
    (["magma", "--photo", "PHOTO"], "needs --scale-px-per-mm and --centre-px"),
    (["magma", "--photo", "PHOTO", "--scale-px-per-mm", "1", "--centre-px", "1;1"], "--centre-px: expected"),
    (["magma", "--photo", "NOTIMAGE", "--scale-px-per-mm", "1", "--centre-px", "1,1"], "cannot read"),
    (["magma", "--scale-px-per-mm", "1"], "--scale-px-per-mm: needs --photo"),
    (["magma", "--scale-px-per-mm", "-1"], "--scale-px-per-mm"),
    (["no-such-board"], "no-such-board"),
    (["BADMEASURED"], "rings.0.r_inner_mm"),
])
def test_bad_plot_input_one_line_exit_2(args, needle, tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "b"\nthickness_mm = 2.0\ncenter_mm = [0.0, 0.0]\noutline_radius_mm = 200.0\n'
                   '[[rings]]\nr_inner_mm = 50.0\nr_outer_mm = 40.0\nvalues = [1]\n')
    (tmp_path / "not.png").write_text("not an image")
    subst = {"PHOTO": str(EXAMPLE / "photo.png"), "NOTIMAGE": str(tmp_path / "not.png"), "BADMEASURED": str(bad)}
    out = tmp_path / "out" / "x.png"
    code = main(["board-plot", *[subst.get(a, a) for a in args], "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and needle in err, err
    assert not out.exists() and not out.parent.exists()


def test_bad_measurements_one_line_exit_2(tmp_path, capsys):
    src = tmp_path / "m.toml"
    src.write_text((EXAMPLE / "measurements.toml").read_text().replace("diameter_mm = 45", "diameter_mm = -45", 1))
    out = tmp_path / "b.toml"
    assert main(["board-from-measurements", str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "holes.0.diameter_mm" in err and str(src) in err, err
    assert not out.exists()
    # a hole the measurements put outside the board: the board is refused, named in the same line
    src.write_text((EXAMPLE / "measurements.toml").read_text().replace("[370.0, 450.0]", "[370.0, 590.0]"))
    assert main(["board-from-measurements", str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "holes.0" in err and "outside" in err, err
    assert not out.exists()
