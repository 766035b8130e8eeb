"""`dfsim determinism`: the determinism checker for any shot, board and dice."""

from __future__ import annotations

import argparse

from sim.cli.common import SEED, add_scenario_options, integer, scenario_from


def cmd_determinism(args: argparse.Namespace) -> int:
    """`dfsim determinism`: repeat throws in the same and in a fresh world; exit 1 if any bit differs."""
    from sim.cli.common import AimProgress
    from sim.engine.determinism import check_determinism
    from sim.engine.worlds import thrower_for
    from sim.errors import NondeterminismError

    if args.across_cpus:
        return _across_cpus()
    sc = scenario_from(args)
    # the world the check throws in first: its aim, solved here, shows its progress
    thrower_for(sc).nominal(progress=AimProgress())
    try:
        check_determinism(sc, args.seed, args.throws)
    except NondeterminismError as exc:
        print(f"NOT deterministic: {exc}")
        return 1
    print("deterministic")
    return 0


def _across_cpus() -> int:
    """The engine's fingerprint in fresh processes that compute as other CPUs would; exit 1 on a
    difference."""
    import sys

    from sim.engine.portability import compare

    worst = 0
    for variant, fp, differ in compare(
        lambda name: print(f"fingerprinting: {name} ...", file=sys.stderr, flush=True)
    ):
        parts = " ".join(f"{k}={v}" for k, v in fp.items())
        if differ:
            worst = 1
            print(f"DIFFERS  {variant.name}: {', '.join(differ)} ({parts})")
        else:
            print(f"same     {variant.name} ({parts})")
    print(
        "the same bits under every CPU variant this machine can emulate"
        if worst == 0
        else "NOT portable: some variant computes different bits (docs/physics.md, 'What is reproducible')"
    )
    return worst


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `determinism` command (scenario options, --seed, --throws)."""
    p = sub.add_parser(
        "determinism", help="throw the same draws twice and in a fresh world; compare to the bit"
    )
    add_scenario_options(p)
    p.add_argument("--seed", type=SEED, default=7)
    p.add_argument("--throws", type=integer(1, 1000), default=3)
    p.add_argument(
        "--across-cpus",
        action="store_true",
        help="instead: a fixed fingerprint in fresh processes made to compute as other CPUs do "
        "(BLAS kernels, numpy SIMD, libm variants; about 15 s)",
    )
    p.set_defaults(func=cmd_determinism)
