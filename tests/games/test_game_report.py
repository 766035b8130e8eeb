"""Summaries of many games (sim/games/report.py)."""

from __future__ import annotations

from types import SimpleNamespace

from sim.games.report import summarize_games

KEYS = ("points", "combats", "rounds", "throws", "gold", "white_dice", "scars", "eliminated", "backed_down")


def _game(eliminated: int, points: int) -> SimpleNamespace:
    counts = {k: 1 for k in KEYS} | {"eliminated": eliminated, "points": points}
    return SimpleNamespace(won=False, lost_at="combat", lost_level=2, title="Lame Ducks", policy="default",
                           shops=0, **counts)


def test_a_rare_count_keeps_its_interval_above_zero_and_points_may_go_below():
    """One game in 50 with an eliminated hero: the t interval would reach below 0, which no count can."""
    s = summarize_games([_game(int(i == 0), -5 if i == 0 else 0) for i in range(50)])
    assert s["eliminated"]["value"] == 0.02 and s["eliminated"]["lo"] == 0.0 < s["eliminated"]["hi"]
    assert s["points"]["lo"] < 0  # points can be negative: their interval is left as it is
