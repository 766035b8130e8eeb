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
    spec: GameExperimentSpec,
    specs: dict[str, Any],
    results: dict[str, list],
    n: int,
    replicated: dict[str, list[float]] | None = None,
) -> dict[str, Any]:
    """summary.json: every variant's game summary, paired differences against the baseline, contrasts.
    `replicated`: each variant's win rate on the same bootstrap banks (sim.games.bank_uncertainty);
    given, every win rate, difference and contrast also carries `won_with_bank`, its interval with the
    bank's part (a difference's: the spread of the replicates' differences)."""
    from sim.games.bank_uncertainty import combine

    conf = spec.confidence
    reps = replicated if replicated and all(len(v) > 1 for v in replicated.values()) else None

    def banked(d: dict, values: list[float], bounds: tuple[float, float]) -> dict:
        value = d["rate"] if "rate" in d else d["value"]
        return combine(value, (d["hi"] - d["lo"]) / 2, values, conf, bounds, (d["lo"], d["hi"]))

    def rep(name: str) -> np.ndarray:
        assert reps is not None
        return np.asarray(reps[name], dtype=float)

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
        if reps is not None:
            variants[-1]["won_with_bank"] = banked(s["won"], list(rep(name)), (0.0, 1.0))
    diffs = []
    for k in results:
        if k == base:
            continue
        d: dict[str, Any] = {
            "name": k,
            "vs": base,
            "won": paired_rate_difference(won[k], won[base], conf).as_dict(),
        }
        if reps is not None:
            d["won_with_bank"] = banked(d["won"], list(rep(k) - rep(base)), (-1.0, 1.0))
        diffs.append(d)
    contrasts = []
    for c in spec.contrasts:
        x = (won[c.a].astype(float) - won[c.b]) - (won[c.c].astype(float) - won[c.d])
        ct: dict[str, Any] = {
            "name": c.name,
            "of": f"({c.a} - {c.b}) - ({c.c} - {c.d})",
            "won": mean_interval(x, conf, "t").as_dict(),
        }
        if reps is not None:
            xb = (rep(c.a) - rep(c.b)) - (rep(c.c) - rep(c.d))
            ct["won_with_bank"] = banked(ct["won"], list(xb), (-2.0, 2.0))
        contrasts.append(ct)
    return {
        "experiment": {
            "name": spec.name,
            "game": spec.game,
            "seed": spec.seed,
            "games": n,
            "bank_throws": spec.bank_throws,
            "baseline": base,
            "bank_replicates": len(next(iter(reps.values()))) if reps else 0,
        },
        "variants": variants,
        "differences": diffs,
        "contrasts": contrasts,
    }


def _pct(r: dict) -> str:
    return f"{100 * r['rate']:.1f} % [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"


def _pts(e: dict) -> str:
    return f"{100 * e['value']:+.1f} [{100 * e['lo']:+.1f}, {100 * e['hi']:+.1f}]"


def _with_bank(d: dict) -> str:
    """' | [lo, hi] (bank +-x)' in points: the interval with the bank's part, and that part."""
    w = d.get("won_with_bank")
    if not w:
        return ""
    bank = w["bank_half_width"]
    part = f"bank +-{100 * bank:.1f}" if bank == bank else "bank part unknown"
    return f" | [{100 * w['lo']:.1f}, {100 * w['hi']:.1f}] ({part}, {100 * w['bank_share']:.0f} % of it)"


def report(s: dict[str, Any]) -> str:
    """report.md: the win rate per variant, the paired differences and the contrasts; with the bank's
    part of each interval when the experiment replayed its games on bootstrap banks."""
    e = s["experiment"]
    banked = bool(e.get("bank_replicates"))
    col = " | with the bank's part (95 %)" if banked else ""
    sep = " | ---" if banked else ""
    sizes = f"{e['bank_throws']}" if e.get("bank_throws") else "as their precision needs"
    lines = [
        f"# {e['name']}: {e['game']}, {e['games']} games per variant (seed {e['seed']}, banked throws "
        f"per scenario: {sizes})",
        "",
        f"| variant | difficulty | heroes | skill | policy | won (95 %){col} | lost at the Final Boss "
        "| points | titles (top) |",
        f"| --- | --- | ---: | --- | --- | ---{sep} | --- | ---: | --- |",
    ]
    for v in s["variants"]:
        boss = v["lost_where"].get("final boss")
        top = max(v["titles"].items(), key=lambda kv: kv[1])[0] if v["titles"] else ""
        lines.append(
            f"| {v['name']} | {v['difficulty']} | {v['heroes']} | {v['skill']} | {v['policy']} | "
            f"{_pct(v['won'])}{_with_bank(v)} "
            f"| {_pct(boss) if boss else '0'} | {v['points']['value']:.1f} | {top} |"
        )
    if banked:
        lines += [
            "",
            "won (95 %): the games' own interval, as if the bank's throws were the truth. With the bank's "
            f"part: the same answer replayed on {e['bank_replicates']} bootstrap banks (each entry's throws "
            "drawn again; the same banks for every variant), their spread added in quadrature; the bank's "
            "half-width (points) and its share of the variance in brackets.",
        ]
    lines += [
        "",
        f"Paired differences against {e['baseline']} (percentage points, 95 %):",
        "",
        f"| variant | won{col} |",
        f"| --- | ---{sep} |",
    ]
    lines += [f"| {d['name']} | {_pts(d['won'])}{_with_bank(d)} |" for d in s["differences"]]
    if s["contrasts"]:
        lines += [
            "",
            "Differences of differences (percentage points, 95 %):",
            "",
            f"| contrast | of | won{col} |",
            f"| --- | --- | ---{sep} |",
        ]
        lines += [f"| {c['name']} | {c['of']} | {_pts(c['won'])}{_with_bank(c)} |" for c in s["contrasts"]]
    return "\n".join(lines) + "\n"
