"""`dfsim run EXPERIMENT`: run (or resume) a Monte Carlo experiment and print its summary."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable
from typing import TypeVar

from sim.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAULT,
    EXIT_INTERRUPTED,
    executor_from,
    executor_options,
    integer,
    patterns,
)

T = TypeVar("T")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `run` command: run or resume a Monte Carlo experiment into an output folder."""
    p = subparsers.add_parser(
        "run",
        help="run (or resume) a Monte Carlo experiment",
        description="Run an experiment file (or a built-in experiment by name); re-running resumes.",
    )
    p.add_argument("experiment", help="experiment TOML file, or a built-in name such as 'quickstart'")
    p.add_argument("--out", help="output folder (default: results/<experiment name>/)")
    p.add_argument("--workers", type=integer(1, 1024), help="worker processes (default: all cores)")
    executor_options(p, where="where the chunks run: local processes or a Dask cluster")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace results of a different experiment in --out (removes only files a run writes)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary table")
    p.add_argument(
        "--max-throws",
        type=integer(1, 100_000_000),
        help="cap throws per cell (a quick preview; a different experiment hash)",
    )
    p.add_argument(
        "--variants",
        type=patterns,
        help="run only these variants: comma-separated names or shell patterns ('firewall-*,far-casual'); "
        "a smaller experiment of its own (its own hash and folder contents)",
    )
    p.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    from sim.plugins import cap_options

    for name, text in cap_options():  # the caps the experiment kinds declare (sim/plugins.py)
        p.add_argument("--" + name.replace("_", "-"), type=integer(1, 100_000_000), help=text)
    p.add_argument(
        "--bank", metavar="DIR", help="game experiments: throw bank folder (default: the user's cache)"
    )
    p.set_defaults(func=cmd_run)


def runner_faults(call: Callable[[], T]) -> T | int:
    """`call()` (a run through the experiment runner), or the exit status of how it stopped, told in one
    line: interrupted (resumable), a failed chunk, or the environment (a read-only or full disk, a name
    too long, a file-size limit...). SpecError is left to main."""
    from sim.experiments.executor import ChunkFailed
    from sim.experiments.runner import Interrupted

    try:
        return call()
    except Interrupted as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_INTERRUPTED - signal.SIGINT + exc.signum
    except ChunkFailed as exc:
        print(f"dfsim: {exc}", file=sys.stderr)
        return EXIT_FAULT
    except OSError as exc:
        print(f"dfsim: {os_error(exc)}", file=sys.stderr)
        return EXIT_FAULT


def cmd_run(args: argparse.Namespace) -> int:
    """Run the experiment (of any kind) and print what its kind shows; SpecError (bad input) propagates
    to the CLI's main, which prints one line."""
    from sim.experiments.runner import run_experiment
    from sim.plugins import cap_options

    if hasattr(signal, "SIGXFSZ"):  # a file-size limit is an OSError (exit 1, chunks kept), not a kill
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    executor, scheduler, security = executor_from(args)
    try:
        res = runner_faults(
            lambda: run_experiment(
                args.experiment,
                out=args.out,
                workers=args.workers,
                executor=executor,
                scheduler=scheduler,
                force=args.force,
                quiet=args.quiet,
                max_throws=args.max_throws,
                figures=not args.no_figures,
                security=security,
                variants=args.variants,
                bank=args.bank,
                **{name: getattr(args, name) for name, _ in cap_options()},
            )
        )
    except ImportError as exc:  # Dask, an optional package, not installed
        print(f"dfsim: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if isinstance(res, int):
        return res
    if not args.quiet:
        print(res.kind.shown(res), end="")
    return 0


def os_error(exc: OSError) -> str:
    """An OSError as one line naming the file (pathlib and open put it in exc.filename)."""
    if exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
