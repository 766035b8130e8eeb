"""`dfsim tune`: which value of a setting gives a target rate (sim/experiments/tuner.py).

`--set PATH=LO:HI` names the tuned setting and its range; any other `--set PATH=VALUE` is a fixed
override. The response is a shot metric over physical throws of the scenario options.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from sim.cli.common import add_scenario_options, pairs
from sim.errors import SpecError

_NUMBER = r"[-+]?[0-9.]+(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\s*({_NUMBER})\s*:\s*({_NUMBER})\s*$")
SRC = "command line"


def register(sub: argparse._SubParsersAction) -> None:
    from sim.experiments.responses import SHOT_METRICS

    # "resolve": the shared --set is declared again below, explained for tuning
    p = sub.add_parser("tune", conflict_handler="resolve",
                       help="find the value of a setting that gives a target hit rate, with an interval")
    add_scenario_options(p)
    p.add_argument("--set", action="append", dest="overrides", metavar="PATH=LO:HI | PATH=VALUE",
                   help="the tuned setting and its range (exactly one), e.g. skill.speed_sd_frac=0:1; or a fixed override")
    p.add_argument("--target", type=float, required=True, help="the wanted rate, strictly between 0 and 1")
    p.add_argument("--integer", action="store_true", help="the setting takes integer values (answer: the closest integer)")
    p.add_argument("--metric", default="hit", choices=sorted(SHOT_METRICS), help="what counts as a success (default: hit)")
    p.add_argument("--tolerance", type=float,
                   help="stop once the interval lies within answer +- this (default: 1 for --integer, else 1 %% of the range)")
    p.add_argument("--budget", type=int, default=3000, help="most trials (throws) in total (default 3000)")
    p.add_argument("--initial-n", type=int, default=64, help="trials per value at the first stage (default 64)")
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="root seed: same seed, same answer (default 0)")
    p.add_argument("--out", help="write OUT/tune.json and OUT/tune.png")
    p.set_defaults(func=cmd_tune)


def split_sets(items: list[str] | None) -> tuple[str, float, float, dict[str, Any]]:
    """(path, lo, hi, fixed overrides) from the --set items: exactly one must be PATH=LO:HI."""
    tuned, fixed = [], []
    for it in items or []:
        key, eq, val = it.partition("=")
        m = _RANGE.match(val) if eq else None
        (tuned if m else fixed).append((key.strip(), m) if m else it)
    if len(tuned) != 1:
        found = ", ".join(k for k, _ in tuned) or "none"
        raise SpecError(SRC, "--set", f"give exactly one tuned setting as PATH=LO:HI (found: {found})")
    (path, m), = tuned
    try:
        lo, hi = float(m.group(1)), float(m.group(2))
    except ValueError:
        raise SpecError(SRC, f"--set {path}", f"range '{m.group(0).strip()}' is not LO:HI with two numbers") from None
    return path, lo, hi, pairs(fixed, "--set")


def _shot_response(args: argparse.Namespace, path: str, fixed: dict[str, Any]):
    """The evaluate(value, n, seed) callable over physical throws, and the metric's name."""
    from sim.experiments.responses import shot_response

    recipe = {
        "board": args.board,
        "dice": args.dice or ["hero-d8"],
        "shots": args.shots or ["standard"],
        "skill": args.skill,
        "rules": pairs(args.rule, "--rule"),
        "overrides": fixed,
        "source": SRC,
    }
    return shot_response(recipe, path, args.metric), f"{args.metric} rate"


def cmd_tune(args: argparse.Namespace) -> int:
    from sim.experiments.tuner import save_result, tune

    path, lo, hi, fixed = split_sets(args.overrides)
    if args.integer:
        if lo != int(lo) or hi != int(hi):
            raise SpecError(SRC, f"--set {path}", f"--integer needs integer ends, got {lo:g}:{hi:g}")
        lo, hi = int(lo), int(hi)
    evaluate, metric = _shot_response(args, path, fixed)
    res = tune(evaluate, lo, hi, args.target, integer=args.integer, tolerance=args.tolerance, budget=args.budget,
               initial_n=args.initial_n, seed=args.seed, confidence=args.confidence, setting=path, metric=metric)
    if args.out:
        save_result(res, args.out)
    if args.json:
        print(json.dumps(res.to_json()))
        return 0
    print(res.summary_line())
    for note in res.notes:
        print(f"  note: {note}")
    print(f"  {'value':>12} {'n':>6} {'successes':>9}  rate [{100 * res.confidence:g} % interval]")
    for pt in res.points:
        r = pt.rate
        print(f"  {pt.value:>12g} {r.n:>6} {r.count:>9}  {r.rate:.3f} [{r.lo:.3f}, {r.hi:.3f}] {pt.side}")
    if args.out:
        print(f"  wrote {args.out}/tune.json and {args.out}/tune.png")
    return 0
