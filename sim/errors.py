"""Every error type of the project, in one place, so a caller sees what can go wrong and the CLI can
map each to one line and its exit status.

`SpecError` is every bad input (exit 2); the others are a broken contract or an interrupted run, each
raised by one layer and reported by the CLI in its own words."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


class SpecError(ValueError):
    """A data file, name or value is wrong; the message names file, field and problem."""

    def __init__(self, source: str | Path, field: str, problem: str) -> None:
        self.source = str(source)
        self.field = _one_line(field, 160)
        self.problem = _one_line(problem, 300)
        where = _one_line(self.source, 300)
        super().__init__(f"{where}: {self.field}: {self.problem}" if field else f"{where}: {self.problem}")


class DuplicateKey(ValueError):
    """A JSON object names one key twice: which value was meant cannot be told (a JSON reader keeps the
    last one silently), so dfsim refuses it, as tomllib refuses a TOML key given twice."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the key '{key[:60]}' is given twice")
        self.key = key


class FieldError(ValueError):
    """Raised inside a validator that knows the exact field it is about, relative to the model (or
    field) being validated: pydantic alone would blame the model as a whole."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field
        self.problem = problem


class NotBracketedError(Exception):
    """The target rate is not inside the response over the given range: an answer (no value in the range
    gives the target), not bad input, so not a SpecError: one line, exit status 3 (`EXIT_NO_ANSWER`),
    worded as a SpecError is (`source: field: problem`)."""

    def __init__(self, source: str | Path, field: str, problem: str) -> None:
        self.source = str(source)
        self.field = _one_line(field, 160)
        self.problem = _one_line(problem, 600)
        where = _one_line(self.source, 300)
        super().__init__(f"{where}: {self.field}: {self.problem}" if field else f"{where}: {self.problem}")


class UncoveredThrow(LookupError):
    """No recorded table matches a throw request (record that scenario)."""


class NondeterminismError(AssertionError):
    """Two runs of the same throw differ."""


class ReplayMismatch(RuntimeError):
    """A replayed throw did not end as its record says."""


class FightError(RuntimeError):
    """The policy or the throw source broke the contract (an option not offered, endless voids)."""


class ChunkFailed(RuntimeError):
    """A worker raised while running a chunk (a bug, or a worker that died): `reason` is the worker's
    side of it alone (no chunk or cell), `task` the task that failed, when known, so that a caller
    (the throw bank's recorder) can tell it in its own words."""

    def __init__(self, message: str, task: Any = None, reason: str | None = None) -> None:
        super().__init__(message)
        self.task = task
        self.reason = reason if reason is not None else message


class Interrupted(Exception):
    """The run was stopped (Ctrl-C, or a stop signal such as SIGTERM: `signum`) with finished chunks
    kept on disk."""

    def __init__(self, out: Path, chunks: int, throws: int, signum: int = 2) -> None:
        how = "interrupted" if signum == 2 else f"stopped by {signal_name(signum)}"
        super().__init__(
            f"{how}: kept {chunks} finished chunks ({throws} throws) in {out}; "
            "run the same command again to resume"
        )
        self.out = out
        self.signum = signum


def _clean_loc(loc: Sequence[Any], data: Any, missing_last: bool = True) -> list[str]:
    """The part of a pydantic error location that names keys of the input: pydantic inserts its own steps
    (a union member such as 'annulus' or 'list[str]', a validator wrapper) that the user never wrote."""
    out: list[str] = []
    cur = data
    for i, p in enumerate(loc):
        last = missing_last and i == len(loc) - 1
        if isinstance(cur, dict) and p in cur:
            out.append(str(p))
            cur = cur[p]
        elif isinstance(cur, (list, tuple)) and isinstance(p, int) and 0 <= p < len(cur):
            out.append(str(p))
            cur = cur[p]
        elif last and isinstance(cur, dict) and isinstance(p, str) and not p.startswith("function-"):
            out.append(p)  # a missing required key
    return out


def from_validation_error(
    source: str | Path, exc: Exception, prefix: str = "", data: Any = None
) -> SpecError:
    """Turn a pydantic ValidationError into a SpecError about its first problem (`data`, the validated
    input, lets the field be named exactly as it is spelled in the file)."""
    errors = getattr(exc, "errors", None)
    if errors is None:
        return SpecError(source, prefix, str(exc))
    first = errors()[0]
    raw_loc = first.get("loc", ())
    ctx_err = (first.get("ctx") or {}).get("error")
    if data is not None:
        loc = _clean_loc(raw_loc, data, missing_last=not isinstance(ctx_err, FieldError))
    else:
        loc = [str(p) for p in raw_loc if not str(p).startswith("function-")]
    msg = first.get("msg", "invalid value")
    if first.get("type") == "missing" and len(raw_loc) > len(loc) and isinstance(raw_loc[-1], int):
        msg = f"too few values (item {raw_loc[-1]} is missing)"
    if isinstance(ctx_err, FieldError):
        loc = [*loc, ctx_err.field] if ctx_err.field else loc
        msg = ctx_err.problem
    field = ".".join(x for x in (prefix, *loc) if x)
    msg = msg.removeprefix("Value error, ")
    if first.get("type") == "extra_forbidden":
        msg = "unknown key"
    return SpecError(source, field, msg)


def _one_line(text: str, limit: int) -> str:
    """One line, and short: a message may quote the offending value or key, which can be huge or hold
    line breaks."""
    text = str(text)
    if len(text.splitlines()) > 1:
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Stopped(KeyboardInterrupt):
    """A stop signal (SIGTERM from `kill` or a batch system) raised where Ctrl-C's KeyboardInterrupt
    would be, so every cleanup that handles Ctrl-C (a run's manifest marked "interrupted", finished
    chunks kept) handles it too; `signum` gives the shell's exit status, 128 + signum."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = int(signum)


def stop_signal(exc: BaseException) -> int:
    """The signal number behind an interruption: SIGINT (2) for Ctrl-C, else the Stopped signal."""
    return exc.signum if isinstance(exc, Stopped) else 2


def signal_name(signum: int) -> str:
    """SIGTERM, SIGINT, ... (the number when the platform has no name for it)."""
    import signal

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class PluginError(RuntimeError):
    """An entry point of the "dfsim.plugins" group that does not hold a sim.plugins.Plugin (a broken
    or stale install: reinstall the package)."""


class ApiError(Exception):
    """A request the studio refuses (sim/studio): an HTTP status and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Cancelled(Exception):
    """A studio job cancelled between two batches (the user moved on)."""
