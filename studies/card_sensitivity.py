"""Which estimated card numbers move a game's answer most: Morris screening of the stand-in cards'
estimates (sim/games/estimates.py) over whole games on the throw bank.

Usage: python studies/card_sensitivity.py [--games N] [--trajectories R] [--policy NAME]
       [--set K=V ...] [--bank DIR] [--bank-throws N] [--seed S] [--out DIR]

Every estimate (stand-in monsters' life, miss damage and reward; the Final Boss's life; Equipment
prices; Shop icons; Monster Advantage) is an integer offset over its range; SALib draws R Morris
trajectories ((k + 1) x R design points), each point plays games 0..N-1 of the game (the same
shuffles and throw streams at every point: elementary effects are paired differences) and the
analysis gives mu* (how much the estimate moves the win rate, with its bootstrap 95 % half-width) and
sigma (non-linearity, interactions), for the win rate and for the mean number of Shops reached (which
still moves where no party wins). Writes card-sensitivity.json, .md and .png into --out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from SALib.analyze import morris as morris_analyze
from SALib.sample import morris as morris_sample

from sim.cli.game import overrides
from sim.games.engine import run_games
from sim.games.estimates import ESTIMATES, shifted
from sim.games.spec import load_game
from sim.games.state import game_plan
from sim.games.throw_bank import ThrowBank, die_alias, play


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--trajectories", type=int, default=8)
    ap.add_argument("--policy", default="default")
    ap.add_argument("--set", action="append", dest="overrides",
                    default=None, help="game settings (default: 4 casual heroes, Normal, monster life -8)")
    ap.add_argument("--bank")
    ap.add_argument("--bank-throws", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default="card-sensitivity")
    a = ap.parse_args()
    sets = a.overrides or ["party.size=4", "house_rules.monster_life_bonus=-8"]
    base = load_game("base", overrides(sets))
    decks = base.load_decks()
    names = list(ESTIMATES)
    problem = {"num_vars": len(names), "names": names,
               "bounds": [[ESTIMATES[n].low, ESTIMATES[n].high] for n in names]}
    X = morris_sample.sample(problem, a.trajectories, num_levels=4, seed=a.seed)
    bank = ThrowBank(a.bank, a.bank_throws, workers=a.workers)
    alias = die_alias(base.throws.colored_die, base.throws.white_die)
    wins, shops = [], []
    t0 = time.perf_counter()
    for i, x in enumerate(X):
        spec = base.model_copy()
        game_plan(spec, shifted(decks, dict(zip(names, x))))
        res, _ = play(lambda s, g=spec: run_games(g, s, a.games, a.policy), bank, spec.seed, alias)
        wins.append(np.mean([r.won for r in res]))
        shops.append(np.mean([r.shops for r in res]))
        el = time.perf_counter() - t0
        print(f"[{i + 1}/{len(X)}] won {wins[-1]:.3f}, shops {shops[-1]:.2f} "
              f"({el:.0f} s, about {el / (i + 1) * (len(X) - i - 1):.0f} s left)", file=sys.stderr, flush=True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    table = {}
    for label, y in (("win rate", np.array(wins)), ("shops reached", np.array(shops))):
        r = morris_analyze.analyze(problem, X, y, num_levels=4, seed=a.seed, num_resamples=1000)
        table[label] = [{"estimate": n, "mu_star": float(r["mu_star"][k]), "mu_star_conf": float(r["mu_star_conf"][k]),
                         "sigma": float(r["sigma"][k]), "range": [ESTIMATES[n].low, ESTIMATES[n].high]}
                        for k, n in enumerate(names)]
        table[label].sort(key=lambda d: -d["mu_star"])
    summary = {"settings": sets, "policy": a.policy, "games_per_point": a.games, "points": len(X),
               "trajectories": a.trajectories, "seed": a.seed, "mean_win_rate": float(np.mean(wins)),
               "elapsed_s": round(time.perf_counter() - t0, 1), "morris": table}
    (out / "card-sensitivity.json").write_text(json.dumps(summary, indent=1))
    lines = [f"Morris screening of the stand-in cards' estimates: {len(X)} points x {a.games} games "
             f"({a.policy}; {', '.join(sets)}); mu* with its 95 % bootstrap half-width, per unit of the "
             "whole range studied", ""]
    for label, rows in table.items():
        lines += [f"| estimate (offset range) | mu* {label} | sigma |", "| --- | --- | --- |"]
        lines += [f"| {d['estimate']} ({d['range'][0]:+d} to {d['range'][1]:+d}) | {d['mu_star']:.3f} "
                  f"± {d['mu_star_conf']:.3f} | {d['sigma']:.3f} |" for d in rows]
        lines.append("")
    (out / "card-sensitivity.md").write_text("\n".join(lines))
    print("\n".join(lines))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, (label, rows) in zip(axes, table.items()):
        rows = rows[::-1]
        ax.barh([d["estimate"] for d in rows], [d["mu_star"] for d in rows],
                xerr=[d["mu_star_conf"] for d in rows], color="#4a7ab0")
        ax.set_xlabel(f"mu* ({label})")
    fig.suptitle(f"Which card estimates move the answer ({a.policy}, {', '.join(sets)})", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "card-sensitivity.png", dpi=110)


if __name__ == "__main__":
    main()
