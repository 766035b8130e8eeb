"""`dfsim sensitivity FILE`: which settings move a scene's hit rate and section shares (Morris or Sobol')."""

from __future__ import annotations

import argparse

from sim.cli.common import integer, patterns


def register(sub: argparse._SubParsersAction) -> None:
    """Add `dfsim sensitivity` to the command line."""
    p = sub.add_parser(
        "sensitivity",
        help="global sensitivity analysis of a scene (Morris screening or Sobol' indices)",
        description="Vary the parameters of a sensitivity file over their ranges, throw every design point "
        "with common random numbers, and rank the parameters by their effect on the hit rate and "
        "the section shares. Re-running resumes.",
    )
    p.add_argument("file", help="sensitivity TOML file (e.g. experiments/sensitivity.toml)")
    p.add_argument("--method", choices=["morris", "sobol"], help="replace the file's method")
    p.add_argument("--out", help="output folder (default: results/<name>-<method>/)")
    p.add_argument("--workers", type=integer(1, 1024), help="worker processes (default: all cores)")
    p.add_argument("--force", action="store_true", help="replace results of a different analysis in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bars or table")
    p.add_argument("--no-figure", action="store_true", help="skip sensitivity.png")
    p.add_argument("--throws", type=integer(1, 1_000_000), help="replace the file's throws per design point")
    p.add_argument("--trajectories", type=integer(2, 500), help="replace the file's Morris trajectories")
    p.add_argument(
        "--parameters",
        type=patterns,
        help="vary only these parameters (comma-separated names or shell patterns, 'speed spread,*friction'; "
        "at least two); the others stay at the scene's values: an analysis of its own",
    )
    p.set_defaults(func=cmd_sensitivity)


def cmd_sensitivity(args: argparse.Namespace) -> int:
    """Run the analysis; SpecError (bad input) reaches main, which prints one line with status 2."""
    from sim.cli.run import runner_faults
    from sim.studies.sensitivity import run_sensitivity

    res = runner_faults(
        lambda: run_sensitivity(
            args.file,
            out=args.out,
            workers=args.workers,
            force=args.force,
            quiet=args.quiet,
            method=args.method,
            figure=not args.no_figure,
            throws=args.throws,
            trajectories=args.trajectories,
            parameters=args.parameters,
        )
    )
    if isinstance(res, int):
        return res
    if not args.quiet:
        print((res.out / "sensitivity.md").read_text())
        print(f"results: {res.out}")
    return 0
