"""The ladder of game policies measured on paired games: win rates per rung, the paired gain of each
rung over the one below, each change of `default` measured alone, and how often the Monster deck runs out.

Usage: python studies/policy_ladder.py [--games N] [--strong-games M] [--sizes 3 4]
       [--difficulties normal hard] [--life 0 -8] [--ablation] [--bank DIR] [--bank-throws N] [--out FILE]

For each setting (party size x difficulty x house_rules.monster_life_bonus: the printed game, and one
where monsters have less life so the game is winnable and the rungs can differ), games 0..N-1 are
played by `first-time`, `classic` (the default policy before the ladder) and `default`, and games
0..M-1 by `strong` (its games cost hundreds of rollouts each); game k of every policy has the same
shuffles and throw streams, so differences are paired (Newcombe's interval). `--ablation` plays
`default` with each of its changes undone (`default:room=balanced`, ...) on the same games.
Throws come from the throw bank (recorded first where a policy meets a new scenario, with progress).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from sim.experiments.statistics import paired_rate_difference, wilson
from sim.games.engine import run_games
from sim.games.spec import load_game
from sim.games.throw_bank import ThrowBank, die_alias, play

RUNGS = ("first-time", "classic", "default")
ABLATION = {  # each change of default undone alone (classic's knob), and one tried and left out
    "rooms by all icons": "default:room=balanced",
    "heal first": "default:shop=heal-first",
    "retrieve while affordable": "default:dice_out=afford",
}


def pct(r) -> str:
    return f"{100 * r.rate:.1f} % [{100 * r.lo:.1f}, {100 * r.hi:.1f}]"


def diff(e) -> str:
    return f"{100 * e.value:+.1f} [{100 * e.lo:+.1f}, {100 * e.hi:+.1f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--strong-games", type=int, default=50)
    ap.add_argument("--strong", default="strong", help="the strong policy's name (options: strong:rollouts=N)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[3, 4])
    ap.add_argument("--difficulties", nargs="+", default=["normal", "hard"])
    ap.add_argument("--life", type=int, nargs="+", default=[0, -8], help="house_rules.monster_life_bonus values")
    ap.add_argument("--rungs", nargs="+", default=list(RUNGS), help="rungs below strong to play")
    ap.add_argument("--ablation", action="store_true")
    ap.add_argument("--bank")
    ap.add_argument("--bank-throws", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out")
    a = ap.parse_args()
    bank = ThrowBank(a.bank, a.bank_throws, workers=a.workers)
    rows = []
    for life in a.life:
        for diffc in a.difficulties:
            for size in a.sizes:
                spec = load_game("base", {"party.size": size, "difficulty": diffc,
                                          "house_rules.monster_life_bonus": life})
                spec.load_decks()
                alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
                label = f"{size} casual, {diffc}" + (f", monster life {life:+d}" if life else "")
                res: dict[str, list] = {}
                cost: dict[str, float] = {}
                pols = list(a.rungs) + (list(ABLATION.values()) if a.ablation else [])
                for p in pols + [a.strong]:
                    n = a.strong_games if p == a.strong else a.games
                    if n <= 0:
                        continue
                    print(f"{label}: {p}, {n} games", file=sys.stderr, flush=True)
                    c0 = time.process_time()
                    res[p], _ = play(lambda s, p=p, n=n, g=spec: run_games(g, s, n, p), bank, spec.seed, alias)
                    cost[p] = (time.process_time() - c0) / n
                won = {p: [r.won for r in rs] for p, rs in res.items()}
                row = {"setting": label, "size": size, "difficulty": diffc, "life": life,
                       "cpu_s_per_game": {p: round(c, 4) for p, c in cost.items()}}
                for p, w in won.items():
                    row[p] = wilson(sum(w), len(w)).as_dict()
                    row[p + " deck ran out"] = sum(r.reshuffles > 0 for r in res[p]) / len(res[p])
                d = won["default"]
                for low in ("classic", "first-time"):
                    if low in won:
                        row[f"default - {low}"] = paired_rate_difference(d, won[low]).as_dict()
                if a.strong in won:
                    m = len(won[a.strong])
                    row["strong - default"] = paired_rate_difference(won[a.strong], d[:m]).as_dict()
                    row["default on strong's games"] = wilson(sum(d[:m]), m).as_dict()
                for name, p in ABLATION.items():
                    if p in won:
                        row[f"default - ({name})"] = paired_rate_difference(d, won[p]).as_dict()
                rows.append(row)
                print(json.dumps(row), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
