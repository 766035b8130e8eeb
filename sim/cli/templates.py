"""`dfsim flip NAME --seed N` (a thumb-flipped template) and `dfsim template-report OUT`."""

from __future__ import annotations

import argparse
import json
import math

from sim.cli.common import INDEX, SEED
from sim.errors import SpecError
from sim.specs.base import MAX_BOARD_MM


def cmd_flip(args: argparse.Namespace) -> int:
    """`dfsim flip`: flip one template onto a board like a coin (re-flips included) and print where it
    stayed."""
    from sim.specs.board import load_board
    from sim.specs.flip import FLIP_SKILLS, FlipProfile
    from sim.specs.template import load_template
    from sim.world.flip import flip_template

    spec = load_template(args.name)
    board = load_board(args.board)
    if args.skill not in FLIP_SKILLS:
        raise SpecError(
            "command line", "--skill", f"unknown flip skill '{args.skill}' (one of {', '.join(FLIP_SKILLS)})"
        )
    if args.seed is None:
        raise SpecError("command line", "--seed", "is required")
    prof = {}
    if args.aim:
        try:
            x, y = (float(v) for v in args.aim.split(","))
        except ValueError:
            raise SpecError("command line", "--aim", "expected X,Y in mm") from None
        if not all(math.isfinite(v) and abs(v) <= MAX_BOARD_MM for v in (x, y)):
            raise SpecError(
                "command line",
                "--aim",
                f"X and Y must be finite and within {MAX_BOARD_MM:g} mm of the board centre",
            )
        prof["aim_mm"] = (x, y)
    profile = FlipProfile.from_dict(prof, "command line")
    scenario = None
    if args.shot:
        from sim.specs.scenario import Scenario

        scenario = Scenario.build(board=args.board, shots=args.shot, source="command line")
    results = flip_template(board, spec, args.seed, args.index, args.skill, profile, scenario=scenario)
    out = results[0].to_json()
    if len(results) > 1:
        out["pieces"] = [r.to_json() for r in results]
        out["flips"] = sum(r.flips for r in results)
        out["damage"] = sum(r.damage for r in results)
        out["reflips"] = sum(r.reflips for r in results)
        out["not_flat"] = sum(r.not_flat for r in results)
    if args.json:
        print(json.dumps(out))
    else:
        for r in out.get("pieces") or [out]:
            state = "stayed" if r["stayed"] else "never stayed"
            print(
                f"{r['id']}: {state} at ({r['position_mm'][0]:.1f}, {r['position_mm'][1]:.1f}) mm after "
                f"{r['flips']} flip(s), "
                f"{r['reflips']} re-flip(s) ({r['not_flat']} not lying flat), turned {r['turned_deg']:.0f} "
                f"deg, damage {r['damage']}, touching {', '.join(r['touching']) or 'nothing'}"
            )
    return 0


def cmd_template_report(args: argparse.Namespace) -> int:
    """`dfsim template-report`: per-variant template odds of a finished template-odds run, as a table or
    JSON."""
    from sim.experiments.template_report import template_report

    res = template_report(args.out, figure=not args.no_figure)
    if args.json:
        print(json.dumps(res, default=float))
        return 0
    print(
        f"{'variant':<34} {'n':>5} {'hit':>6} {'full':>6} {'partial':>8} {'dmg':>6} {'flips':>6} "
        f"{'P(stay)':>8} {'P(hang)':>8} "
        f"{'P(<180)':>8} {'P(edge)':>8}"
    )
    for name, r in res["variants"].items():
        f = r.get("flips", {})
        print(
            f"{name:<34} {r['n']:>5} {pct(r['hit_rate']['value'])} {pct(r['fully_on_template']['value'])} "
            f"{pct(r['partly_on_template']['value']):>8} {r['mean_damage']:6.2f} "
            f"{num(f.get('mean_flips_until_it_stays'))} {pct(f.get('p_lands_on_board')):>8} "
            f"{pct(f.get('p_hangs_off')):>8} {pct(f.get('p_turned_too_little')):>8} "
            f"{pct(f.get('p_not_flat')):>8}"
        )
    if res.get("figure"):
        print(f"figure: {res['figure']}")
    return 0


def num(x: float | None) -> str:
    """A number as a 6-character column (2 decimals); '-' when missing or NaN (a variant without flips)."""
    return f"{x:6.2f}" if x is not None and x == x else "     -"


def pct(x: float | None) -> str:
    """A fraction as a 6-character percentage column; '-' when missing or NaN."""
    return f"{100 * x:5.1f}%" if x is not None and x == x else "     -"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `flip` and `template-report` commands."""
    f = sub.add_parser("flip", help="flip a template onto the board like a coin")
    f.add_argument("name", help="template name or TOML path")
    f.add_argument("--seed", type=SEED, help="root seed")
    f.add_argument("--index", type=INDEX, default=0, help="flip index within the seed's stream (default 0)")
    f.add_argument("--board", default="magma", help="board name or path (default: magma)")
    f.add_argument("--skill", default="casual", help="flip skill: novice, casual, expert (default: casual)")
    f.add_argument("--aim", help="aim point X,Y in mm (default: the board centre)")
    f.add_argument(
        "--shot",
        action="append",
        help="a shot whose props stand on the board during the flip (e.g. volcano; repeatable)",
    )
    f.add_argument("--json", action="store_true", help="print one JSON object")
    f.set_defaults(func=cmd_flip)
    r = sub.add_parser(
        "template-report", help="template odds of a finished template-odds run (table, JSON, figure)"
    )
    r.add_argument("out", help="the run's output folder (e.g. results/template-odds)")
    r.add_argument("--json", action="store_true")
    r.add_argument("--no-figure", action="store_true")
    r.set_defaults(func=cmd_template_report)
