"""Fight experiments through the runner: one record per fight, the same records for any worker count
and after a resume, fight k on the same streams in every variant, the summary, strict validation."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.errors import SpecError
from sim.experiments.kinds import resolve_any
from sim.experiments.runner import run_experiment
from sim.fights.engine import run_fight
from sim.fights.resample import ResampleSource, tables_from_results
from sim.fights.spec import load_fight


def _records(n: int, p_hit: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hit = rng.random(n) < p_hit
    val = rng.integers(1, 7, n)
    df = pd.DataFrame({
        "index": np.arange(n), "result": np.where(hit, "hit", "miss"),
        "reason": np.where(hit, "hit", "off-board"), "section": np.where(hit, "s", ""),
        "value": np.where(hit, val, -1), "face": np.where(rng.random(n) < 0.125, "icon", "blank"),
        "damage": np.where(hit, val, 0).astype(float), "insta_kill": False, "template": "",
        "partial_template": False, "hero_damage": 0.0, "requirements": "",
    })
    df["icon"] = df["face"] == "icon"
    return df


@pytest.fixture(scope="module")
def throws_dir(tmp_path_factory) -> Path:
    """A finished throw run, made by hand: Firewall shot, casual / expert, and casual under holes = section."""
    d = tmp_path_factory.mktemp("throws") / "fake-throws"
    d.mkdir()
    cells, parts = [], []
    for i, (name, skill, rules, p) in enumerate([("casual", "casual", {}, 0.3), ("expert", "expert", {}, 0.6),
                                                 ("holes", "casual", {"holes": "section"}, 0.33)]):
        df = _records(300, p, seed=i)
        df.insert(0, "cell", i)
        parts.append(df)
        inputs = {"board": "magma", "dice": ["hero-d8"], "shots": ["firewall"], "skill": skill}
        if rules:
            inputs["rules"] = rules
        cells.append({"index": i, "name": name, "variant": name, "sweep_value": None, "inputs": inputs})
    pd.concat(parts).to_parquet(d / "records.parquet")
    (d / "experiment.resolved.json").write_text(json.dumps({"cells": cells}))
    (d / "manifest.json").write_text(json.dumps({"name": "fake-throws", "experiment_hash": "f00d", "state": "complete"}))
    return d


def experiment(throws_dir: Path, **kw) -> dict:
    exp = {
        "name": "fight-test", "fight": "reference", "engine": "resample", "throws_from": str(throws_dir),
        "seed": 9, "fights": 120, "chunk_fights": 25,
        "variants": [{"name": "casual"}, {"name": "expert", "skill": "expert"},
                     {"name": "holes", "house_rules": {"holes_inactive": True}},
                     {"name": "no-templates-rule", "house_rules": {"partial_templates_hit": True}},
                     {"name": "hard", "difficulty": "hard"}],
    }
    exp.update(kw)
    return exp


@pytest.fixture(scope="module")
def reference(throws_dir, tmp_path_factory):
    return run_experiment(experiment(throws_dir), out=tmp_path_factory.mktemp("ref") / "out", workers=1, quiet=True)


def test_one_record_per_fight(reference):
    df = reference.records
    assert len(df) == 5 * 120
    assert list(df["cell"]) == [c for c in range(5) for _ in range(120)]
    assert list(df["index"]) == list(range(120)) * 5 and (df["seed"] == 9).all()
    for col in ("variant", "won", "outcome", "rounds", "throws", "hero_damage", "white_dice_used", "retrievals",
                "fainted", "epic_shot", "gold", "monster_life_start", "life_by_throw"):
        assert col in df.columns, col
    assert (df["life_by_throw"].map(len) == df["throws"]).all()
    won = df[df["won"]]
    assert (won["life_by_throw"].map(lambda x: x[-1]) <= 0).all()
    for name in ("summary.json", "report.md", "figures/win_rate.png", "figures/differences.png",
                 "figures/throws_to_win.png", "figures/survival.png", "experiment.resolved.json"):
        assert (reference.out / name).is_file(), name
    assert json.loads((reference.out / "manifest.json").read_text())["state"] == "complete"


def test_fight_k_depends_only_on_seed_and_k(reference, throws_dir):
    """A record equals the same fight played alone with the same source seed and index."""
    spec = load_fight("reference", {"throws.skill": "expert"})
    tables, _ = tables_from_results(throws_dir, None, spec.throws.white_die, spec.throws.colored_die)
    df = reference.records
    row = df[(df["variant"] == "expert") & (df["index"] == 77)].iloc[0]
    r = run_fight(spec, ResampleSource(tables, seed=9), fight=77, log=False)
    assert (bool(row["won"]), int(row["throws"]), int(row["hero_damage"])) == (r.won, r.throws, r.hero_damage)
    assert list(row["life_by_throw"]) == r.life_by_throw


def test_two_workers_and_resume_give_the_same_records(reference, throws_dir, tmp_path):
    two = run_experiment(experiment(throws_dir), out=tmp_path / "two", workers=2, quiet=True, figures=False)
    pd.testing.assert_frame_equal(two.records, reference.records, check_exact=True)
    chunks = sorted((tmp_path / "two" / "chunks").glob("*.parquet"))
    for p in chunks[::3]:
        p.unlink()
    (tmp_path / "two" / "records.parquet").unlink()
    again = run_experiment(experiment(throws_dir), out=tmp_path / "two", workers=1, quiet=True, figures=False)
    assert again.throws_run == 25 * len(chunks[::3]) - sum(5 for p in chunks[::3] if p.name.endswith("4.parquet"))
    pd.testing.assert_frame_equal(again.records, reference.records, check_exact=True)


def test_common_random_numbers(reference):
    """A house rule that cannot matter (no template on the board) replays the baseline fight for fight."""
    df = reference.records
    cols = ["won", "throws", "hero_damage", "gold", "white_dice_used"]
    base = df[df["variant"] == "casual"][cols].reset_index(drop=True)
    same = df[df["variant"] == "no-templates-rule"][cols].reset_index(drop=True)
    pd.testing.assert_frame_equal(base, same)
    d = next(x for x in reference.summary["differences"] if x["name"] == "no-templates-rule")
    assert d["won"]["value"] == 0 and d["n_pairs"] == 120 and d["discordant"] == {"won_only_here": 0,
                                                                                   "won_only_baseline": 0}


def test_summary_agrees_with_records(reference):
    s = reference.summary
    df = reference.records
    assert s["schema"] == "dfsim-fight-summary/1" and s["total_fights"] == 600
    assert s["experiment"]["baseline"] == "casual" and s["experiment"]["throws"]["hash"] == "f00d"
    for v in s["variants"]:
        g = df[df["variant"] == v["name"]]
        wins = int(g["won"].sum())
        assert v["won"]["count"] == wins and v["n"] == 120
        assert v["won"]["lo"] <= v["won"]["rate"] <= v["won"]["hi"]
        assert v["distributions"]["throws_to_win"]["n"] == wins
        assert sum(v["distributions"]["throws_to_win"]["counts"].values()) == wins
        surv = v["survival"]
        assert surv["alive"][0] == 1.0 and all(a >= b for a, b in zip(surv["alive"], surv["alive"][1:]))
        horizon = surv["throw"][-1]
        assert math.isclose(1 - surv["alive"][-1], float((g["won"] & (g["throws"] <= horizon)).mean()), abs_tol=1e-6)
    assert [v["monster_life"] for v in s["variants"]] == [9, 9, 9, 9, 12]
    hard = next(d for d in s["differences"] if d["name"] == "hard")
    base_won = df[df["variant"] == "casual"]["won"].to_numpy()
    hard_won = df[df["variant"] == "hard"]["won"].to_numpy()
    assert hard["discordant"]["won_only_baseline"] == int(np.sum(base_won & ~hard_won))
    assert hard["won"]["value"] == pytest.approx(hard_won.mean() - base_won.mean())


@pytest.mark.parametrize("change,field,needle", [
    ({"engine": "physics"}, "engine", "resample"),
    ({"throws": 10}, "throws", "unknown key"),
    ({"fights": 0}, "fights", "greater than or equal to 1"),
    ({"fight": "nonsense"}, "fight", "unknown fight 'nonsense'"),
    ({"throws_from": "/nonexistent/folder"}, "throws_from", "neither a results folder nor an experiment"),
    ({"baseline": "nobody"}, "baseline", "no variant named 'nobody'"),
    ({"variants": [{"name": "a", "difficulty": "easy"}]}, "variants.0.difficulty", "normal"),
    ({"variants": [{"name": "a", "house_rules": {"free_lunch": True}}]}, "variants.0.house_rules.free_lunch",
     "unknown key"),
    ({"variants": [{"name": "a", "set": {"party.white_dice": 99}}]}, "variants.0.set.party.white_dice", "less than"),
    ({"variants": [{"name": "a", "policy": "psychic"}]}, "variants.0.policy", "unknown policy 'psychic'"),
    ({"variants": [{"name": "a", "skill": "novice"}]}, "throws_from", "does not record"),
    ({"variants": [{"name": "a", "house_rules": {"eyes_closed": True}}]}, "throws_from", "noise x1.6"),
    ({"variants": [{"name": "a", "house_rules": {"two_bounces": True}}]}, "throws_from", "min_bounces=2"),
    ({"defaults": {"house_rules": {"no_bounce": True, "two_bounces": True}}}, "variants.0",
     "cannot be combined"),
    ({"variants": [{"name": "a"}, {"name": "a"}]}, "variants.1.name", "duplicate"),
])
def test_bad_fight_experiments_name_the_field_and_write_nothing(throws_dir, tmp_path, change, field, needle):
    out = tmp_path / "out"
    with pytest.raises(SpecError) as e:
        run_experiment(experiment(throws_dir, **change), out=out, workers=1, quiet=True)
    assert e.value.field == field and needle in e.value.problem, str(e.value)
    assert not out.exists()


def test_an_unfinished_throw_folder_is_refused(throws_dir, tmp_path):
    d = tmp_path / "half"
    d.mkdir()
    for f in ("records.parquet", "experiment.resolved.json"):
        (d / f).write_bytes((throws_dir / f).read_bytes())
    (d / "manifest.json").write_text(json.dumps({"experiment_hash": "x", "state": "interrupted"}))
    with pytest.raises(SpecError) as e:
        resolve_any(experiment(d))
    assert e.value.field == "throws_from" and "not finished" in e.value.problem


def test_a_broken_fight_file_names_its_own_file_and_field(throws_dir, tmp_path):
    f = tmp_path / "broken.toml"
    f.write_text('name = "b"\nmonster = "firewall"\ndifficulty = "easy"\n[party]\n[[party.heroes]]\nname = "A"\n')
    with pytest.raises(SpecError) as e:
        resolve_any(experiment(throws_dir, fight=str(f)))
    assert Path(e.value.source) == f and e.value.field == "difficulty"


def test_the_throw_experiment_changes_the_hash(throws_dir, tmp_path):
    _, a = resolve_any(experiment(throws_dir))
    other = tmp_path / "other"
    other.mkdir()
    for f in ("records.parquet", "experiment.resolved.json"):
        (other / f).write_bytes((throws_dir / f).read_bytes())
    (other / "manifest.json").write_text(json.dumps({"experiment_hash": "beef", "state": "complete"}))
    _, b = resolve_any(experiment(other))
    assert a.hash != b.hash and [c.key for c in a.cells] == [c.key for c in b.cells]
    assert resolve_any(experiment(throws_dir, curves=["expert"]))[1].hash == a.hash  # presentation only


def test_each_fight_figure_is_said_as_its_drawing_starts(reference, tmp_path):
    from types import SimpleNamespace

    from sim.fights.figures import draw_fight_figures

    said: list[str] = []
    paths = draw_fight_figures(SimpleNamespace(root=tmp_path), reference.experiment, reference.summary, said.append)
    assert said == [p.name for p in paths] == ["win_rate.png", "differences.png", "throws_to_win.png", "survival.png"]
