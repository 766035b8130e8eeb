"""Output files (sim/files.py, the one writing routine): no output replaces an input, none is written
through a link, temporaries are not at predictable names, and `--force` removes only what dfsim wrote.
Everyday mistakes with outputs and results folders are one line and exit 2, before any work."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from sim import files
from sim.cli.main import main
from sim.experiments.store import remove_run_files

REPO = Path(__file__).resolve().parents[2]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _one_line_exit(capsys, argv: list[str], status: int = 2) -> str:
    assert main(argv) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_output_through_a_link_is_refused_and_its_target_kept(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "other.html"
    victim.write_text("mine")
    (tmp_path / "page.html").symlink_to(victim)
    err = _one_line_exit(capsys, ["throw", "--seed", "1", "--replay", "page.html"])
    assert "symbolic link" in err
    assert victim.read_text() == "mine"


def test_output_equal_to_an_input_is_refused(tmp_path, capsys):
    meas = tmp_path / "meas.toml"
    shutil.copy(REPO / "examples/measured-board/measurements.toml", meas)
    before = meas.read_bytes()
    err = _one_line_exit(capsys, ["board-from-measurements", str(meas), "--out", str(meas)])
    assert "inputs" in err and meas.read_bytes() == before
    board = tmp_path / "my-board.toml"
    shutil.copy(REPO / "boards/classic.toml", board)
    before = board.read_bytes()
    err = _one_line_exit(capsys, ["throw", "--seed", "1", "--board", str(board), "--replay", str(board)])
    assert "inputs" in err and board.read_bytes() == before


def test_a_link_planted_at_the_old_temporary_name_is_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    target = tmp_path / "page.html"
    (tmp_path / f".page.html.tmp{os.getpid()}").symlink_to(victim)
    files.write_atomic(target, "new page")
    assert target.read_text() == "new page" and victim.read_text() == "keep"
    tmp = files.temp_file(target)  # exclusive, unpredictable, and one of ours by its pattern
    assert tmp.parent == tmp_path and files.TEMP_RE.match(tmp.name).group("name") == "page.html"
    assert tmp != files.temp_file(target)


def test_force_removes_only_figures_dfsim_drew(tmp_path):
    figs = tmp_path / "figures"
    figs.mkdir()
    (figs / "landing.png").write_bytes(b"drawn")
    (figs / "holiday.jpg").write_bytes(b"a photo")  # listed by a planted manifest, not a figure name
    (figs / "outcomes.png").write_bytes(b"the user's own")  # a figure name, but not what was drawn
    manifest = {"figures": ["figures/landing.png", "figures/holiday.jpg", "figures/outcomes.png"],
                "figure_sha256": {"landing.png": _sha(figs / "landing.png"), "holiday.jpg": _sha(figs / "holiday.jpg"),
                                  "outcomes.png": "0" * 64}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    remove_run_files(tmp_path, manifest)
    assert not (figs / "landing.png").exists()
    assert (figs / "holiday.jpg").read_bytes() == b"a photo"
    assert (figs / "outcomes.png").read_bytes() == b"the user's own"


@pytest.mark.parametrize("argv, needle", [
    (["replay", "NOTES", "--cell", "a", "--index", "0"], "is a file, not a finished run folder"),
    (["report-html", "NOTES"], "is a file, not a finished run folder"),
    (["shot-report", "NOTES"], "is a file, not a finished run folder"),
    (["fight", "reference", "--records", "NOTES"], "is a file, not a finished run folder"),
    (["throw", "--seed", "1", "--replay", ""], "is empty"),
    (["throw", "--seed", "1", "--replay", "."], "names a folder"),
    (["throw", "--seed", "1", "--replay", "/dev/full"], "not a regular file"),
    (["throw", "--seed", "1", "--gif", "/dev/full"], "not a regular file"),
    (["throw", "--release", "[" * 100_000], "nested too deeply"),
    (["tune", "--set", "shot.release.distance_mm=600:900", "--target", "0.5", "--out", "NOTES/sub"], "which is a file"),
])
def test_everyday_mistakes_are_one_line_exit_2(tmp_path, capsys, argv, needle):
    notes = tmp_path / "notes.txt"
    notes.write_text("not a run")
    argv = [a.replace("NOTES", str(notes)) for a in argv]
    assert needle in _one_line_exit(capsys, argv)


def test_a_failing_disk_is_one_line_exit_1(tmp_path, capsys, monkeypatch):
    def full(*_a, **_k):
        raise OSError(28, "No space left on device", str(tmp_path / "out.toml"))

    monkeypatch.setattr(files, "write_atomic", full)
    import sim.cli.board_tools as bt

    monkeypatch.setattr(bt, "write_atomic", full)
    err = _one_line_exit(capsys, ["board-from-measurements", str(REPO / "examples/measured-board/measurements.toml"),
                                  "--out", str(tmp_path / "out.toml")], status=1)
    assert "No space left" in err


def test_an_output_gets_the_permissions_of_any_new_file_not_the_temporary_files_private_ones(tmp_path):
    """The temporary file is made private (mkstemp: 0600); the output it becomes is readable by whoever
    the umask allows, as a file written with open() would be (results are shared, served, copied)."""
    old = os.umask(0o022)
    try:
        path = files.write_atomic(tmp_path / "summary.json", "{}")
        assert path.stat().st_mode & 0o777 == 0o644
    finally:
        os.umask(old)
