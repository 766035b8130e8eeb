"""`dfsim`: the command line. Each command group is a module with a `register(subparsers)`; errors in
the user's input are one line on stderr with exit status 2, faults of the environment exit 1."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from sim.cli import (
    bench,
    board_tools,
    calibrate,
    catalog,
    converge,
    determinism,
    doctor,
    fight,
    game,
    run,
    sensitivity,
    shots,
    studio,
    templates,
    throws,
    tune,
    validate,
    viewer,
)
from sim.cli.common import EXIT_BAD_INPUT, EXIT_FAULT, EXIT_INTERRUPTED, EXIT_NO_ANSWER, Parser
from sim.errors import ChunkFailed, NotBracketedError, SpecError, Stopped, signal_name, stop_signal
from sim.files import command_inputs

COMMAND_GROUPS = (
    throws,
    catalog,
    bench,
    calibrate,
    converge,
    determinism,
    templates,
    shots,
    run,
    viewer,
    fight,
    game,
    tune,
    doctor,
    validate,
    sensitivity,
    board_tools,
    studio,
)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, every group registered explicitly."""
    import sim

    p = Parser(
        prog="dfsim",
        description="Dungeon Fighter throw simulator",
        epilog="`dfsim COMMAND --help` explains a command; start with `dfsim run quickstart`.",
    )
    p.add_argument("--version", action="version", version=f"dfsim {sim.__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")
    for group in COMMAND_GROUPS:
        group.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit status."""
    # the CLI draws files, never windows (the library leaves the backend alone); matplotlib itself is
    # imported only by the commands that draw
    if "matplotlib" in sys.modules:
        sys.modules["matplotlib"].use("Agg")
    else:
        os.environ["MPLBACKEND"] = "Agg"
    argv = sys.argv[1:] if argv is None else list(argv)
    _one_line_warnings()
    parser = build_parser()
    if not argv:  # a first look: what the commands are
        parser.print_help()
        return 0
    try:
        args, extra = parser.parse_known_args(argv)
    except SystemExit as exc:  # a usage error (already one line on stderr) or --help: its status, returned
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    if extra:
        sys.stderr.write(f"dfsim: {split_value_hint(argv) or 'unrecognized arguments: ' + ' '.join(extra)}\n")
        return EXIT_BAD_INPUT
    empty = empty_argument(argv)
    if empty:
        sys.stderr.write(f"dfsim: command line: {empty}\n")
        return EXIT_BAD_INPUT
    try:
        with command_inputs(), _sigterm_as_ctrl_c():
            try:
                return int(args.func(args) or 0)
            finally:
                _release_native()
    except SpecError as exc:
        sys.stderr.write(f"dfsim: {exc}\n")
        return EXIT_BAD_INPUT
    except NotBracketedError as exc:  # an answer, not a mistake: one line, its own status
        sys.stderr.write(f"dfsim: {exc}\n")
        return EXIT_NO_ANSWER
    except KeyboardInterrupt as exc:
        signum = stop_signal(exc)
        sys.stderr.write(
            "dfsim: interrupted\n"
            if signum == signal.SIGINT
            else f"dfsim: stopped by {signal_name(signum)}\n"
        )
        return EXIT_INTERRUPTED - signal.SIGINT + signum
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except ChunkFailed as exc:  # a worker died or failed (its words: sim.experiments.executor): exit 1
        sys.stderr.write(f"dfsim: {exc}\n")
        return EXIT_FAULT
    except OSError as exc:  # the environment failed (a full disk, a vanished folder): one line, exit 1
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        sys.stderr.write(f"dfsim: {where}{exc.strerror or exc}\n")
        return EXIT_FAULT
    except MemoryError:
        sys.stderr.write("dfsim: out of memory\n")
        return EXIT_FAULT
    except Exception as exc:  # a fault of dfsim itself: one line (DFSIM_DEBUG=1 shows the traceback)
        if os.environ.get("DFSIM_DEBUG"):
            raise
        text = " ".join(str(exc).split())[:300]
        sys.stderr.write(
            f"dfsim: internal error ({type(exc).__name__}: {text}); set DFSIM_DEBUG=1 for the traceback\n"
        )
        return EXIT_FAULT


def _release_native() -> None:
    """Collect the command's garbage now, while the native libraries are whole: an Arrow file reader or
    batch iterator found only by the interpreter's last collection, at exit, can still hold work on
    Arrow's thread pools as they are torn down, and the process then dies by SIGABRT ("terminate called
    without an active exception") after printing its answer."""
    if "pyarrow" in sys.modules:
        import gc

        gc.collect()


class _sigterm_as_ctrl_c:
    """SIGTERM (kill, a batch system's stop) handled as Ctrl-C: one line, a run's manifest marked
    "interrupted" with its chunks kept, but exit status 143 (128 + 15, what a shell reports for a
    process SIGTERM ended; Ctrl-C gives 130); main thread only, and the old handler restored (main()
    may run inside another program)."""

    def __enter__(self) -> None:
        self._old = None
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGTERM, _raise_interrupt)

    def __exit__(self, *exc) -> None:
        if self._old is not None:
            signal.signal(signal.SIGTERM, self._old)


def _raise_interrupt(signum, frame) -> None:
    raise Stopped(signum)


def _one_line_warnings() -> None:
    """dfsim's own warnings (they start with "dfsim:", e.g. a corrupt cache entry solved again) as one
    line on stderr; any other warning as Python shows it."""
    import warnings

    default = warnings.showwarning
    if getattr(default, "dfsim_one_line", False):  # installed by an earlier main() in this process
        return

    def show(message, category, filename, lineno, file=None, line=None):
        if str(message).startswith("dfsim:"):
            sys.stderr.write(f"{message}\n")
        else:
            default(message, category, filename, lineno, file, line)

    show.dfsim_one_line = True  # type: ignore[attr-defined]
    warnings.showwarning = show


def empty_argument(argv: list[str]) -> str | None:
    """The message for an empty or blank value (`--policy ""`, `--variant=`, a "" argument): in every
    command it is a mistake (most often a shell variable that was not set), never "the default" or "all",
    which is what leaving the option out says. None when every value has something in it."""
    for i, a in enumerate(argv):
        if not a.strip():
            before = argv[i - 1] if i else ""
            if before.startswith("-") and "=" not in before:
                return f"{before}: is empty; give a value or leave the option out"
            return "an empty argument; give a value or leave it out"
        if a.startswith("--") and "=" in a and not a.partition("=")[2].strip():
            return f"{a.partition('=')[0]}: is empty; give a value or leave the option out"
    return None


def split_value_hint(argv: list[str]) -> str | None:
    """The message for a JSON value the shell split into several arguments (`--release {"a": 1}`
    unquoted): name the option and say how to quote it. None when no option value looks like that."""
    import json

    for i, a in enumerate(argv):
        if not a.startswith("--"):
            continue
        opt, eq, value = a.partition("=")
        if not eq:
            if i + 1 >= len(argv):
                continue
            value = argv[i + 1]
        if value[:1] not in ("{", "["):
            continue
        try:
            json.loads(value)
        except RecursionError:
            continue
        except json.JSONDecodeError:
            return (
                f"{opt}: its JSON value was split into several arguments by the shell ({value!r} ...): "
                f"put the whole value in single quotes, e.g. {opt} '{{\"position_mm\": [-650, 0, 100], ...}}'"
            )
    return None
