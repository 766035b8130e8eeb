"""`dfsim doctor RESULTS_DIR`: verify a results folder and say what a rerun would repair."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sim.cli.common import EXIT_FAULT


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `dfsim doctor`."""
    p = subparsers.add_parser(
        "doctor",
        help="verify a results folder (manifest, hashes, chunk ranges, records)",
        description="Check a results folder without changing it: one line per problem, saying what is wrong "
        "and what running the experiment again will do. Exit 0 when healthy, 1 when not.",
    )
    p.add_argument("results", metavar="RESULTS_DIR", help="an experiment's output folder")
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print one line per problem (exit 1) or one `healthy` line (exit 0)."""
    from sim.experiments.checkup import examine

    try:
        up = examine(Path(args.results))
    except OSError as exc:
        print(f"dfsim: {exc.filename or args.results}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAULT
    for finding in up.findings:
        print(finding.line)
    if up.healthy:
        print(up.summary)
        return 0
    return EXIT_FAULT
