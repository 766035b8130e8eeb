"""Summaries of many games: the win rate (Wilson interval), where games were lost, scores and titles,
and what a game costs (combats, throws, gold and white dice at the end), as JSON-ready dicts and text."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from sim.experiments.statistics import mean_interval, paired_rate_difference, wilson
from sim.games.experiment import GameExperimentSpec
from sim.games.result import TITLES, GameResult


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
        # the share of games whose Monster deck ran out (the rulebooks discard the rest of the deck at
        # the third Shop, so with the printed decks it lasts; a stand-in deck that runs out is a finding)
        "deck_ran_out": sum(getattr(r, "reshuffles", 0) > 0 for r in results) / max(1, len(results)),
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
    if "deck_ran_out" in s:  # the rulebooks have no rule for it: the option options.empty_monster_deck
        ran_out = 100 * s["deck_ran_out"]
        lines.append(f"  deck ran out {ran_out:5.1f}% of the games (the Monster deck was made again)")
    if head.get("bank"):
        lines.append(
            f"  throws from the bank {head['bank']} ({len(head.get('tables', []))} scenarios x "
            f"{head['bank_throws']} recorded throws)"
        )
    return "\n".join(lines)


def summarize(
    spec: GameExperimentSpec, specs: dict[str, Any], results: dict[str, list], n: int
) -> dict[str, Any]:
    """summary.json: every variant's game summary, paired differences against the baseline, contrasts."""
    from sim.games.report import summarize_games

    conf = spec.confidence
    base = spec.baseline or spec.variants[0].name
    won = {k: np.array([r.won for r in v], dtype=bool) for k, v in results.items()}
    variants = []
    for name, rs in results.items():
        g = specs[name]
        s = summarize_games(rs, conf)
        variants.append(
            {
                **s,
                "name": name,
                "difficulty": g.difficulty,
                "heroes": g.party.players,
                "skill": g.throws.skill,
                "policy": spec.policy or g.policy,
                "house_rules": g.house_rules.changed(),
                "options": g.options.model_dump(exclude_defaults=True),
            }
        )
    diffs = [
        {"name": k, "vs": base, "won": paired_rate_difference(won[k], won[base], conf).as_dict()}
        for k in results
        if k != base
    ]
    contrasts = []
    for c in spec.contrasts:
        x = (won[c.a].astype(float) - won[c.b]) - (won[c.c].astype(float) - won[c.d])
        contrasts.append(
            {
                "name": c.name,
                "of": f"({c.a} - {c.b}) - ({c.c} - {c.d})",
                "won": mean_interval(x, conf, "t").as_dict(),
            }
        )
    return {
        "experiment": {
            "name": spec.name,
            "game": spec.game,
            "seed": spec.seed,
            "games": n,
            "bank_throws": spec.bank_throws,
            "baseline": base,
        },
        "variants": variants,
        "differences": diffs,
        "contrasts": contrasts,
    }


def _pct(r: dict) -> str:
    return f"{100 * r['rate']:.1f} % [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"


def _pts(e: dict) -> str:
    return f"{100 * e['value']:+.1f} [{100 * e['lo']:+.1f}, {100 * e['hi']:+.1f}]"


def report(s: dict[str, Any]) -> str:
    """report.md: the win rate per variant, the paired differences and the contrasts."""
    e = s["experiment"]
    lines = [
        f"# {e['name']}: {e['game']}, {e['games']} games per variant (seed {e['seed']}, "
        f"{e['bank_throws']} banked throws per scenario)",
        "",
        "| variant | difficulty | heroes | skill | policy | won (95 %) | lost at the Final Boss | points | "
        "titles (top) |",
        "| --- | --- | ---: | --- | --- | --- | --- | ---: | --- |",
    ]
    for v in s["variants"]:
        boss = v["lost_where"].get("final boss")
        top = max(v["titles"].items(), key=lambda kv: kv[1])[0] if v["titles"] else ""
        lines.append(
            f"| {v['name']} | {v['difficulty']} | {v['heroes']} | {v['skill']} | {v['policy']} | "
            f"{_pct(v['won'])} "
            f"| {_pct(boss) if boss else '0'} | {v['points']['value']:.1f} | {top} |"
        )
    lines += [
        "",
        f"Paired differences against {e['baseline']} (percentage points, 95 %):",
        "",
        "| variant | won |",
        "| --- | --- |",
    ]
    lines += [f"| {d['name']} | {_pts(d['won'])} |" for d in s["differences"]]
    if s["contrasts"]:
        lines += [
            "",
            "Differences of differences (percentage points, 95 %):",
            "",
            "| contrast | of | won |",
            "| --- | --- | --- |",
        ]
        lines += [f"| {c['name']} | {c['of']} | {_pts(c['won'])} |" for c in s["contrasts"]]
    return "\n".join(lines) + "\n"
