"""The game studies and the game benchmark run end to end at tiny sizes on a synthetic bank: they call
the game engine's API directly, so a change of that API must break a test here, not the next
three-hour study (a study calling `run_games(..., progress=False)` had failed after a change of its
signature). What is checked is each script's output shape, not any number."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "games"))
from synthetic_bank import use_synthetic_workers  # noqa: E402


def run_script(path: str, argv: list[str], monkeypatch) -> None:
    monkeypatch.setattr(sys, "argv", [path, *argv])
    monkeypatch.chdir(ROOT)
    runpy.run_path(str(ROOT / path), run_name="__main__")


@pytest.fixture
def synthetic(monkeypatch):
    use_synthetic_workers(monkeypatch)


def test_policy_ladder_writes_every_cell_with_each_rung_and_strong(tmp_path, monkeypatch, synthetic, capsys):
    out = tmp_path / "ladder.json"
    args = "--games 12 --strong-games 3 --strong-games-lost 2 --parties 3-casual 4-casual"
    args += " --difficulties normal hard --life -8 --bank-throws 200"
    run_script(
        "studies/policy_ladder.py",
        [*args.split(), "--bank", str(tmp_path / "bank"), "--out", str(out)],
        monkeypatch,
    )
    data = json.loads(out.read_text())
    assert data["complete"] and len(data["cells"]) == 4
    for c in data["cells"]:
        assert set(c["won"]) == {"first-time", "classic", "default", "strong"}
        assert c["games"]["default"] == 12 and c["games"]["strong"] in (2, 3)
    assert {h["policy"] for h in data["hard_cost"]} >= {"default", "strong"}


def test_game_house_rules_gives_each_rules_paired_effect_per_policy(tmp_path, monkeypatch, synthetic):
    out = tmp_path / "rules.json"
    args = "--games 10 --strong-games 2 --life -8 --rules extra_white_dice=1 retrieval_half_damage=true"
    args += " --bank-throws 200"
    run_script(
        "studies/game_house_rules.py",
        [*args.split(), "--bank", str(tmp_path / "bank"), "--out", str(out)],
        monkeypatch,
    )
    rows = json.loads(out.read_text())["rows"]
    assert [(r["policy"], r["games"]) for r in rows] == [("default", 10), ("strong", 2)]
    assert set(rows[0]["minus_printed"]) == {"extra_white_dice=1", "retrieval_half_damage=true"}


def test_card_sensitivity_screens_every_estimate(tmp_path, monkeypatch, synthetic):
    from sim.games.estimates import ESTIMATES

    out = tmp_path / "sens"
    args = "--games 6 --trajectories 2 --bank-throws 200"
    run_script(
        "studies/card_sensitivity.py",
        [*args.split(), "--bank", str(tmp_path / "bank"), "--out", str(out)],
        monkeypatch,
    )
    assert (out / "card-sensitivity.png").is_file()
    data = json.loads((out / "card-sensitivity.json").read_text())
    assert len(json.dumps(data)) > 0 and all(name in json.dumps(data) for name in ESTIMATES)


def test_game_speed_times_a_policy_against_default(tmp_path, monkeypatch, synthetic, capsys):
    args = "--games 20 --policy first-time --policy-games 4 --bank-throws 200 --json"
    run_script("benchmarks/game_speed.py", [*args.split(), "--bank", str(tmp_path / "bank")], monkeypatch)
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["first-time_x_default"] > 0
