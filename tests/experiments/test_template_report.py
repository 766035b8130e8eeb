"""The template report gives intervals: Wilson for rates, percentile bootstrap for mean damage (never
below 0), paired t for the damage difference to the same throws without a template."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from sim.experiments.template_report import template_report
from sim.rules.templates import PARTIAL_OPTIONS


def _records(n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(8)
    rows = []
    for variant, p_hit, on_tpl in (("none-casual", 0.4, False), ("weak-point.laid-casual", 0.5, True)):
        for k in range(n):
            hit = bool(rng.random() < p_hit)
            tpl = on_tpl and hit and rng.random() < 0.3
            row = {"variant": variant, "index": k, "result": "hit" if hit else "miss",
                   "damage": float(rng.choice([1, 2, 3]) if hit else 0.0), "hero_damage": 0.0,
                   "insta_kill": bool(hit and rng.random() < 0.05), "template": "weak-point" if tpl else "",
                   "partial_template": False, "tpl_full": tpl, "tpl_on_board": "weak-point" if on_tpl else None,
                   "tpl_pieces": 0, "tpl_flips": 0}
            row.update({f"partial_as_{o}": "" for o in PARTIAL_OPTIONS})
            rows.append(row)
    return pd.DataFrame(rows)


def _run_folder(folder) -> None:
    """A finished template-odds run as the report reads it: its records and its resolved description (one
    variant without a template, one laying the Weak Point)."""
    _records().to_parquet(folder / "records.parquet")
    laid = [{"name": "weak-point", "x_mm": 120, "y_mm": 0}]
    cells = [{"index": 0, "name": "none-casual", "inputs": {"board": "magma"}},
             {"index": 1, "name": "weak-point.laid-casual", "inputs": {"board": "magma", "templates": laid}}]
    (folder / "experiment.resolved.json").write_text(json.dumps({"format": 1, "cells": cells}))


def test_template_report_has_intervals(tmp_path):
    _run_folder(tmp_path)
    rep = template_report(tmp_path, figure=True)
    for name, r in rep["variants"].items():
        d = r["damage"]
        assert d["method"] == "bootstrap" and 0.0 <= d["lo"] <= d["value"] <= d["hi"], name
        assert d["value"] == pytest.approx(r["mean_damage"])
        ik = r["insta_kill"]
        assert 0.0 <= ik["lo"] <= ik["value"] <= ik["hi"] <= 1.0
    diff = rep["variants"]["weak-point.laid-casual"]["damage_vs_none"]
    assert diff["pairs"] == 40 and diff["lo"] < diff["mean"] < diff["hi"] and diff["method"] == "paired-t"
    assert json.loads((tmp_path / "template-odds.json").read_text())["variants"].keys() == rep["variants"].keys()
    assert (tmp_path / "figures" / "template-odds.png").stat().st_size > 10_000


def test_the_table_shows_a_dash_not_nan_where_there_were_no_flips(tmp_path, capsys):
    from sim.cli.main import main

    _run_folder(tmp_path)
    assert main(["template-report", str(tmp_path), "--no-figure"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out.lower() and len(out.strip().splitlines()) == 3, out
