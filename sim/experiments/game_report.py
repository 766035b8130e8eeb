"""Summaries of many games: the win rate (Wilson interval), where games were lost, scores and titles,
and what a game costs (combats, throws, gold and white dice at the end), as JSON-ready dicts and text."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from sim.experiments.statistics import mean_interval, wilson
from sim.rules.game import TITLES, GameResult


def summarize_games(results: list[GameResult], confidence: float = 0.95) -> dict[str, Any]:
    """Win rate, losses by where (a combat of level N, the Final Boss), points and titles, means."""
    n = len(results)
    won = sum(r.won for r in results)
    lost_where = Counter(
        ("final boss" if r.lost_at == "final-boss" else f"level {r.lost_level} combat")
        for r in results
        if not r.won
    )
    titles = Counter(r.title for r in results)

    def mean(key: str) -> dict:
        d = mean_interval(
            np.array([getattr(r, key) for r in results], dtype=float), confidence, "t"
        ).as_dict()
        if key != "points" and d["lo"] < 0:  # a count: the t interval is cut at what a count can be
            d["lo"] = 0.0
        return d

    return {
        "n": n,
        "won": wilson(won, n, confidence).as_dict(),
        "lost_where": {k: wilson(v, n, confidence).as_dict() for k, v in sorted(lost_where.items())},
        "titles": {t: titles[t] for _, t in TITLES if titles[t]},
        "policy": sorted({r.policy for r in results}),
        **{
            k: mean(k)
            for k in (
                "points",
                "combats",
                "rounds",
                "throws",
                "gold",
                "white_dice",
                "scars",
                "eliminated",
                "backed_down",
            )
        },
        "shops_reached": {str(k): v for k, v in sorted(Counter(r.shops for r in results).items())},
    }


def format_summary(head: dict[str, Any], s: dict[str, Any]) -> str:
    """The many-games summary as text."""

    def pct(r: dict) -> str:
        return f"{100 * r['rate']:5.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"

    lines = [
        f"{head['game']}: {head['heroes']} {head['skill']} heroes, {head['difficulty']}, policy "
        f"{head['policy']}, "
        f"{s['n']} games from seed {head['seed']} ({head['engine']}; 95 % intervals)",
        f"  won          {pct(s['won'])}",
    ]
    for where, r in s["lost_where"].items():
        lines.append(f"  lost at {where:<16} {pct(r)}")
    for k, label in (
        ("points", "points"),
        ("combats", "combats"),
        ("throws", "throws"),
        ("gold", "gold left"),
        ("white_dice", "white dice"),
        ("scars", "scars"),
        ("eliminated", "eliminated"),
    ):
        e = s[k]
        lines.append(f"  {label:<12} {e['value']:.2f} [{e['lo']:.2f}, {e['hi']:.2f}]  (mean per game)")
    lines.append("  titles: " + ", ".join(f"{t} {c}" for t, c in s["titles"].items()))
    if head.get("bank"):
        lines.append(
            f"  throws from the bank {head['bank']} ({len(head.get('tables', []))} scenarios x "
            f"{head['bank_throws']} recorded throws)"
        )
    return "\n".join(lines)
