"""`dfsim run EXPERIMENT`: run (or resume) a Monte Carlo experiment and print its summary."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from sim.cli.common import EXIT_BAD_INPUT, EXIT_FAULT, EXIT_INTERRUPTED, integer, patterns
from sim.errors import SpecError

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
    p.add_argument("--executor", choices=["local", "dask"], default="local")
    p.add_argument(
        "--scheduler",
        help="Dask scheduler address tcp:// or tls://HOST:PORT (default: a local Dask "
        "cluster; one that does not answer as a scheduler within 10 s stops the run, exit 1). "
        "Full trust: whoever runs the scheduler or its workers can run code as you; use only a "
        "cluster you control, over tls:// on a network that is not yours (docs/experiments.md)",
    )
    p.add_argument("--tls-ca-file", help="Dask TLS: CA certificate to check the scheduler with")
    p.add_argument("--tls-cert", help="Dask TLS: this client's certificate (PEM)")
    p.add_argument("--tls-key", help="Dask TLS: this client's private key (PEM; default: in --tls-cert)")
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
    if args.scheduler is not None and args.executor != "dask":
        raise SpecError("command line", "--scheduler", "needs --executor dask")
    try:
        res = runner_faults(
            lambda: run_experiment(
                args.experiment,
                out=args.out,
                workers=args.workers,
                executor=args.executor,
                scheduler=args.scheduler,
                force=args.force,
                quiet=args.quiet,
                max_throws=args.max_throws,
                figures=not args.no_figures,
                security=tls_files(args),
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


def tls_files(args: argparse.Namespace) -> dict[str, str] | None:
    """The --tls-* options as the runner's `security` dict (None: Dask's own configuration applies)."""
    given = {"ca_file": args.tls_ca_file, "cert": args.tls_cert, "key": args.tls_key}
    if not any(given.values()):
        return None
    flags = {"ca_file": "--tls-ca-file", "cert": "--tls-cert", "key": "--tls-key"}
    for k in ("ca_file", "cert"):
        if not given[k]:
            raise SpecError("command line", flags[k], "is needed with the other --tls options")
    for k, v in given.items():
        if v and not Path(v).is_file():
            raise SpecError("command line", flags[k], f"file not found: {v}")
    if args.executor != "dask" or not (args.scheduler or "").startswith("tls://"):
        raise SpecError(
            "command line", "--tls-ca-file", "TLS needs --executor dask --scheduler tls://HOST:PORT"
        )
    return {k: str(v) for k, v in given.items() if v}


def os_error(exc: OSError) -> str:
    """An OSError as one line naming the file (pathlib and open put it in exc.filename)."""
    if exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
