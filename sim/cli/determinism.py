"""`dfsim determinism`: the determinism checker for any shot, board and dice."""

from __future__ import annotations

import argparse

from sim.cli.common import SEED, add_scenario_options, integer, scenario_from


def cmd_determinism(args: argparse.Namespace) -> int:
    """`dfsim determinism`: repeat throws in the same and in a fresh world; exit 1 if any bit differs."""
    from sim.engine.determinism import NondeterminismError, check_determinism

    try:
        check_determinism(scenario_from(args), args.seed, args.throws)
    except NondeterminismError as exc:
        print(f"NOT deterministic: {exc}")
        return 1
    print("deterministic")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `determinism` command (scenario options, --seed, --throws)."""
    p = sub.add_parser("determinism", help="throw the same draws twice and in a fresh world; compare to the bit")
    add_scenario_options(p)
    p.add_argument("--seed", type=SEED, default=7)
    p.add_argument("--throws", type=integer(1, 1000), default=3)
    p.set_defaults(func=cmd_determinism)
