"""A fight experiment's row: the record's columns, in order, after the cell's own."""

import pandas as pd

from sim.fights import records
from sim.fights.engine import run_fight
from sim.fights.resample import ResampleSource
from sim.fights.spec import fight_from_dict


def test_a_fight_row_holds_the_fight_columns():
    spec = fight_from_dict({"name": "t", "monster": {"name": "m", "life": 4, "miss_damage": 1, "level": 1},
                            "party": {"heroes": [{"name": "A"}], "white_dice": 1}}, "test.toml")
    table = pd.DataFrame([{"result": "hit", "reason": "hit", "damage": 2.0, "value": 2, "section": "2"}])
    row = records.fight_row(run_fight(spec, ResampleSource(table, seed=1), fight=0, log=False), {"cell": 0}, 1, 0)
    assert list(row) == ["cell", "seed", "index", *records.FIGHT_COLUMNS, *records.FIGHT_EXTRA_COLUMNS]
    assert row["outcome"] == "won" and row["life_by_throw"][-1] <= 0
