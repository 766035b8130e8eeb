"""What counts as a success, by metric name: of one throw (`SHOT_METRICS`) and of one fight
(`FIGHT_METRICS`). Kept apart from the responses that use them so the command line can name them
without importing the engine and pandas."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# what counts as a success of one throw, by metric name
SHOT_METRICS: dict[str, Callable[[Any], bool]] = {
    "hit": lambda outcome: (
        outcome.result == "hit"
    ),  # void throws (not settled) count as not hit, as in summary.json
}

# what counts as a success of one fight, by metric name
FIGHT_METRICS: dict[str, Callable[[Any], bool]] = {
    "won": lambda result: result.won,  # lost, backed down and unfinished fights are not won
}
