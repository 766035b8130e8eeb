"""`dfsim game NAME|FILE`: play whole games (decks, rooms, combats, Shops, the Final Boss).

One game prints its round-by-round log; `--games N` plays games 0..N-1 (game i depends only on
(seed, i)) and prints the win rate with its Wilson interval, where games are lost, scores and titles.
Throws come from the throw bank (sim/games/throw_bank.py): every scenario the games meet is recorded
once into the bank folder (default in the user's cache), with progress, then reused.
`--engine physics` simulates every throw instead (slow: minutes per game).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any

from sim.cli.common import (
    INDEX,
    SEED,
    bank_options,
    executor_from,
    executor_given,
    executor_options,
    integer,
    json_or_text,
    split_pair,
)
from sim.errors import SpecError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `game` command."""
    p = sub.add_parser(
        "game", help="play whole games (decks, shops, the Final Boss) with banked or simulated throws"
    )
    p.add_argument("game", help="game file, or a built-in game name (games/), e.g. 'base'")
    p.add_argument("--seed", type=SEED, help="root seed (default: the game file's)")
    p.add_argument(
        "--games", type=integer(1, 10_000_000), help="how many games (default: the game file's, 1)"
    )
    p.add_argument("--first", type=INDEX, default=0, help="index of the first game (default 0)")
    p.add_argument(
        "--engine",
        choices=("resample", "physics"),
        default="resample",
        help="throws from the throw bank (default) or simulated with physics in the loop",
    )
    p.add_argument(
        "--policy",
        help="game policy: first-time, default or strong (the ladder), classic, cautious, greedy; options "
        "as NAME:key=value,... e.g. strong:rollouts=16 (default: the game file's)",
    )
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        dest="overrides",
        help="override a game setting, e.g. difficulty=hard, party.size=4, house_rules.extra_white_dice=2",
    )
    bank_options(p)
    p.add_argument(
        "--bank-replicates",
        type=integer(0, 1000),
        default=None,
        help="bootstrap banks behind the bank's part of the win rate's interval (default 8; 0: none)",
    )
    executor_options(p, where="where the bank is recorded: local processes or a Dask cluster (as dfsim run)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_game)


def overrides(items: list[str] | None) -> dict[str, Any]:
    """--set KEY=VALUE items (VALUE read as JSON when it parses, else text)."""
    out: dict[str, Any] = {}
    for it in items or []:
        k, v = split_pair(it, "--set")
        out[k] = json_or_text(v, "--set", k)
    return out


def load(name: str, items: list[str] | None):
    """The game spec with --set overrides (a bad override is the command line's fault)."""
    from sim.games.spec import load_game

    ov = overrides(items)
    try:
        spec = load_game(name, ov)
    except SpecError as exc:
        key = next((k for k in ov if exc.field == k or exc.field.startswith(k + ".")), None)
        if key is None:
            raise
        raise SpecError("command line", "--set", f"{exc.field}: {exc.problem}") from None
    spec.load_decks()
    return spec


def cmd_game(args: argparse.Namespace) -> int:
    """Play the games; bad input is a SpecError (exit 2) before anything is recorded."""
    from sim.errors import FightError
    from sim.games.engine import run_games
    from sim.games.ladder import resolve_game_policy
    from sim.games.report import format_summary, summarize_games
    from sim.games.throw_bank import ThrowBank, die_alias, play

    spec = load(args.game, args.overrides)
    policy_name = args.policy or spec.policy
    policy = resolve_game_policy(policy_name, "command line" if args.policy else spec.source)
    n = args.games if args.games is not None else spec.games
    seed = spec.seed if args.seed is None else args.seed
    spec = spec.with_seed(seed)  # --seed is the root of the shuffles too, not only of the throws
    idx = range(args.first, args.first + n)
    try:
        if args.engine == "physics":
            if args.bank or args.bank_throws or args.bank_replicates:
                raise SpecError(
                    "command line", "--bank", "is for --engine resample (physics simulates every throw)"
                )
            flag = executor_given(args)
            if flag:
                raise SpecError(
                    "command line", flag, "records the bank: --engine physics throws in this process"
                )
            from sim.experiments.progress import RunProgress
            from sim.fights.physics_source import PhysicsSource

            source: Any = PhysicsSource(seed, spec.throws.colored_die, spec.throws.white_die)
            bar = RunProgress(n, 0, quiet=False, unit="game")
            results = []
            for i in idx:
                results += run_games(
                    spec, source, range(i, i + 1), policy_name if not args.policy else policy, log=(n == 1)
                )
                bar.bar.update(1)
            bar.bar.close()
            head_bank: dict[str, Any] = {}
        else:
            executor, scheduler, security = executor_from(args)
            bank = ThrowBank(
                args.bank,
                args.bank_throws,
                workers=args.workers,
                executor=executor,
                scheduler=scheduler,
                security=security,
            )
            alias = die_alias(spec.throws.colored_die, spec.throws.white_die)
            from sim.games.progress import games_bar

            def games(s: Any) -> list:
                with games_bar(policy_name, len(idx), spec.source) as tick:
                    return run_games(spec, s, idx, policy_name, log=(n == 1), progress=tick)

            results, src = play(games, bank, seed, alias)
            head_bank = {
                "bank": str(bank.dir),
                "bank_throws": bank.throws if bank.throws is not None else "by precision",
                "tables": [table_json(t) for t in src.used.values()],
            }
    except FightError as exc:
        raise SpecError(spec.source, "policy", str(exc)) from None
    except NotImplementedError as exc:
        raise SpecError(spec.source, "engine", str(exc)) from None
    head = {
        "game": spec.name,
        "source": spec.source,
        "seed": seed,
        "first": args.first,
        "games": n,
        "engine": args.engine,
        "policy": policy_name,
        "difficulty": spec.difficulty,
        "heroes": spec.party.players,
        "skill": spec.throws.skill,
        **head_bank,
    }
    if n == 1:
        r = results[0]
        if args.json:
            print(json.dumps(head | {"result": r.to_json()}, default=str))
        else:
            print("\n".join(r.log))
        return 0
    summary = summarize_games(results)
    from sim.games.bank_uncertainty import REPLICATES

    reps = REPLICATES if args.bank_replicates is None else args.bank_replicates
    if args.engine == "resample" and reps > 1:
        summary["won_with_bank"] = won_with_bank(spec, idx, policy_name, bank, seed, alias, summary, reps)
    if args.json:
        print(json.dumps(head | {"summary": summary}, default=str))
    else:
        text = format_summary(head, summary)
        if "won_with_bank" in summary:
            from sim.games.bank_uncertainty import bank_advice, interval_text

            text += "\nwin rate with the bank's own uncertainty: " + interval_text(summary["won_with_bank"])
            advice = bank_advice(summary["won_with_bank"], args.bank_throws)
            text += f"\n{advice}" if advice else ""
        print(text)
    sys.stdout.flush()
    return 0


def won_with_bank(spec, idx, policy, bank, seed, alias, summary, replicates) -> dict[str, Any]:
    """The win rate's interval with the bank's part: the first REPLICATE_GAMES games replayed on
    bootstrap banks (sim.games.bank_uncertainty), the games' part the Wilson half-width."""
    from sim.experiments.progress import Elapsed
    from sim.games.bank_uncertainty import REPLICATE_GAMES, with_bank
    from sim.games.engine import run_games
    from sim.games.ladder import policy_label
    from sim.games.progress import games_bar

    sub = range(idx.start, idx.start + min(len(idx), REPLICATE_GAMES))
    won = summary["won"]
    what = f"the bank's uncertainty: {len(sub)} games on {replicates} bootstrap banks"
    el = Elapsed(sys.stderr)
    with contextlib.ExitStack() as stack:
        # a searching policy's replays take as long as its games did: a bar with the time left
        tick = stack.enter_context(games_bar(policy, len(sub) * replicates))
        if tick is None:
            el.start(what)
            stack.callback(el.done)
        else:
            print(
                f"{what} ({len(sub) * replicates:,} games of {policy_label(policy)}; --bank-replicates 0 "
                "skips them)",
                file=sys.stderr,
                flush=True,
            )
        return with_bank(
            lambda s: run_games(spec, s, sub, policy, progress=tick),
            lambda rs: sum(r.won for r in rs) / len(rs),
            bank,
            seed,
            won["rate"],
            (won["hi"] - won["lo"]) / 2,
            alias,
            replicates,
            games_interval=(won["lo"], won["hi"]),  # each side of Wilson's interval widened on its own
        )


def table_json(t: Any) -> dict[str, Any]:
    """A bank table's description with the size its entry settled on."""
    size = getattr(t, "bank_size", None)
    return t.describe() | ({"size": size.as_dict()} if size is not None else {})
