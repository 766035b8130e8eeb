"""The house rules at game level, per rung: what each house rule changes in the whole game's win rate
under `default` and under `strong`, on paired games.

Usage: python studies/game_house_rules.py [--games N] [--strong-games M] [--party 4-casual]
       [--difficulty normal] [--life 0 -8] [--policies default strong] [--rules NAME=VALUE ...]
       [--bank DIR] [--bank-throws N] [--out FILE]

For each `house_rules.monster_life_bonus` value (0: the printed game; -8: where casual parties win
some games, so a house rule can show an effect either way) and each policy, games 0..N-1 (M for
`strong`) are played as printed and with each house rule alone (the rules a game can take from the
throw bank: the fight rules `extra_white_dice`, `retrieval_half_damage`, and the classification
rules, whose throws the bank records under the rule; not the release-noise rules eyes_closed and
off_hand, which the bank has no throws for). Game k has the same shuffles and throw streams under
every rule, so each rule's effect is a paired difference against the printed rules (Newcombe's
interval, points). Throws come from the throw bank (`--bank`, default $DFSIM_BANK; a rule's new
scenarios are recorded first, with progress). One JSON object per (life, policy) on stdout, all with
`--out`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from sim.experiments.statistics import paired_rate_difference, wilson
from sim.games.engine import run_games
from sim.games.progress import games_bar
from sim.games.spec import load_game
from sim.games.throw_bank import ThrowBank, die_alias, play

# one each, as the fight-level study (experiments/house-rules.toml) sets them
RULES = (
    "extra_white_dice=1",
    "extra_white_dice=2",
    "retrieval_half_damage=true",
    "holes_inactive=true",
    "bones_outer_section=true",
    "no_bounce=true",
    "two_bounces=true",
    "partial_templates_hit=true",
)


def rule_value(text: str) -> tuple[str, Any]:
    """"extra_white_dice=2" -> ("house_rules.extra_white_dice", 2)."""
    k, eq, v = text.partition("=")
    if not eq:
        raise SystemExit(f"game_house_rules: --rules {text}: expected NAME=VALUE")
    value: Any = {"true": True, "false": False}.get(v.lower(), v)
    if isinstance(value, str) and value.lstrip("-").isdigit():
        value = int(value)
    return f"house_rules.{k}", value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--strong-games", type=int, default=500)
    ap.add_argument("--party", default="4-casual")
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--life", type=int, nargs="+", default=[0, -8])
    ap.add_argument("--policies", nargs="+", default=["default", "strong"])
    ap.add_argument("--strong-life", type=int, nargs="*", default=[-8],
                    help="the monster_life_bonus values strong plays (the printed game: no rung wins)")
    ap.add_argument("--rules", nargs="+", default=list(RULES))
    ap.add_argument("--bank")
    ap.add_argument("--bank-throws", type=int, default=500)
    ap.add_argument("--workers", type=int, default=1, help="worker processes recording the bank")
    ap.add_argument("--out")
    a = ap.parse_args()
    size_text, _, skill = a.party.partition("-")
    bank = ThrowBank(a.bank, a.bank_throws, workers=a.workers)
    rows = []
    for life in a.life:
        for policy in a.policies:
            searching = policy.split(":")[0] == "strong"
            if searching and life not in a.strong_life:
                continue
            n = a.strong_games if searching else a.games
            won: dict[str, list[bool]] = {}
            cost: dict[str, float] = {}
            for rule in ["as printed", *a.rules]:
                sets: dict[str, Any] = {"party.size": int(size_text), "throws.skill": skill,
                                        "difficulty": a.difficulty, "house_rules.monster_life_bonus": life}
                if rule != "as printed":
                    k, v = rule_value(rule)
                    sets[k] = v
                spec = load_game("base", sets)
                spec.load_decks()
                alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
                label = f"{a.party} {a.difficulty}, monster life {life:+d}, {policy}: {rule}"
                print(f"{label}, {n} games", file=sys.stderr, flush=True)
                c0 = time.process_time()
                with games_bar(policy, n) as tick:
                    res, _ = play(lambda s, g=spec, t=tick, n=n, p=policy: run_games(g, s, n, p, progress=t),
                                  bank, spec.seed, alias)
                cost[rule] = (time.process_time() - c0) / n
                won[rule] = [bool(r.won) for r in res]
            base = won["as printed"]
            row = {"party": a.party, "difficulty": a.difficulty, "life": life, "policy": policy, "games": n,
                   "cpu_s_per_game": {r: round(c, 5) for r, c in cost.items()},
                   "won": {r: wilson(sum(w), n).as_dict() for r, w in won.items()},
                   "minus_printed": {r: paired_rate_difference(w, base).as_dict()
                                     for r, w in won.items() if r != "as printed"}}
            rows.append(row)
            print(json.dumps(row), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"command": " ".join(sys.argv[1:]), "bank_throws": a.bank_throws, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
