"""tools/aim_agreement.py --against: this solve's choice against another version's, kept by
benchmarks/aim_cost.py --json; a file that does not read is one line and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def tool(load_script):
    return load_script("tools/aim_agreement.py", "aim_agreement_tool")


def _kept(path: Path, technique: list) -> Path:
    path.write_text(json.dumps({"this": [{"shot": "flip", "skill": "casual", "refs": 300, "technique": technique}]}))
    return path


def test_against_this_solves_own_choice_is_the_same(tool, tmp_path, capsys):
    from sim.engine.worlds import build_thrower
    from sim.specs.scenario import Scenario

    th = build_thrower(Scenario.build(board="magma", dice=["hero-d8"], shots=["flip"], skill="casual"))
    own = th.technique().to_json()
    th.physics.close()
    out = tmp_path / "rows.json"
    assert tool.main(["--against", str(_kept(tmp_path / "b.json", own)), "--throws", "10", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["scenario"] == "flip/casual" and row["verdict"] == "same" and row["refs_exhaustive"] == 300
    assert "| before: refs |" in capsys.readouterr().out


def test_a_file_that_does_not_read(tool, tmp_path, capsys):
    bad = _kept(tmp_path / "b.json", [1.0, 10.0, "random"])
    assert tool.main(["--against", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "technique is not" in err[0]
    assert tool.main(["--against", str(tmp_path / "none.json")]) == 2
    good = _kept(tmp_path / "c.json", [1.5, 10.0, "random", 0.0, "lateral"])
    assert tool.main(["--against", str(good), "--scenario", "standard/expert"]) == 2
    assert "no solve of standard/expert" in capsys.readouterr().err


def test_a_design_stands_in_for_this_solve(tool, tmp_path):
    design = tmp_path / "design.py"
    design.write_text(
        "from sim.engine.aim import AimSolver\n\n\n"
        "class NoFinals(AimSolver):\n"
        "    def final_choice(self, aim, finalists, skill, screened):\n"
        "        return finalists[-1]  # the runner-up of the halving, unranked\n"
    )
    kept = _kept(tmp_path / "b.json", [1.5, 10.0, "random", 0.0, "lateral"])
    out = tmp_path / "rows.json"
    args = ["--against", str(kept), "--throws", "4", "--json", str(out)]
    # exit 1 would say a choice is worse than the made-up one beyond the tolerance: an answer too
    assert tool.main([*args, "--design", f"{design}:NoFinals"]) in (0, 1)
    with_design = json.loads(out.read_text())[0]
    assert tool.main(args) in (0, 1)
    plain = json.loads(out.read_text())[0]
    assert with_design["refs_halving"] < plain["refs_halving"]  # the design's solve made the choice
    assert tool.main([*args, "--design", f"{design}:Nope"]) == 2
