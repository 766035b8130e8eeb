"""strong's base: `default`'s knobs optimised on paired games, then measured on held-out games.

Usage: python studies/strong_base.py [--train FIRST:END] [--held-out FIRST:END] [--cells ...]
       [--life L] [--start KNOB=VALUE ...] [--knobs NAME ...] [--rounds R] [--min-gain POINTS]
       [--bank DIR] [--bank-throws N]

A coordinate search: from `--start`, each knob of `default` (sim/games/policy.py, `Table`) in turn is
set to each of its values, and the change is kept when it raises the summed win rate over the cells
by more than `--min-gain` points on the training games (game k of every candidate has the same
shuffles and throw streams: the comparison is paired, and its noise is the discordant games only).
Then the knobs found are played on the held-out games against `default` (Newcombe's paired interval
per cell): the training games chose them, the held-out games measure them. A cell is PARTY:DIFFICULTY
(e.g. 4-casual:hard) at `house_rules.monster_life_bonus` = `--life` (-8: where casual parties win
some games, so knobs can differ).

The knobs found are strong's base (`BASE_KNOBS` in sim/games/strong.py, set by hand from this study's
output).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from sim.experiments.statistics import paired_rate_difference
from sim.games.engine import run_games
from sim.games.policy import BOUNDS, CHOICES, TABLES
from sim.games.spec import load_game
from sim.games.throw_bank import ThrowBank, die_alias, play

CELLS = ("3-casual:normal", "4-casual:normal", "3-casual:hard", "4-casual:hard")
KNOBS = ("room", "shop", "boss_dice", "heal_below", "dice_out", "back_down", "power", "weapons")


def span(text: str) -> range:
    lo, _, hi = text.partition(":")
    return range(int(lo), int(hi))


def name_of(knobs: dict[str, str]) -> str:
    return "default" + (":" + ",".join(f"{k}={v}" for k, v in sorted(knobs.items())) if knobs else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=span, default=span("10000:11500"))
    ap.add_argument("--held-out", type=span, default=span("0:2000"))
    ap.add_argument("--cells", nargs="+", default=list(CELLS))
    ap.add_argument("--life", type=int, default=-8)
    ap.add_argument("--start", nargs="*", default=[], help="KNOB=VALUE the search starts from")
    ap.add_argument("--knobs", nargs="+", default=list(KNOBS))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--min-gain", type=float, default=0.3, help="points of summed win rate a change must add")
    ap.add_argument("--bank")
    ap.add_argument("--bank-throws", type=int, default=500)
    a = ap.parse_args()
    bank = ThrowBank(a.bank, a.bank_throws, workers=1)
    specs = []
    for cell in a.cells:
        party, _, difficulty = cell.partition(":")
        size, _, skill = party.partition("-")
        spec = load_game("base", {"party.size": int(size), "throws.skill": skill, "difficulty": difficulty,
                                  "house_rules.monster_life_bonus": a.life})
        spec.load_decks()
        specs.append(spec)
    cache: dict[tuple, list[np.ndarray]] = {}

    def wins(knobs: dict[str, str], games: range) -> list[np.ndarray]:
        key = (tuple(sorted(knobs.items())), games.start, games.stop)
        if key not in cache:
            out = []
            for spec in specs:
                alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
                res, _ = play(lambda s, g=spec: run_games(g, s, games, name_of(knobs)), bank, spec.seed, alias)
                out.append(np.array([r.won for r in res]))
            cache[key] = out
        return cache[key]

    def gain(knobs: dict[str, str]) -> list[float]:
        base = wins({}, a.train)
        return [100 * (w.mean() - b.mean()) for w, b in zip(wins(knobs, a.train), base)]

    default = TABLES["default"]._asdict()
    space: dict[str, list[str]] = {k: list(CHOICES[k]) if k in CHOICES else
                                   [str(v) for v in range(BOUNDS[k][0], BOUNDS[k][1] + 1)] for k in a.knobs}
    cur: dict[str, str] = dict(x.split("=", 1) for x in a.start)
    best = sum(gain(cur))
    print(f"training games {a.train.start}-{a.train.stop - 1}, cells {' '.join(a.cells)}, monster life "
          f"{a.life:+d}: points over default per cell, and their sum", flush=True)
    print(f"start {name_of(cur)}: " + " ".join(f"{x:+.1f}" for x in gain(cur)) + f"  sum {best:+.1f}", flush=True)
    for _ in range(a.rounds):
        changed = False
        for k, values in space.items():
            for v in values:
                cand: dict[str, Any] = {**cur, k: v}
                if str(default[k]) == v:
                    cand.pop(k)
                if cand == cur:
                    continue
                g = gain(cand)
                print(f"  {name_of(cand)}: " + " ".join(f"{x:+.1f}" for x in g) + f"  sum {sum(g):+.1f}", flush=True)
                if sum(g) > best + a.min_gain:
                    best, cur, changed = sum(g), cand, True
                    print(f"  -> kept: {name_of(cur)}", flush=True)
        if not changed:
            break
    print(f"found {name_of(cur)} (training sum {best:+.1f} points)", flush=True)
    held = a.held_out
    print(f"held-out games {held.start}-{held.stop - 1}, {name_of(cur)} minus default (points, Newcombe):")
    for cell, w, b in zip(a.cells, wins(cur, held), wins({}, held)):
        e = paired_rate_difference(w, b)
        print(f"  {cell}: {100 * b.mean():.1f} % -> {100 * w.mean():.1f} %: "
              f"{100 * e.value:+.1f} [{100 * e.lo:+.1f}, {100 * e.hi:+.1f}]", flush=True)


if __name__ == "__main__":
    sys.exit(main())
