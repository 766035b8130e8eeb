"""What the packages built on the throw core add to it: their data kinds and experiment kinds.

Why a declaration read through entry points: the core (specs, rules, world, engine, viewer,
experiments) must not know its clients, so that fights and games (and a user's own package) can be
added without editing it, and a throw experiment imports no fight or game code. A package declares
one `Plugin` in its light `__init__` and names it in pyproject.toml under the entry point group
`dfsim.plugins`; the core's registries (sim/specs/datafiles.py, sim/specs/catalog.py,
sim/experiments/kinds.py) read the declarations on first use. Each spec class and kind object is
named as "module:attribute" and imported only when used.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points

from sim.errors import PluginError

GROUP = "dfsim.plugins"


@dataclass(frozen=True)
class DataKind:
    """A kind of data file: `kind = "name"` in a file, its built-in folder (the data package `top`
    and its `sub`-folder), its spec class, the folder name that tells it, and the keys that tell it
    when a file names no kind (checked in `tell_order`, lower first; the core's tells use 10-90)."""

    name: str
    top: str
    spec_class: str  # "module:Class"
    folder: str
    tells: tuple[str, ...] = ()
    tell_order: int = 50
    sub: str = ""


@dataclass(frozen=True)
class ExperimentKindEntry:
    """An experiment kind: its registry name, the top-level key marking its files, its object."""

    name: str
    marker: str
    entry_point: str  # "module:attribute" of an object following sim.experiments.kind's protocol
    unit: str  # one record (or game) of it: "fight", "game"
    # the command-line caps its files take besides "max_throws" (which a kind that throws takes too):
    # (name, help), e.g. ("max_fights", "cap fights per variant"); `dfsim run --max-fights` follows
    caps: tuple[tuple[str, str], ...] = ()
    throws: bool = False  # it throws (so it takes "max_throws")
    # the figures its runs draw into a run folder's figures/ (stems: "win_rate" for win_rate.png and its
    # further pages win_rate-2.png ...), so that `--force` may replace them
    figures: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plugin:
    """Everything one package adds to the core."""

    name: str
    data_kinds: tuple[DataKind, ...] = ()
    experiment_kinds: tuple[ExperimentKindEntry, ...] = ()


@cache
def plugins() -> tuple[Plugin, ...]:
    """Every installed package's declaration, sorted by name (so registries are built in one order)."""
    found = []
    for ep in entry_points(group=GROUP):
        obj = ep.load()
        if not isinstance(obj, Plugin):
            raise PluginError(f"entry point {ep.name} = {ep.value} of {GROUP} is not a sim.plugins.Plugin")
        found.append(obj)
    if not found:  # dfsim itself declares fights and games: none at all is an install from before them
        raise PluginError(
            f"no {GROUP} entry points are installed (fights and games declare theirs): reinstall dfsim, "
            "e.g. pip install --no-deps -e ."
        )
    return tuple(sorted(found, key=lambda p: p.name))


def data_kinds() -> tuple[DataKind, ...]:
    """Every declared data kind, in plugin order."""
    return tuple(k for p in plugins() for k in p.data_kinds)


def experiment_kinds() -> tuple[ExperimentKindEntry, ...]:
    """Every declared experiment kind, in plugin order."""
    return tuple(k for p in plugins() for k in p.experiment_kinds)


def cap_options() -> list[tuple[str, str]]:
    """The caps the kinds declare besides "max_throws", (name, help): `dfsim run`'s options, read
    without importing any kind (a command's help stays light)."""
    return [c for d in experiment_kinds() for c in d.caps]
