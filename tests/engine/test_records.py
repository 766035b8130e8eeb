"""The records home: every column a reader asks for is one the writers write, and the encoders and
decoders of a throw record give back what went in."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from sim.engine import records
from sim.engine.worlds import thrower_for
from sim.errors import SpecError
from sim.fights.resample import tables_from_results
from sim.fights.throw_source import scripted
from sim.specs.scenario import Scenario

CELL_COLUMNS = {"cell": 0, "cell_name": "c", "variant": "v", "sweep_value": 0.0, "scenario_key": "k"}


@pytest.fixture(scope="module")
def thrown():
    th = thrower_for(Scenario.build(shots=["firewall"]))
    return [th.throw(5, k) for k in range(3)]


def test_a_throw_record_holds_its_release_and_outcome_columns_in_order(thrown):
    for res in thrown:
        row = records.throw_row(res, CELL_COLUMNS, (records.EFFECTS,))
        keys = list(row)
        written = ["seed", "index", *records.RELEASE_COLUMNS, *records.OUTCOME_COLUMNS]
        assert keys[len(CELL_COLUMNS):len(CELL_COLUMNS) + len(written)] == written
        assert records.release_from_record(row) == res.releases[0]
        assert row[records.EFFECTS] == ";".join(res.outcome.effects)


def test_the_decoded_outcome_is_the_recorded_one(thrown):
    for res in thrown:
        o, back = res.outcome, records.outcome_from_row(records.throw_row(res, CELL_COLUMNS, (records.EFFECTS,)))
        for name in ("result", "reason", "section", "value", "face", "icon", "cocked", "template", "damage",
                     "hero_damage", "insta_kill", "touching", "requirements", "effects"):
            assert getattr(back, name) == getattr(o, name), name


def test_every_column_a_reader_asks_for_is_written(thrown):
    from sim.experiments import report, statistics
    from sim.viewer import report_html

    written = set(records.throw_row(thrown[0], CELL_COLUMNS, records.OPTIONAL_COLUMNS))
    for reader in (records.OUTCOME_READ, records.REQUIRED_COLUMNS, report.COLUMNS, statistics.RATE_COLUMNS,
                   report_html.SAMPLE_COLUMNS):
        assert set(reader) <= written, set(reader) - written


def _run_folder(tmp_path, inputs: dict, effects: bool):
    tmp_path.mkdir(exist_ok=True)
    cell = {"index": 0, "name": "c0", "variant": "v", "inputs": inputs, "scenario_key": "k"}
    (tmp_path / "experiment.resolved.json").write_text(json.dumps({"cells": [cell]}))
    row = records.outcome_columns(scripted("hit", 3, position_mm=[0.0, 0.0, 1.0]), 1) | {"cell": 0}
    if effects:
        row[records.EFFECTS] = "every-hero-suffers:2"
    pd.DataFrame([row]).to_parquet(tmp_path / "records.parquet")
    return tmp_path


def test_the_resampler_refuses_template_records_without_their_effects(tmp_path):
    inputs = {"dice": ["hero-d8"], "shots": ["standard"], "templates": ["explosion"]}
    with pytest.raises(SpecError, match="effects"):
        tables_from_results(_run_folder(tmp_path / "a", inputs, effects=False))
    tables, _ = tables_from_results(_run_folder(tmp_path / "b", inputs, effects=True))
    assert tables[0].outcomes[0].effects == ["every-hero-suffers:2"]


def test_plain_records_need_no_effects_column(tmp_path):
    tables, _ = tables_from_results(_run_folder(tmp_path, {"dice": ["hero-d8"], "shots": ["standard"]}, effects=False))
    assert tables[0].outcomes[0].effects == []
