"""One error type for every bad input, so the CLI can print one line and exit 2."""

from __future__ import annotations

from pathlib import Path


class SpecError(ValueError):
    """A data file, name or value is wrong; the message names file, field and problem."""

    def __init__(self, source: str | Path, field: str, problem: str) -> None:
        self.source = str(source)
        self.field = field
        self.problem = problem
        super().__init__(f"{self.source}: {field}: {problem}" if field else f"{self.source}: {problem}")


def from_validation_error(source: str | Path, exc: Exception, prefix: str = "") -> SpecError:
    """Turn a pydantic ValidationError into a SpecError about its first problem."""
    errors = getattr(exc, "errors", None)
    if errors is None:
        return SpecError(source, prefix, str(exc))
    first = errors()[0]
    loc = ".".join(str(p) for p in first.get("loc", ()) if p not in ("function-after", "function-before"))
    field = ".".join(x for x in (prefix, loc) if x)
    msg = first.get("msg", "invalid value")
    msg = msg.removeprefix("Value error, ")
    if first.get("type") == "extra_forbidden":
        msg = "unknown key"
    return SpecError(source, field, msg)
