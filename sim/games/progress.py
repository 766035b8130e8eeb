"""A bar of games for the policies that search: their games take seconds each, so a command playing
many shows how many are done and the time left (a rule-based policy's thousand games take a second:
no bar)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from sim.experiments.progress import WorkBar
from sim.games.ladder import policy_label, resolve_game_policy


@contextlib.contextmanager
def games_bar(policy: Any, games: int, source: str = "<game>") -> Iterator[Callable[[], None] | None]:
    """The update of a bar of `games` games when `policy` searches (has `for_game`), else None."""
    if games < 2 or not hasattr(resolve_game_policy(policy, source), "for_game"):
        yield None
        return
    bar = WorkBar(games, "game", f"playing {games} games ({policy_label(policy)})", after_s=1.0)
    try:
        yield bar.update
    finally:
        bar.close()
