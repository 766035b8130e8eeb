"""summary.json statistics: streamed batch by batch, they equal the all-at-once computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim.experiments.report import CellStats, cell_summary
from sim.experiments.statistics import mean_interval, wilson


def _records(n: int, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hit = rng.random(n) < 0.4
    value = np.where(hit, rng.choice([1, 2, 10], size=n), -1)
    return pd.DataFrame({
        "index": np.arange(n),
        "result": np.where(hit, "hit", np.where(rng.random(n) < 0.05, "void", "miss")),
        "reason": np.where(hit, "hit", rng.choice(["off-board", "in-hole", "no-bounce"], size=n)),
        "section": np.where(hit, np.char.add("s", value.astype(str)), ""),
        "value": value,
        "face": rng.choice(["icon", "blank", "+2"], size=n),
        "damage": np.where(hit, value, 0).astype(float) + rng.normal(0, 0.1, n),
        "insta_kill": hit & (value == 10) & (rng.random(n) < 0.3),
        "cocked": rng.random(n) < 0.02,
    })


def test_streamed_equals_whole():
    df = _records(1000)
    whole = cell_summary(df)
    acc = CellStats()
    for part in np.array_split(np.arange(1000), [7, 300, 301, 950]):
        acc.add(df.iloc[part])
    streamed = acc.summary(0.95)
    assert streamed.keys() == whole.keys()
    for key in ("n", "hit_rate", "results", "reasons", "sections", "values", "faces", "insta_kill", "cocked"):
        assert streamed[key] == whole[key], key
    for k in ("value", "lo", "hi", "sd"):
        assert streamed["damage"][k] == pytest.approx(whole["damage"][k], rel=1e-12)


def test_against_direct_computation():
    df = _records(500, seed=9)
    s = cell_summary(df, 0.9)
    hits = int((df["result"] == "hit").sum())
    assert s["hit_rate"] == wilson(hits, 500, 0.9).as_dict()
    direct = mean_interval(df["damage"].to_numpy(), 0.9, method="bootstrap", n_boot=4000)
    assert s["damage"]["value"] == pytest.approx(direct.value, rel=1e-12)
    assert s["damage"]["lo"] == pytest.approx(direct.lo, rel=1e-12)
    assert s["damage"]["hi"] == pytest.approx(direct.hi, rel=1e-12)
    assert list(s["results"])[:2] == ["hit", "miss"]
    assert s["results"]["void"]["count"] == int((df["result"] == "void").sum())
    assert sum(r["count"] for r in s["reasons"].values()) == 500
    # sections: empty means none; values in numeric order, then "none"
    assert s["sections"]["none"]["count"] == 500 - hits
    assert list(s["values"]) == ["1", "2", "10", "none"]
    assert s["values"]["10"]["count"] == int(((df["value"] == 10) & (df["result"] == "hit")).sum())
    assert s["insta_kill"]["count"] == int(df["insta_kill"].sum())
    assert (s["first_index"], s["last_index"]) == (0, 499)


def test_mean_damage_interval_never_below_zero():
    # 30 throws, 3 hits of 1 damage: a t interval reaches below 0, the bootstrap stays within the data
    df = _records(30)
    df["damage"] = [1.0] * 3 + [0.0] * 27
    s = cell_summary(df)["damage"]
    assert s["method"] == "bootstrap" and s["value"] == pytest.approx(0.1)
    assert 0.0 <= s["lo"] < 0.1 < s["hi"] <= 1.0
    assert mean_interval(df["damage"].to_numpy()).lo < 0  # what the t interval said
