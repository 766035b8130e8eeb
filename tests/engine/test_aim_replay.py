"""tools/aim_replay.py: a solve replayed on kept reference throws is the solve itself. Replaying this
checkout's solve reads every throw it needs and chooses what it chose; a changed solve replayed (what
it lacks thrown then) chooses and counts what the same change solving in the world does."""

from __future__ import annotations

import json

import pytest

from sim.engine import aim as A
from sim.engine.worlds import build_thrower
from sim.specs.scenario import Scenario


@pytest.fixture(scope="module")
def tool(load_script):
    return load_script("tools/aim_replay.py", "aim_replay")


@pytest.fixture(scope="module")
def kept(tool, tmp_path_factory):
    folder = tmp_path_factory.mktemp("replay")
    assert tool.main(["collect", str(folder), "--shot", "flip", "--skill", "casual", "--wide", "8"]) == 0
    return folder


def _solve(monkeypatch, **consts):
    for k, v in consts.items():
        monkeypatch.setattr(A, k, v)
    th = build_thrower(Scenario.build(board="magma", dice=["hero-d8"], shots=["flip"], skill="casual"))
    th.disk_cache = False
    seen = [0]

    def count(made, at_most):
        seen[0] = max(seen[0], made)

    choice = th.technique(progress=count)
    th.physics.close()
    return choice, seen[0]


def test_this_solve_replayed_is_the_solve_kept(tool, kept, monkeypatch):
    table = json.loads(next(kept.glob("*.json")).read_text())
    choice, refs = _solve(monkeypatch)
    assert table["choice"] == choice.to_json() and table["refs"] == refs
    (row,) = tool.replay(kept, A.AimSolver, {})
    assert row["same"] and row["refs"] == refs and row["thrown"] == 0


def test_a_changed_solve_replayed_is_that_solve_in_the_world(tool, kept, monkeypatch, tmp_path):
    # a copy: the throws this replay lacks are kept in its folder
    folder = tmp_path / "copy"
    folder.mkdir()
    for p in kept.glob("*.json"):
        (folder / p.name).write_text(p.read_text())
    consts = {"NOMINAL_MAX_FINAL_REFS": 32, "HALVING_RUNGS": (4, 8)}
    (row,) = tool.replay(folder, A.AimSolver, consts)
    assert A.NOMINAL_MAX_FINAL_REFS != 32  # put back after the replay
    choice, refs = _solve(monkeypatch, **consts)
    assert row["choice"] == choice.to_json() and row["refs"] == refs
    assert row["refs"] < json.loads(next(folder.glob("*.json")).read_text())["refs"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--set", "NOPE=1"], "not NAME=VALUE of a constant"),
        (["--set", "NOMINAL_MAX_FINAL_REFS=sixty"], "is not a JSON value"),
        (["--design", "nowhere.py:Solver"], "no such file"),
    ],
)
def test_bad_input_is_one_line_and_status_2(tool, kept, args, says, capsys):
    assert tool.main(["replay", str(kept), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]


def test_an_empty_folder_says_collect_first(tool, tmp_path, capsys):
    assert tool.main(["replay", str(tmp_path)]) == 2
    assert "run `collect` first" in capsys.readouterr().err


def test_a_design_from_a_file(tool, kept, tmp_path, capsys):
    design = tmp_path / "design.py"
    design.write_text(
        "from sim.engine.aim import AimSolver\n\n\n"
        "class FirstOfTwo(AimSolver):\n"
        "    def final_choice(self, aim, finalists, skill, screened):\n"
        "        return finalists[0]  # no finals: the best of the halving\n"
    )
    rows = tool.replay(kept, tool.load_design(f"{design}:FirstOfTwo"), {})
    assert rows[0]["refs"] < rows[0]["kept_refs"]
    assert tool.main(["replay", str(kept), "--design", f"{design}:Missing"]) == 2
    assert "no subclass of AimSolver named Missing" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "says"),
    [(["--shot", "nope"], "not an aimed built-in shot"), (["--skill", "pro"], "--skill: 'pro' is not one of")],
)
def test_collect_refuses_a_shot_or_skill_it_does_not_know(tool, tmp_path, args, says, capsys):
    assert tool.main(["collect", str(tmp_path / "none"), *args]) == 2
    assert says in capsys.readouterr().err and not (tmp_path / "none").exists()
    assert tool.chosen([("far", "casual"), ("far", "expert"), ("lava", "casual")], ["far+lava"], ["casual"]) == [
        ("far+lava", "casual")
    ]
