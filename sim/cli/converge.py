"""`dfsim converge`: is the physics converged? Outcome shares at the default physics against a finer
contact step on identical releases (sim/studies/convergence.py), one table per scene."""

from __future__ import annotations

import argparse
import json
import sys

from sim.cli.common import SEED, integer, number, pairs
from sim.errors import SpecError


def cmd_converge(args: argparse.Namespace) -> int:
    """Run the paired check for each named scene; exit 1 if any scene is not converged."""
    from sim.cli.common import AimProgress
    from sim.experiments.progress import WorkBar
    from sim.specs.scenario import Scenario
    from sim.studies.convergence import QUICK_SCENES, convergence_check

    unknown = [s for s in args.scenes if s not in QUICK_SCENES]
    if unknown:
        raise SpecError(
            "<command line>", "scenes", f"unknown scene '{unknown[0]}' (known: {', '.join(QUICK_SCENES)})"
        )
    out = {}
    for scene in args.scenes or list(QUICK_SCENES):
        sc = Scenario.build(**QUICK_SCENES[scene])
        settings = pairs(args.physics, "--physics")
        if args.step_hz:
            settings["step_hz"] = args.step_hz
        if settings:
            sc = sc.with_physics(**settings)
        if not args.json:  # the two worlds are built (each calibrates its rebound) before any bar moves
            print(f"dfsim: {scene}: building its worlds at the default step and {args.factor:g}x finer ...",
                  file=sys.stderr, flush=True)
        # lazy: the aim solve shows its own line first; the bar starts with the first pair
        bar = WorkBar(args.n, "pair", f"{scene}: paired throws", enabled=not args.json, after_s=0, lazy=True)
        try:
            tab = convergence_check(
                sc,
                args.n,
                seed=args.seed,
                factor=args.factor,
                reference_flight=args.reference_flight,
                tick=bar.update,
                aim_progress=None if args.json else AimProgress(),
            )
        finally:
            bar.close()
        out[scene] = tab.as_dict()
        if not args.json:
            print(f"{scene}: {tab.format()}", flush=True)
    if args.json:
        print(json.dumps(out))
    return 0 if all(v["passed"] for v in out.values()) else 1


def register(sub: argparse._SubParsersAction) -> None:
    """Add `dfsim converge`."""
    c = sub.add_parser("converge", help="convergence check: default physics vs a finer contact step, paired")
    c.add_argument(
        "scenes",
        nargs="*",
        default=[],
        help="of reference, firewall, template, roll-d6, roll-d8 (default: all)",
    )
    c.add_argument("-n", type=integer(1, 100_000), default=200, help="throws per scene")
    c.add_argument("--seed", type=SEED, default=2024)
    c.add_argument(
        "--step-hz",
        type=number(60, 20000),
        default=None,
        help="candidate contact step (default: the physics default)",
    )
    c.add_argument(
        "--physics",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="candidate physics setting (repeatable), e.g. fine_speed_mps=1.0",
    )
    c.add_argument(
        "--factor", type=number(1, 64), default=4.0, help="reference step = factor x candidate step"
    )
    c.add_argument("--reference-flight", choices=["analytic", "step"], default="analytic")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=cmd_converge)
