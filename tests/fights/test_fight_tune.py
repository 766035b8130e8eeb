"""Tuning a fight on a tiny synthetic throw table whose answer is known in closed form.

The fight: one hero (9 life, no abilities, no white dice) against a monster that deals 20 damage on
a miss. The throw table has five rows: four hits for 1 damage and one miss. The first miss fells the
only hero, and retrieving the dice costs 1 life (8 retrievals fit in 9 life), so a fight against a
monster of life L <= 12 is won exactly when its first L throws are hits: P(won) = 0.8 ** L. The coin
flip lies between life 3 (0.512) and life 4 (0.410); the closest integer is 3.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from sim.cli.main import main
from sim.experiments.statistics import wilson
from sim.fights.resample import ResampleSource
from sim.studies.responses import FightResponse
from sim.studies.tuner import tune

HIT_ROWS, ROWS = 4, 5
FIGHT = """
name = "coin-flip"
monster = { name = "dummy", title = "Dummy", life = 5, miss_damage = 20, level = 1, reward_gold = 1 }
[throws]
skill = "casual"
shot = "standard"
[party]
white_dice = 0
[[party.heroes]]
name = "Solo"
"""


@pytest.fixture()
def fight_dir(tmp_path):
    """A fight file and a hand-made run folder (records.parquet + experiment.resolved.json)."""
    hit = np.arange(ROWS) < HIT_ROWS  # rows 0-3 hit, row 4 misses: row int(u * 5) hits iff u < 0.8
    df = pd.DataFrame({
        "cell": 0, "result": np.where(hit, "hit", "miss"), "reason": np.where(hit, "hit", "off-board"),
        "section": np.where(hit, "s1", ""), "value": np.where(hit, 1, -1), "face": "blank", "icon": False,
        "damage": np.where(hit, 1.0, 0.0), "insta_kill": False, "template": "", "partial_template": False,
        "hero_damage": 0.0,
    })
    run = tmp_path / "run"
    run.mkdir()
    df.to_parquet(run / "records.parquet")
    cells = [{"index": 0, "name": "standard-casual", "variant": "standard-casual", "sweep_value": None,
              "inputs": {"board": "magma", "dice": ["hero-d8"], "shots": ["standard"], "skill": "casual"}}]
    (run / "experiment.resolved.json").write_text(json.dumps({"cells": cells}))
    (tmp_path / "coin.toml").write_text(FIGHT)
    return tmp_path


def won_by_draws(seed: int, n: int, life: int) -> int:
    """Fights of 0..n-1 whose first `life` throws are hits, read straight off the resampling streams."""
    src = ResampleSource(pd.DataFrame({"result": ["hit"], "reason": ["hit"], "damage": [1.0]}), seed=seed)
    return sum(all(int(src.uniform(f, t) * ROWS) < HIT_ROWS for t in range(life)) for f in range(n))


def test_fight_k_draws_the_same_stream_at_every_life(fight_dir):
    """Common random numbers: the wins at every monster life are exactly the fights whose own draws
    (seed, fight k, throw t) are hits, so the count can only fall as life grows."""
    resp = FightResponse(str(fight_dir / "coin.toml"), "monster.life", fight_dir / "run")
    assert resp.integer_setting and resp.current == 5
    counts = [resp(life, 300, 12345)[0] for life in range(1, 8)]
    assert counts == [won_by_draws(12345, 300, life) for life in range(1, 8)]
    assert counts == sorted(counts, reverse=True) and counts[0] > counts[-1]
    for life, k in zip(range(1, 8), counts):  # and the rate is 0.8 ** life (99.9 % Wilson interval)
        r = wilson(k, 300, 0.999)
        assert r.lo <= 0.8 ** life <= r.hi
    assert resp.spec_at(4).monster_life == 4
    assert [t.label for t in resp.used.values()] == ["standard-casual"]


def test_tune_finds_the_coin_flip_life(fight_dir):
    resp = FightResponse(str(fight_dir / "coin.toml"), "monster.life", fight_dir / "run")
    res = tune(resp, 1, 12, 0.5, integer=True, budget=100_000, seed=7, setting="monster.life", metric="win rate")
    assert res.answer == 3 and res.stop == "tolerance" and res.direction == "decreasing"
    lo, hi = res.interval
    assert lo <= 3 <= hi and hi - lo <= 2


def test_dfsim_tune_fight(fight_dir, capsys):
    args = ["tune", str(fight_dir / "coin.toml"), "--records", str(fight_dir / "run"), "--set", "monster.life=1:12",
            "--integer", "--target", "0.5", "--seed", "3", "--out", str(fight_dir / "out")]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert text.startswith("monster.life = 3 [") and "coin-flip: monster life 3" in text
    assert main(args + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["answer"] == 3 and d["metric"] == "win rate" and d["budget"] == 200_000
    assert d["context"]["fight"] == "coin-flip" and d["context"]["monster_life_at_answer"] == 3
    assert d["context"]["tables"][0]["label"] == "standard-casual"
    assert json.loads((fight_dir / "out" / "tune.json").read_text()) == d
    assert (fight_dir / "out" / "tune.png").stat().st_size > 0


@pytest.mark.parametrize("extra, needle", [
    (["--set", "monster.life=1:12", "--integer"], "--records"),
    (["--records", "RUN", "--set", "monster.life=1:12"], "add --integer"),
    (["--records", "RUN", "--set", "monster.life=1:12", "--integer", "--skill", "expert"], "throws.skill"),
    (["--records", "RUN", "--set", "monster.life=1:12", "--integer", "--metric", "hit"], "fight counts: won"),
    (["--records", "RUN", "--set", "monster.lives=1:12", "--integer"], "lives"),
    (["--records", "RUN", "--set", "monster.life=1:12", "--integer", "--set", "throws.skill=expert"], "no recorded throws"),
])
def test_bad_fight_tune_is_one_line_exit_2(fight_dir, capsys, extra, needle):
    out = fight_dir / "out"
    argv = ["tune", str(fight_dir / "coin.toml"), "--target", "0.5", "--out", str(out)]
    argv += [str(fight_dir / "run") if a == "RUN" else a for a in extra]
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and needle in cap.err and cap.err.count("\n") == 1
    assert not out.exists()


def test_a_target_the_range_does_not_reach_is_an_answer_exit_3(fight_dir, capsys):
    """Not bad input (exit 2) but a question with no answer in the range: one line, exit 3, nothing written."""
    out = fight_dir / "out"
    argv = ["tune", str(fight_dir / "coin.toml"), "--target", "0.5", "--out", str(out),
            "--records", str(fight_dir / "run"), "--set", "monster.life=30:40", "--integer"]
    assert main(argv) == 3
    cap = capsys.readouterr()
    assert cap.out == "" and "not inside the response" in cap.err and cap.err.count("\n") == 1
    # the line the docs show (docs/tuning.md), not the exception's arguments as a Python tuple
    assert cap.err.startswith("dfsim: tune monster.life: target win rate 0.5 is not inside the response over"), cap.err
    assert not out.exists()
