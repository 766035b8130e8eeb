"""Whole games with physics in the loop, against the throw bank: what resampling from an empty board misses.

Usage: python studies/game_physics.py [--games N] [--seed S] [--bank DIR] [--bank-throws N] [--set K=V ...] [--json]

Plays games 0..N-1 of a game file (default: the base game, three casual heroes, Normal) with every
throw simulated (sim/fights/physics_source.py: the dice of earlier throws lie on the board, templates
are flipped), then the same games on the throw bank. Reports both win rates (Wilson 95 %) and, throw
by throw in the physics games, the hit rate of throws made with dice lying on the board against the
bank's hit rate of the same scenarios (the expected hits, summed over those throws), and how many
resting dice later throws moved. Slow: seconds to minutes per physics game; progress on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from sim.cli.game import overrides
from sim.experiments.statistics import wilson
from sim.fights.physics_source import PhysicsSource
from sim.games.engine import run_games
from sim.games.spec import load_game
from sim.games.throw_bank import ThrowBank, die_alias, play, scenario_of


class Watched(PhysicsSource):
    """PhysicsSource noting, for every throw, its scenario, the dice lying on the board and the result."""

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.seen: list[tuple[dict, int, bool]] = []

    def throw(self, request):
        out = super().throw(request)
        board = self.last.extra.get("board_dice", "") if self.last is not None else ""
        self.seen.append((scenario_of(request), len([x for x in board.split(",") if x]), out.result == "hit"))
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="base")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--bank")
    ap.add_argument("--bank-throws", type=int, default=2000)
    ap.add_argument("--set", action="append", dest="overrides")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    spec = load_game(a.game, overrides(a.overrides))
    seed = spec.seed if a.seed is None else a.seed
    src = Watched(seed, spec.throws.colored_die, spec.throws.white_die)
    t0 = time.process_time()
    phys = []
    for g in range(a.games):
        phys += run_games(spec, src, range(g, g + 1))
        print(f"physics game {g + 1}/{a.games}: {phys[-1].outcome} after {phys[-1].combats} combats "
              f"({time.process_time() - t0:.0f} s CPU so far)", file=sys.stderr, flush=True)
    cpu = time.process_time() - t0
    bank = ThrowBank(a.bank, a.bank_throws)
    alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
    banked, _ = play(lambda s: run_games(spec, s, a.games), bank, seed, alias)
    crowded = [(s, h) for s, n, h in src.seen if n > 0]
    expected = 0.0
    for s, _ in crowded:
        s = {**s, "die": alias.get(s["die"], s["die"])}
        expected += bank.table(s).hit_rate if bank.has(s) else float("nan")
    won_p, won_b = wilson(sum(r.won for r in phys), len(phys)), wilson(sum(r.won for r in banked), len(banked))
    out = {"game": spec.name, "games": a.games, "physics_cpu_s": round(cpu, 1),
           "won_physics": [round(won_p.rate, 3), round(won_p.lo, 3), round(won_p.hi, 3)],
           "won_bank": [round(won_b.rate, 3), round(won_b.lo, 3), round(won_b.hi, 3)],
           "throws": len(src.seen), "throws_with_dice_on_board": len(crowded),
           "hits_with_dice_on_board": sum(h for _, h in crowded), "hits_expected_from_bank": round(expected, 1),
           "resting_dice_moved": len(src.state.moves),
           "moved_changed_section": sum(m["from"] != m["to"] for m in src.state.moves)}
    print(json.dumps(out) if a.json else "\n".join(f"{k}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
