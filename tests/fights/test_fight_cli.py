"""`dfsim fight` on a hand-made run folder (records.parquet + experiment.resolved.json), and `dfsim monsters`."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from sim.cli.main import main


@pytest.fixture()
def run_dir(tmp_path):
    rng = np.random.default_rng(3)
    n = 400
    hit = rng.random(n) < 0.4
    val = rng.integers(1, 7, n)
    df = pd.DataFrame({
        "cell": 0, "cell_name": "fw", "variant": "fw", "index": np.arange(n),
        "result": np.where(hit, "hit", "miss"), "reason": np.where(hit, "hit", "requirement:firewall"),
        "section": np.where(hit, "s", ""), "value": np.where(hit, val, -1), "face": np.where(rng.random(n) < 0.125, "icon", "blank"),
        "damage": np.where(hit, val, 0).astype(float), "insta_kill": False, "template": "", "partial_template": False,
        "hero_damage": 0.0, "requirements": "bounce-before-board=passed,firewall=passed",
    })
    df["icon"] = df["face"] == "icon"
    df.to_parquet(tmp_path / "records.parquet")
    cells = [{"index": 0, "name": "fw", "variant": "fw", "sweep_value": None,
              "inputs": {"board": "magma", "dice": ["hero-d8"], "shots": ["firewall"], "skill": "casual"}}]
    (tmp_path / "experiment.resolved.json").write_text(json.dumps({"cells": cells}))
    return tmp_path


def test_one_fight_prints_a_log_and_replays(run_dir, capsys):
    assert main(["fight", "reference", "--records", str(run_dir), "--seed", "4", "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert a["fight"] == "reference" and a["result"]["outcome"] in ("won", "lost")
    assert a["result"]["log"][0]["event"] == "start" and a["tables"][0]["label"] == "fw"
    assert any("white-d8" in n for n in a["notes"])
    assert main(["fight", "reference", "--records", str(run_dir), "--seed", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == a
    assert main(["fight", "reference", "--records", str(run_dir), "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Firewall: 9 life") and ("DEFEATED" in text or "LOST" in text)


def test_many_fights_summarize(run_dir, capsys):
    assert main(["fight", "reference", "--records", str(run_dir), "--fights", "200", "--json",
                 "--set", "difficulty=hard"]) == 0
    s = json.loads(capsys.readouterr().out)["summary"]
    assert s["n"] == 200 and s["won"]["count"] + s["lost"]["count"] + s["unfinished"]["count"] == 200
    assert 0 <= s["won"]["lo"] <= s["won"]["rate"] <= s["won"]["hi"] <= 1
    assert main(["fight", "reference", "--records", str(run_dir), "--fights", "50"]) == 0
    assert "won" in capsys.readouterr().out


@pytest.mark.parametrize("argv,needle", [
    (["fight", "reference"], "--records"),
    (["fight", "nonsense", "--records", "."], "unknown fight 'nonsense'"),
    (["fight", "reference", "--records", "RUN", "--set", "throws.skill=expert"], "no recorded throws"),
    (["fight", "reference", "--records", "RUN", "--policy", "psychic"], "unknown policy"),
    (["fight", "reference", "--records", "RUN", "--variant", "other"], "no variant 'other'"),
    (["fight", "reference", "--records", "/nonexistent"], "not a finished run folder"),
])
def test_bad_input_is_one_line_and_exit_2(run_dir, capsys, argv, needle):
    argv = [str(run_dir) if a == "RUN" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_monsters_listing(capsys):
    assert main(["monsters"]) == 0
    out = capsys.readouterr().out
    assert "firewall" in out and "griller-queen" in out
    from sim.fights.monster import load_monster

    assert main(["check", load_monster("firewall").source]) == 0


def test_house_rules_by_name_on_the_command_line(run_dir, capsys):
    args = ["fight", "reference", "--records", str(run_dir), "--fights", "300", "--json"]
    assert main(args) == 0
    base = json.loads(capsys.readouterr().out)["summary"]
    assert main(args + ["--rule", "monster_life_bonus=-3", "--rule", "extra_white_dice=2"]) == 0
    easier = json.loads(capsys.readouterr().out)["summary"]
    assert easier["won"]["count"] > base["won"]["count"]  # same streams: 3 less life and 2 more dice only help
    assert main(args + ["--rule", "holes_inactive"]) == 2  # the records hold no throws classified that way
    assert "holes=section" in capsys.readouterr().err
    assert main(args + ["--rule", "free_lunch"]) == 2
    err = capsys.readouterr().err
    assert err == "dfsim: command line: --rule: house_rules.free_lunch: unknown key\n"


@pytest.mark.parametrize("text,field", [
    ('name = "m"\nlife = 0\nmiss_damage = 1\nlevel = 1\n', "life"),
    ('name = "m"\nlife = 5\nmiss_damage = 1\nlevel = 1\nability = "grumpy"\n', "ability"),
    ('name = "m"\nlife = 5\nmiss_damage = 1\nlevel = 1\nrequirements = ["nope"]\n', "requirements.0"),
    ('name = "m"\nlife = 5\nmiss_damage = 1\nlevel = 1\nfinal_boss = true\nreward_gold = 2\n', "reward_gold"),
    ('name = "m"\nlife = 5\nmiss_damage = 1\nlevel = 1\nwings = 2\n', "wings"),
])
def test_bad_monster_files_are_one_line_exit_2(tmp_path, capsys, text, field):
    f = tmp_path / "monster.toml"
    f.write_text(text)
    assert main(["check", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dfsim: {f}: {field}: ") and err.count("\n") == 1
    fight = tmp_path / "fight.toml"
    fight.write_text(f'name = "f"\nmonster = "{f.name}"\n[party]\n[[party.heroes]]\nname = "A"\n')
    assert main(["check", str(fight)]) == 2  # a fight naming it: the monster file's own line
    assert capsys.readouterr().err == err


@pytest.mark.parametrize("text,field", [
    ('name = "f"\nmonster = "firewall"\ndifficulty = "easy"\n[party]\n[[party.heroes]]\nname = "A"\n', "difficulty"),
    ('name = "f"\nmonster = "nobody"\n[party]\n[[party.heroes]]\nname = "A"\n', "monster"),
    ('name = "f"\nmonster = "firewall"\n[party]\nheroes = []\n', "party.heroes"),
    ('name = "f"\nmonster = "firewall"\n[party]\n[[party.heroes]]\nname = "A"\nred = "flying"\n', "party.heroes.0.red"),
    ('name = "f"\nmonster = "firewall"\n[house_rules]\nfree_lunch = true\n[party]\n[[party.heroes]]\nname = "A"\n',
     "house_rules.free_lunch"),
])
def test_bad_fight_files_are_one_line_exit_2_and_nothing_is_written(run_dir, tmp_path, capsys, text, field):
    f = tmp_path / "fight.toml"
    f.write_text(text)
    assert main(["check", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dfsim: {f}: {field}: ") and err.count("\n") == 1
    assert main(["fight", str(f), "--records", str(run_dir)]) == 2
    assert capsys.readouterr().err == err
    exp = tmp_path / "exp.toml"
    exp.write_text(f'name = "e"\nfight = "fight.toml"\nengine = "resample"\nthrows_from = "{run_dir}"\n'
                   'seed = 1\nfights = 10\n')
    out = tmp_path / "out"
    assert main(["run", str(exp), "--out", str(out), "--quiet"]) == 2
    assert capsys.readouterr().err == err and not out.exists()


@pytest.mark.slow
def test_a_physics_fight_shows_its_progress(capsys):
    """Every throw of a physics fight is simulated (seconds each, and an aim solve per new scene): a bar
    of the fights with the throws so far, not minutes of silence."""
    assert main(["fight", "reference", "--engine", "physics", "--fights", "1", "--seed", "3"]) == 0
    err = capsys.readouterr().err
    assert "fights in physics" in err and re.search(r"\d+ throws", err), err[-500:]
