"""Games per second of the game loop on the resampling engine, on one core (target: 500 games/s), and
each game policy's cost per game as a multiple of `default`'s (a searching policy such as `strong`
plays hundreds of rollouts per game).

Usage: python benchmarks/game_speed.py [--game NAME] [--games N] [--policy NAME ...] [--policy-games N]
       [--bank DIR] [--bank-throws N] [--set K=V ...] [--json]

Plays games 0..N-1 of a game file (default: the base game, three casual heroes at Normal) with the
default game policy and no log, throws drawn from the throw bank (recorded first if the bank lacks a
scenario: that part is not timed), and reports games/s by wall clock and by this process's CPU time
(the machine may be shared: CPU time is the fair figure), with combats and throws per game. Each
`--policy` then plays games 0..M-1 (`--policy-games`, default 20) and reports its CPU seconds per game
and the ratio to default's, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import time

from sim.cli.game import overrides
from sim.games.engine import run_games
from sim.games.spec import load_game
from sim.games.throw_bank import BankSource, ThrowBank, die_alias, play


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="base")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--policy", action="append", default=[], help="a policy to time against default")
    ap.add_argument("--policy-games", type=int, default=20)
    ap.add_argument("--bank")
    ap.add_argument("--bank-throws", type=int, default=2000)
    ap.add_argument("--set", action="append", dest="overrides")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    spec = load_game(a.game, overrides(a.overrides))
    bank = ThrowBank(a.bank, a.bank_throws)
    alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
    play(lambda s: run_games(spec, s, a.games, "default"), bank, spec.seed, alias)  # the bank, complete
    for p in a.policy:
        play(lambda s, p=p: run_games(spec, s, a.policy_games, p), bank, spec.seed, alias)
    src = BankSource(bank, spec.seed, alias=alias)
    run_games(spec, src, min(50, a.games), "default")  # warm: tables read, plans built (games the bank covers)
    w0, c0 = time.perf_counter(), time.process_time()
    res = run_games(spec, src, a.games, "default")
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    out = {"game": spec.name, "games": a.games, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
           "games_per_s_wall": round(a.games / wall, 1), "games_per_s_cpu": round(a.games / cpu, 1),
           "combats_per_game": round(sum(r.combats for r in res) / len(res), 2),
           "throws_per_game": round(sum(r.throws for r in res) / len(res), 1),
           "won": round(sum(r.won for r in res) / len(res), 4)}
    per_default = cpu / a.games
    for p in a.policy:
        c0 = time.process_time()
        run_games(spec, src, a.policy_games, p)
        per = (time.process_time() - c0) / a.policy_games
        out[f"{p}_cpu_s_per_game"] = round(per, 4)
        out[f"{p}_x_default"] = round(per / per_default, 1)
    print(json.dumps(out) if a.json else "\n".join(f"{k}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
