"""`dfsim`: the command line. Each command group is a module with a `register(subparsers)`; errors in
the user's input are one line on stderr with exit status 2, faults of the environment exit 1."""

from __future__ import annotations

import argparse
import os
import sys

from sim.cli import (
    bench,
    catalog,
    converge,
    determinism,
    doctor,
    fight,
    run,
    shots,
    templates,
    throws,
    viewer,
)
from sim.cli.common import EXIT_BAD_INPUT, EXIT_INTERRUPTED, Parser
from sim.errors import SpecError

COMMAND_GROUPS = (throws, catalog, bench, converge, determinism, templates, shots, run, viewer, fight, doctor)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, every group registered explicitly."""
    p = Parser(prog="dfsim", description="Dungeon Fighter throw simulator")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for group in COMMAND_GROUPS:
        group.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit status."""
    import matplotlib

    matplotlib.use("Agg")  # the CLI draws files, never windows; the library leaves the backend alone
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except SpecError as exc:
        sys.stderr.write(f"dfsim: {exc}\n")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        sys.stderr.write("dfsim: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
