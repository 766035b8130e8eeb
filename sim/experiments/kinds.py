"""The one table of experiment kinds, and reading any experiment file through it.

A file's kind is told by a top-level key (a package built on the core declares its kinds and their
keys: sim/plugins.py); a file with none is a throw experiment.
`dfsim run`, `dfsim check` and the runner ask this table and the kind it returns, never which kind
it is. Each entry names its kind's object as "module:attribute", imported on first use (as
Gymnasium's registry does): reading a throw experiment imports no other kind's code, and a kind
may itself use the runner (to record the throws it plays from) without an import cycle. Adding a
kind: a module with a class following sim.experiments.kind's protocol, declared in its package's
`sim.plugins.Plugin`.
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim import plugins
from sim.errors import SpecError
from sim.experiments.kind import Caps, ExperimentKind
from sim.specs.datafiles import read_toml, resolve


@dataclass
class Entry:
    """One row of the table: the kind's name, the key marking its files, where its object is."""

    name: str
    marker: str | None  # None: the default kind (a file with no other kind's marker)
    entry_point: str  # "module:attribute" of an object following ExperimentKind
    unit: str = "throw"
    caps: tuple[str, ...] = ("max_throws",)  # the caps its files take (Caps)
    _kind: ExperimentKind | None = field(default=None, repr=False)

    def load(self) -> ExperimentKind:
        """The kind's object (imported once); it must follow the protocol and carry this entry's name."""
        if self._kind is None:
            module, _, attr = self.entry_point.partition(":")
            kind = getattr(importlib.import_module(module), attr)
            if not isinstance(kind, ExperimentKind) or kind.name != self.name:
                raise TypeError(f"{self.entry_point} is not the experiment kind '{self.name}'")
            self._kind = kind
        return self._kind


KINDS: dict[str, Entry] = {}
NO_CAPS = Caps()


def register(
    name: str,
    marker: str | None,
    entry_point: str,
    unit: str = "throw",
    caps: tuple[str, ...] = ("max_throws",),
) -> None:
    """Add a kind to the table; its name and its marker key must be its own."""
    if name in KINDS:
        raise ValueError(f"experiment kind '{name}' is registered twice")
    clash = next((e.name for e in KINDS.values() if e.marker == marker), None)
    if clash is not None:
        raise ValueError(f"experiment kinds '{clash}' and '{name}' are both marked by {marker!r}")
    KINDS[name] = Entry(name, marker, entry_point, unit, caps)


register("throws", None, "sim.experiments.throw_experiment:THROWS")
for _declared in plugins.experiment_kinds():  # the packages built on the core (sim/plugins.py)
    _caps = (("max_throws",) if _declared.throws else ()) + tuple(c for c, _ in _declared.caps)
    register(_declared.name, _declared.marker, _declared.entry_point, _declared.unit, _caps)


def refuse_other_caps(kind: ExperimentKind, caps: Caps, source: str | None) -> None:
    """A cap the experiment's kind does not take is a SpecError naming the kinds that take it."""
    entry = KINDS[kind.name]
    for name in sorted(caps.values):
        if name not in entry.caps:
            takers = sorted({e.unit for e in KINDS.values() if name in e.caps}) or ["no"]
            why = f"applies to {' and '.join(takers)} experiments only"
            raise SpecError(source or "<experiment>", name, why)


def kind_of(data: Mapping[str, Any]) -> ExperimentKind:
    """The kind an experiment file's contents are: the one whose marker key they have, else the default."""
    for entry in KINDS.values():
        if entry.marker is not None and entry.marker in data:
            return entry.load()
    return next(e for e in KINDS.values() if e.marker is None).load()


def read(path_or_name: str | Path) -> tuple[ExperimentKind, Any, str]:
    """Read and validate an experiment file of any kind (a path, or a built-in experiment by name):
    its kind, its spec and the file it came from."""
    path = resolve("experiment", path_or_name)
    data = read_toml(path)
    kind = kind_of(data)
    return kind, kind.parse(data, str(path)), str(path)


def resolve_any(
    target: Any, source: str | None = None, caps: Caps = NO_CAPS, variants: Sequence[str] | None = None
) -> tuple[ExperimentKind, Any]:
    """An experiment of any kind validated fully (a path, a built-in name, a parsed spec or the plain
    contents of a file), with its kind; `variants`: keep only the variants whose names match one of
    these shell patterns."""
    if isinstance(target, (str, Path)):
        kind, spec, source = read(target)
    elif isinstance(target, Mapping):
        kind = kind_of(target)
        spec = kind.parse(target, source or "<experiment>")
    else:
        found = [k for k in (e.load() for e in KINDS.values()) if isinstance(target, k.spec_type)]
        if not found:
            raise TypeError(f"not an experiment: {type(target).__name__}")
        kind, spec = found[0], target
    if variants is not None:
        spec = select_variants(spec, variants, source or "<experiment>")
    refuse_other_caps(kind, caps, source)
    return kind, kind.resolve(spec, source, caps)


def select_variants(spec: Any, patterns: Sequence[str], source: str) -> Any:
    """The experiment with only the variants named by these shell patterns (`firewall-*`), in file order:
    a smaller experiment of its own (its own hash), for a look at a few variants of a large file."""
    keep = selected([v.name for v in spec.variants], patterns, "--variants", "variant", source)
    kept = [v for v, k in zip(spec.variants, keep) if k]
    return spec.model_copy(update={"variants": kept})


def selected(names: Sequence[str], patterns: Sequence[str], flag: str, what: str, source: str) -> list[bool]:
    """Which of `names` these shell patterns name (a command line's `flag`, choosing `what`s of `source`).
    A pattern that names nothing is refused, so a typo never runs an empty or a wrong selection."""
    if not names:
        raise SpecError("command line", flag, f"{source} has no {what}s to choose from")
    for pat in patterns:
        if not pat or not any(fnmatch.fnmatchcase(n, pat) for n in names):
            raise SpecError(
                "command line",
                flag,
                f"'{pat}' names no {what} of {source} (it has: {', '.join(names[:8])}"
                f"{', ...' if len(names) > 8 else ''})",
            )
    return [any(fnmatch.fnmatchcase(n, pat) for pat in patterns) for n in names]
