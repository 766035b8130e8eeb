"""`dfsim validate`: the physics against known results, a report folder with pass/fail per check.

Exit status 0 when every check passes (skipped checks do not fail), 1 when any fails, 2 on bad input."""

from __future__ import annotations

import argparse

from sim.errors import SpecError


def run(args: argparse.Namespace) -> int:
    """Run the checks, print one line each, write the report folder; 1 if any check failed."""
    from sim.experiments.progress import Elapsed
    from sim.studies.validation import CHECKS, run_validation

    only = None
    if args.only is not None:  # an empty selection (`--only ""`, `--only ,`) is a mistake, not "all"
        only = [s.strip() for s in args.only.split(",")]
        if not all(only):
            raise SpecError(
                "command line",
                "--only",
                f"{args.only!r} names no check (give comma-separated names: {', '.join(CHECKS)}; "
                "leave --only out to run them all)",
            )
    unknown = [s for s in only or [] if s not in CHECKS]
    if unknown:
        raise SpecError(
            "command line", "--only", f"unknown check '{unknown[0]}' (checks: {', '.join(CHECKS)})"
        )
    out = args.out or ("results/validate-quick" if args.quick else "results/validate")

    under_way = Elapsed()

    def progress(c) -> None:
        under_way.done()
        print(f"{c.status:>7}  {c.name:<12} {c.summary}  [{c.seconds:g} s]", flush=True)

    def starting(name: str, k: int, total: int) -> None:  # a check runs for seconds to minutes: say which
        under_way.start(f"{'...':>7}  {name:<12} (check {k} of {total})")

    try:
        checks = run_validation(out, quick=args.quick, only=only, progress=progress, starting=starting)
    finally:
        under_way.done()
    failed = [c.name for c in checks if c.failed]
    gaps = [c.name for c in checks if c.status == "known gap"]
    verdict = "all passed" if not failed else "failed: " + ", ".join(failed)
    if gaps:
        verdict += "; known gaps (documented, open): " + ", ".join(gaps)
    print(f"report: {out}/report.md  ({verdict})")
    return 1 if failed else 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `dfsim validate`."""
    p = sub.add_parser("validate", help="run the physics against known results; writes a report folder")
    p.add_argument("--quick", action="store_true", help="fewer samples per check (CI: well under 2 minutes)")
    p.add_argument(
        "--out", default=None, help="report folder (default results/validate or results/validate-quick)"
    )
    p.add_argument("--only", default=None, metavar="CHECK,...", help="run only these checks")
    p.set_defaults(func=run)
