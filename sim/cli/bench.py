"""`dfsim bench`: throughput of the reference scene against a naive loop, measured in the same run."""

from __future__ import annotations

import argparse
import json
import sys

from sim.cli.common import integer, number


def cmd_bench(args: argparse.Namespace) -> int:
    """`dfsim bench`: run the throughput benchmark and print its figures (JSON with --json)."""
    from sim.cli.common import AimProgress
    from sim.engine.bench import run_bench
    from sim.experiments.progress import WorkBar

    # one line first; the bar moves only between timed stretches (a chunk of throws in every loop, a
    # naive throw), so its drawing is never part of what is timed
    sys.stderr.write(
        f"dfsim: timing {args.throws} throws of the reference scene, then {args.naive_throws} of a "
        "naive loop and the uniform-step loop (seconds to a minute) ...\n"
    )
    sys.stderr.flush()
    bar = WorkBar(args.throws + args.naive_throws, "throw", "timing", after_s=0, lazy=True)
    try:
        out = run_bench(
            throws=args.throws,
            naive_throws=args.naive_throws,
            physics={"step_hz": args.step_hz} if args.step_hz else None,
            uniform_step_hz=args.uniform_step_hz,
            tick=bar.update,
            aim_progress=AimProgress(),
        )
    finally:
        bar.close()
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `bench` command: throughput of the reference scene against a naive rebuild-per-throw loop."""
    b = sub.add_parser("bench", help="throughput of the reference scene vs a naive loop")
    b.add_argument("--throws", type=integer(1, 100_000), default=300)
    b.add_argument("--naive-throws", type=integer(1, 1000), default=10)
    b.add_argument(
        "--step-hz", type=number(60, 20000), default=None, help="contact step (default: the physics default)"
    )
    b.add_argument(
        "--uniform-step-hz",
        type=number(60, 20000),
        default=480.0,
        help="step of the uniform loop compared against",
    )
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=cmd_bench)
