"""Super Dungeon Arena's roll-off ("Each player rolls three blue dice. The player who rolls the most
stars is player one ... Reroll in the case of a tie"): three physical dice thrown together, every die
recorded and read."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sim.engine.worlds import thrower_for
from sim.specs.datafiles import tomllib
from sim.specs.scenario import Scenario
from sim.studies.rolloff import roll_faces, sda_rolloff

ROOT = Path(__file__).resolve().parents[2]


def test_three_blue_dice_are_one_roll_of_three_bodies_each_recorded():
    th = thrower_for(Scenario.build(dice=["sda-blue"] * 3, shots=["roll"]))
    knocked = 0
    for k in range(4):
        res = th.throw(2026, k)
        rec = res.record()
        assert rec["n_dice"] == 3
        assert roll_faces(rec) == [o.face for o in res.outcomes]
        for i, o in enumerate(res.outcomes[1:], start=1):
            assert rec[f"die{i}_result"] == o.result == "roll" and rec[f"die{i}_x_mm"] == o.position_mm[0]
        knocked += any(e.other.startswith("die:") for e in res.trace.events)
    assert knocked  # thrown together from one hand, they knock into each other


def _row(variant: str, index: int, faces: list[str], results: list[str] | None = None) -> dict:
    results = results or ["roll"] * len(faces)
    row = {"variant": variant, "index": index, "n_dice": len(faces), "face": faces[0], "result": results[0]}
    for i in range(1, 3):
        row[f"die{i}_face"] = faces[i] if i < len(faces) else None
        row[f"die{i}_result"] = results[i] if i < len(faces) else None
    return row


def _fake_run(tmp_path: Path, rows: list[dict]) -> Path:
    """A finished throw run as the roll-off reads it: records, summary and its resolved description (a
    throw experiment: the report refuses a run of another kind)."""
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "records.parquet")
    (tmp_path / "summary.json").write_text(json.dumps({"experiment": {"confidence": 0.95}}))
    variants = sorted({r["variant"] for r in rows})
    cells = [{"index": i, "name": v, "inputs": {"dice": [v]}} for i, v in enumerate(variants)]
    (tmp_path / "experiment.resolved.json").write_text(json.dumps({"format": 1, "cells": cells}))
    return tmp_path


def test_the_rolloff_sums_the_stars_of_every_die_of_a_roll(tmp_path):
    single = ["star", "star", "blank", "2-star", "blank", "blank", "heart", "blank"]
    rows = [_row("blue-die", k, [f]) for k, f in enumerate(single)]
    three = [["star", "star", "blank"], ["2-star", "blank", "blank"],  # 2 vs 2: a tie, rolled again
             ["star", "blank", "blank"], ["star", "heart", "heart"],  # 1 vs 1: a tie (hearts count nothing)
             ["2-star", "star", "blank"], ["blank", "blank", "blank"],  # 3 vs 0: player one found
             ["star", "star", "star"]]  # an odd roll left over
    rows += [_row("three-blue-dice", k, f) for k, f in enumerate(three)]
    rows.append(_row("three-blue-dice", 7, ["star", "blank", "star"], ["roll", "void", "roll"]))  # a die unsettled
    rep = sda_rolloff(_fake_run(tmp_path, rows))
    ro = rep["rolloff"]
    assert ro["dice_per_roll"] == 3 and ro["rolls"] == 7 and ro["rerolled_unsettled"] == 1
    assert ro["attempts"] == 3 and ro["tie_rate"]["count"] == 2
    sc = rep["scenario_roll"]  # the scenario roll: one die
    assert sc["Destruction"]["count"] == 4 and sc["King of the Hill"]["count"] == 2 and sc["Crystal Capture"]["count"] == 2
    # exact for independent dice with the face frequencies of the roll-off's own 21 dice
    dice = [f for r in three for f in r]
    one = [sum(f in ("blank", "heart") for f in dice) / 21, dice.count("star") / 21, dice.count("2-star") / 21]
    total = np.convolve(np.convolve(one, one), one)
    assert ro["exact_tie_probability"] == pytest.approx(float(np.sum(total**2)))
    # a different face value table changes the roll-off: hearts worth 1 break the second tie
    assert sda_rolloff(tmp_path, stars={"star": 1, "2-star": 2, "heart": 1})["rolloff"]["tie_rate"]["count"] == 1


def test_a_rolloff_of_single_die_throws_is_refused(tmp_path):
    from sim.errors import SpecError

    rows = [_row("blue-die", k, ["star"]) for k in range(4)] + [_row("three-blue-dice", k, ["star"]) for k in range(4)]
    with pytest.raises(SpecError, match="same several dice"):
        sda_rolloff(_fake_run(tmp_path, rows))


def test_the_sda_experiment_plays_the_rolloff_through_its_three_dice_throws(tmp_path):
    from sim.experiments.runner import run_experiment

    spec = tomllib.loads((ROOT / "experiments" / "sda-rolloff.toml").read_text())
    spec.update(throws=12, chunk_throws=12)
    run_experiment(spec, out=tmp_path, workers=1, quiet=True, figures=False)
    rep = sda_rolloff(tmp_path)
    df = pq.read_table(tmp_path / "records.parquet").to_pandas()
    rolls = [roll_faces(r) for r in df[df["variant"] == "three-blue-dice"].sort_values("index").to_dict("records")]
    settled = [r for r in rolls if r is not None]
    stars = [sum({"star": 1, "2-star": 2}.get(f, 0) for f in r) for r in settled]
    ro = rep["rolloff"]
    assert ro["rolls"] == len(settled) and all(len(r) == 3 for r in settled)
    assert ro["attempts"] == len(settled) // 2
    assert ro["tie_rate"]["count"] == sum(stars[k] == stars[k + 1] for k in range(0, len(stars) - 1, 2))
    assert sum(r["count"] for r in ro["faces"].values()) == 3 * len(settled)
