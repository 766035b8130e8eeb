"""experiments/template-odds.toml runs through the runner at small N, and its report adds up."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from sim.errors import SpecError
from sim.experiments.runner import run_experiment
from sim.experiments.spec import parse_experiment
from sim.experiments.template_report import template_report
from sim.rules.templates import PARTIAL_OPTIONS
from sim.specs.datafiles import read_toml

EXP = Path(__file__).resolve().parents[2] / "experiments" / "template-odds.toml"


def test_template_odds_file_is_valid_and_names_every_template():
    data = read_toml(EXP)
    spec = parse_experiment(data, str(EXP))
    names = {t["name"] for v in spec.variants for t in (v.templates or [])}
    assert names == {"fireball", "explosion", "armor", "major-healing", "slime", "philosophers-stone", "weak-point"}
    assert any(t.get("aim") for v in spec.variants for t in (v.templates or []))
    assert {"none-casual", "none-expert"} <= {v.name for v in spec.variants}


def test_bad_template_setting_is_one_clear_error():
    data = read_toml(EXP)
    data["variants"] = [{"name": "x", "templates": [{"name": "fireball", "flip": True, "x_mm": 3}]}]
    with pytest.raises(SpecError, match="flip"):
        run_experiment(data, out="/nonexistent/never-written", quiet=True)
    data["variants"] = [{"name": "x", "templates": [{"name": "frieball", "x_mm": 0, "y_mm": 0}]}]
    with pytest.raises(SpecError, match="frieball"):
        run_experiment(data, out="/nonexistent/never-written", quiet=True)


def test_template_odds_runs_at_small_n(tmp_path):
    data = read_toml(EXP)
    # small N; the throws use the solved standard release as a fixed one (aim "none") so the suite
    # does not spend minutes solving the aimed release of every cell; the two aim-at-template
    # variants (which must solve it) are left out here
    shot = tmp_path / "standard-fixed.toml"
    shot.write_text('name = "standard-fixed"\nrequirements = ["bounce-before-board"]\n[release]\n'
                    'distance_mm = 650\nheight_mm = 100\naim = "none"\nspeed_mps = 1.7727\nelevation_deg = 10.0\nspin_rps = 4.0\n')
    data["defaults"]["shots"] = [str(shot)]
    data["variants"] = [v for v in data["variants"] if not any(t.get("aim") for t in v.get("templates", []))]
    data["throws"] = 2
    data["chunk_throws"] = 2
    data["defaults"]["flip_bank"] = 2  # a small flip bank per flipped variant
    out = tmp_path / "run"
    run_experiment(data, out=out, workers=2, quiet=True, figures=False)
    df = pd.read_parquet(out / "records.parquet")
    assert len(df) == 2 * len(data["variants"])
    flipped = df[df["variant"].str.contains(".flip-", regex=False)]
    assert (flipped["tpl_flips"] >= flipped["tpl_pieces"]).all()
    assert (flipped.loc[flipped["variant"] == "explosion.flip-casual", "tpl_pieces"] == 2).all()
    # common random numbers: every variant of one skill threw the same releases
    df["skill"] = df["variant"].str.contains("expert").map({True: "expert", False: "casual"})
    rel = df.groupby(["skill", "index"])["rel_vx_mps"].nunique()
    assert (rel == 1).all()
    rep = template_report(out, figure=True)
    assert Path(rep["figure"]).is_file()
    v = rep["variants"]
    assert set(v) == {x["name"] for x in data["variants"]}
    for name, r in v.items():
        assert r["n"] == 2
        for k in ("fully_on_template", "partly_on_template", "hit_rate"):
            assert 0 <= r[k]["value"] <= 1
        if ".flip-" in name:
            f = r["flips"]
            total = f["p_lands_on_board"] + f["p_hangs_off"] + f["p_turned_too_little"]
            assert total <= 1 + 1e-9 and f["mean_flips_until_it_stays"] >= 1
            assert set(r["partial_counted_as"]) == set(PARTIAL_OPTIONS)
            assert r["damage_vs_none"]["pairs"] == 2
            assert math.isfinite(r["damage_vs_none"]["mean"])
        if name.startswith("none-"):
            assert r["templates"] == [] and "flips" not in r
