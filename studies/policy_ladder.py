"""The ladder of game policies measured on paired games: win rates per rung and party, the paired gain
of every rung over `default`, what Hard costs a party of three against four, each change of `default`
measured alone, and how often the Monster deck runs out.

Usage: python studies/policy_ladder.py [--games N] [--strong-games M] [--strong-games-lost K]
       [--parties 3-casual 4-casual 3-expert] [--difficulties normal hard inferno] [--life 0 -8]
       [--rungs first-time classic default strong] [--extra NAME ...] [--ablation]
       [--bank DIR] [--bank-throws N] [--seed S] [--out FILE]

A cell is a party (size and skill) x difficulty x `house_rules.monster_life_bonus` (0: the printed
game; -8: every monster 8 life weaker, where casual parties can win and the rungs can differ). In a
cell, games 0..N-1 are played by every rung below `strong`, and games 0..M-1 by `strong` (its games
cost hundreds of rollouts each; K games where `default` wins under 1 % of its games, as no rung can
show a gain there); game k of every rung has the same shuffles and throw streams, so each rung's gain
over `default` is a paired difference (Newcombe's interval) on the games both played. `--extra`
plays more policies beside the rungs (e.g. strong's base alone, `default:heal_below=5,room=danger`),
`--ablation` each change of `default` undone alone.

What Hard costs: per rung and party size, the drop from Normal to Hard (paired on game k), and the
difference of those drops between three and four heroes, game by game (game k of both parties has
the same seed: a paired mean with a normal interval).

Throws come from the throw bank (`--bank`, default $DFSIM_BANK; recorded first where a policy meets a
new scenario, with progress). One JSON object per cell on stdout as it is done, all of them with
`--out` (tools/doc_numbers.py makes the docs' tables from that file), written after every cell: the
same command run again resumes after the cells its file holds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Any

import numpy as np

from sim.experiments.statistics import paired_rate_difference, wilson
from sim.games.engine import run_games
from sim.games.progress import games_bar
from sim.games.spec import load_game
from sim.games.throw_bank import ThrowBank, die_alias, play

RUNGS = ("first-time", "classic", "default", "strong")
ABLATION = {  # each change of default undone alone (classic's knob), and one tried and left out
    "rooms by all icons": "default:room=balanced",
    "heal first": "default:shop=heal-first",
    "retrieve while affordable": "default:dice_out=afford",
}
LOST_BELOW = 0.01  # default wins under this share: strong plays --strong-games-lost games there
Z95 = 1.959963984540054


def party_of(text: str) -> tuple[int, str]:
    """"4-casual" -> (4, "casual")."""
    size, _, skill = text.partition("-")
    if not size.isdigit() or skill not in ("novice", "casual", "expert"):
        raise SystemExit(f"policy_ladder: --parties {text}: expected SIZE-SKILL, e.g. 4-casual")
    return int(size), skill


def cell_label(size: int, skill: str, difficulty: str, life: int) -> str:
    return f"{size} {skill}, {difficulty}" + (f", monster life {life:+d}" if life else "")


def difference_of_drops(normal3: list, hard3: list, normal4: list, hard4: list) -> dict[str, float]:
    """(Normal - Hard) for three heroes minus the same for four, game by game on the games all four
    cells played (game k has the same seed in each): the mean and its normal 95 % interval."""
    n = min(map(len, (normal3, hard3, normal4, hard4)))
    e = (np.asarray(normal3[:n], float) - np.asarray(hard3[:n], float)) - (
        np.asarray(normal4[:n], float) - np.asarray(hard4[:n], float)
    )
    mean = float(e.mean())
    se = float(e.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    return {"value": mean, "lo": mean - Z95 * se, "hi": mean + Z95 * se, "n": n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--strong-games", type=int, default=1000)
    ap.add_argument("--strong-games-lost", type=int, default=200,
                    help="strong's games in a cell where default wins under 1 %% of its games")
    ap.add_argument("--strong", default="strong", help="the strong policy's name (e.g. strong:max_rollouts=32)")
    ap.add_argument("--parties", nargs="+", default=["3-casual", "4-casual"])
    ap.add_argument("--difficulties", nargs="+", default=["normal", "hard"])
    ap.add_argument("--life", type=int, nargs="+", default=[0, -8], help="house_rules.monster_life_bonus values")
    ap.add_argument("--rungs", nargs="+", default=list(RUNGS), help="the rungs to play (default and strong by name)")
    ap.add_argument("--extra", nargs="*", default=[], help="more policies to play beside the rungs")
    ap.add_argument("--ablation", action="store_true")
    ap.add_argument("--seed", type=int, default=None, help="root seed (default: the game file's)")
    ap.add_argument("--bank")
    ap.add_argument("--bank-throws", type=int, default=500)
    ap.add_argument("--workers", type=int, default=1, help="worker processes recording the bank")
    ap.add_argument("--out")
    a = ap.parse_args()
    parties = [party_of(p) for p in a.parties]
    bank = ThrowBank(a.bank, a.bank_throws, workers=a.workers)
    strong = a.strong if "strong" in a.rungs else None
    cheap = [r for r in a.rungs if r != "strong"]
    if "default" not in cheap:
        cheap.insert(0, "default")  # every gain is measured against it
    cheap += list(a.extra) + (list(ABLATION.values()) if a.ablation else [])
    command = " ".join(sys.argv[1:])
    done = {}  # the cells a run of the same command already wrote to --out (it resumes after them)
    if a.out and os.path.isfile(a.out):
        with open(a.out) as f:
            kept = json.load(f)
        if kept.get("command") == command:
            done = {c["setting"]: c for c in kept["cells"]}
    rows: list[dict[str, Any]] = []
    wins: dict[tuple, dict[str, list[bool]]] = {}

    def save(complete: bool, hard_cost: list) -> None:
        if a.out:
            with open(a.out + ".part", "w") as f:
                json.dump({"command": command, "bank_throws": a.bank_throws, "complete": complete,
                           "cells": rows, "hard_cost": hard_cost}, f, indent=1)
            os.replace(a.out + ".part", a.out)

    for life in a.life:
        for difficulty in a.difficulties:
            for size, skill in parties:
                sets: dict[str, Any] = {"party.size": size, "throws.skill": skill, "difficulty": difficulty,
                                        "house_rules.monster_life_bonus": life}
                if a.seed is not None:
                    sets["seed"] = a.seed
                spec = load_game("base", sets)
                spec.load_decks()
                alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
                label = cell_label(size, skill, difficulty, life)
                if label in done:
                    rows.append(done[label])
                    wins[(size, skill, difficulty, life)] = {
                        p: [x == "1" for x in w] for p, w in done[label]["won_games"].items()}
                    print(f"{label}: kept from {a.out}", file=sys.stderr, flush=True)
                    continue
                res: dict[str, list] = {}
                cost: dict[str, float] = {}
                for p in [*cheap, *([strong] if strong else [])]:
                    if p == strong:
                        d = [r.won for r in res["default"]]
                        n = a.strong_games if wilson(sum(d), len(d)).rate >= LOST_BELOW else a.strong_games_lost
                    else:
                        n = a.games
                    if n <= 0:
                        continue
                    print(f"{label}: {p}, {n} games", file=sys.stderr, flush=True)
                    c0 = time.process_time()
                    with games_bar(p, n) as tick:
                        res[p], _ = play(lambda s, p=p, n=n, g=spec, tick=tick: run_games(g, s, n, p, progress=tick),
                                         bank, spec.seed, alias)
                    cost[p] = (time.process_time() - c0) / n
                won = {p: [bool(r.won) for r in rs] for p, rs in res.items()}
                wins[(size, skill, difficulty, life)] = won
                d = won["default"]
                row: dict[str, Any] = {"setting": label, "size": size, "skill": skill, "difficulty": difficulty,
                                       "won_games": {p: "".join("1" if x else "0" for x in w) for p, w in won.items()},
                                       "life": life, "games": {p: len(w) for p, w in won.items()},
                                       "cpu_s_per_game": {p: round(c, 5) for p, c in cost.items()},
                                       "won": {}, "deck_ran_out": {}, "minus_default": {}, "strong_minus": {}}
                for p, w in won.items():
                    row["won"][p] = wilson(sum(w), len(w)).as_dict()
                    row["deck_ran_out"][p] = sum(r.reshuffles > 0 for r in res[p]) / len(res[p])
                    if p != "default":
                        m = len(w)
                        row["minus_default"][p] = {**paired_rate_difference(w, d[:m]).as_dict(), "n": m,
                                                   "default": wilson(sum(d[:m]), m).as_dict()}
                if strong in won:  # what the rollouts add over a policy beside it (strong's base alone)
                    m = len(won[strong])
                    for p in a.extra:
                        row["strong_minus"][p] = paired_rate_difference(won[strong], won[p][:m]).as_dict()
                rows.append(row)
                save(False, [])
                print(json.dumps({k: v for k, v in row.items() if k != "won_games"}), flush=True)
    hard_cost = []
    for life in a.life:
        for skill in sorted({s for _, s in parties}):
            cells = [(n, skill, dif, life) for n in (3, 4) for dif in ("normal", "hard")]
            if not all(c in wins for c in cells):
                continue
            for p in wins[cells[0]]:
                if all(p in wins[c] for c in cells):
                    ws = [wins[c][p] for c in cells]
                    drop = {n: paired_rate_difference(ws[2 * i], ws[2 * i + 1][: len(ws[2 * i])]).as_dict()
                            for i, n in enumerate((3, 4))}
                    hard_cost.append({"skill": skill, "life": life, "policy": p, "drop_3": drop[3],
                                      "drop_4": drop[4], "three_minus_four": difference_of_drops(*ws)})
    for h in hard_cost:
        print(json.dumps({"hard_cost": h}), flush=True)
    save(True, hard_cost)


if __name__ == "__main__":
    main()
