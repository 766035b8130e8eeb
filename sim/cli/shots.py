"""`dfsim shot-report OUT` (requirement failure rates, the Far Shot's cost) and `dfsim sda-rolloff OUT`."""

from __future__ import annotations

import argparse
import json

from sim.errors import SpecError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `shot-report` and `sda-rolloff` commands, both read-outs of a finished run's output folder."""
    r = sub.add_parser(
        "shot-report", help="per-predicate failure rates, Far Shot cost and a ranking figure for a run"
    )
    r.add_argument("out", help="the output folder of `dfsim run` (e.g. results/shot-requirements)")
    r.add_argument("--json", action="store_true")
    r.set_defaults(func=_cmd_shot_report)
    a = sub.add_parser(
        "sda-rolloff", help="Super Dungeon Arena scenario roll and roll-off odds from a free-roll run"
    )
    a.add_argument("out", help="the output folder of `dfsim run sda-rolloff`")
    a.add_argument("--stars", help="what each face label counts, e.g. star=1,2-star=2 (default)")
    a.add_argument("--variant", default="blue-die", help="the variant of one-die throws (the scenario roll)")
    a.add_argument(
        "--rolloff-variant",
        default="three-blue-dice",
        help="the variant of three dice thrown together (the roll-off: each throw one player's roll)",
    )
    a.add_argument("--json", action="store_true")
    a.set_defaults(func=_cmd_sda)


def _cmd_shot_report(args: argparse.Namespace) -> int:
    from sim.experiments.shot_report import shot_report

    rep = shot_report(args.out)
    if args.json:
        print(json.dumps(rep, default=float))
        return 0
    for r in sorted(rep["variants"], key=lambda r: -r["hit_rate"]["rate"]):
        h = r["hit_rate"]
        fails = ", ".join(
            f"{k} {100 * v['rate']:.0f}%" for k, v in r["requirement_failed"].items() if v["count"]
        )
        print(
            f"{r['variant']:<26} n={r['n']:<5} hit {100 * h['rate']:5.1f}% [{100 * h['lo']:4.1f}, "
            f"{100 * h['hi']:4.1f}]"
            f"  damage {r['damage']['value']:.2f}  failed: {fails or '-'}"
        )
    for f in rep["far_cost"]:
        d = f["difference"]
        print(
            f"far cost {f['shot']:<12} {100 * d['value']:+5.1f} pp [{100 * d['lo']:+5.1f}, "
            f"{100 * d['hi']:+5.1f}]"
        )
    return 0


def _cmd_sda(args: argparse.Namespace) -> int:
    from sim.studies.rolloff import sda_rolloff

    stars = None
    if args.stars:
        stars = {}
        for item in args.stars.split(","):
            k, _, v = item.partition("=")
            try:
                stars[k.strip()] = int(v)
            except ValueError:
                raise SpecError(
                    "command line",
                    "--stars",
                    f"expected LABEL=WHOLE_NUMBER pairs, e.g. star=1,2-star=2 (got {item[:30]!r})",
                ) from None
    rep = sda_rolloff(args.out, stars, args.variant, args.rolloff_variant)
    if args.json:
        print(json.dumps(rep, default=float))
        return 0
    print(f"{rep['n_faces']} settled free rolls of one blue die ({rep['variant']})")
    for f, r in rep["faces"].items():
        print(f"  face {f:<8} {100 * r['rate']:5.1f}% [{100 * r['lo']:4.1f}, {100 * r['hi']:4.1f}]")
    for s, r in rep["scenario_roll"].items():
        print(f"  scenario {s:<18} {100 * r['rate']:5.1f}% [{100 * r['lo']:4.1f}, {100 * r['hi']:4.1f}]")
    ro = rep["rolloff"]
    print(
        f"{ro['rolls']} settled rolls of {ro['dice_per_roll']} blue dice thrown together ({ro['variant']};"
        f" {ro['rerolled_unsettled']} with a die unsettled, rolled again)"
    )
    for f, r in ro["faces"].items():
        print(
            f"  face {f:<8} {100 * r['rate']:5.1f}% [{100 * r['lo']:4.1f}, {100 * r['hi']:4.1f}] (every die "
            "of the rolls)"
        )
    if ro["tie_rate"]:
        t = ro["tie_rate"]
        print(
            f"  roll-off ties {100 * t['rate']:.1f}% [{100 * t['lo']:.1f}, {100 * t['hi']:.1f}] over "
            f"{ro['attempts']} attempts"
            f" (exact for independent dice: {100 * ro['exact_tie_probability']:.1f}%, "
            f"{ro['exact_rolls_per_rolloff']:.2f} rolls per roll-off)"
        )
    return 0
