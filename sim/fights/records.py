"""What a fight experiment keeps of one fight: its record's columns and the row a run stores.

Why apart from the engine: the kind writes rows and the reports and tuners read them back by these
names, so the columns are declared once, beside the one function that makes a row.
"""

from __future__ import annotations

from typing import Any

from sim.fights.engine import FightResult

# one fight's record (FightResult.record) as a run keeps it, after the seed and the index
FIGHT_COLUMNS = (
    "outcome",
    "won",
    "monster_life_end",
    "rounds",
    "turns",
    "throws",
    "rethrows",
    "hero_damage",
    "white_dice_used",
    "retrievals",
    "fainted",
    "scars",
    "eliminated",
    "epic_shot",
    "gold",
    "lost_reason",
)
FIGHT_EXTRA_COLUMNS = ("monster_life_start", "life_by_throw")


def fight_row(result: FightResult, columns: dict[str, Any], seed: int, index: int) -> dict[str, Any]:
    """One fight's row as a run stores it: the cell's constant `columns`, seed and index, the fight's
    record (`FIGHT_COLUMNS`), the monster's life at the start and after each physical throw."""
    rec = result.record()
    row = dict(columns)
    row["seed"] = seed
    row["index"] = index
    row.update({k: rec[k] for k in FIGHT_COLUMNS})
    row["monster_life_start"] = result.monster_life_start
    row["life_by_throw"] = list(result.life_by_throw)
    return row
