"""Experiment files: what to throw, how often, under which variants and sweep, and when to stop.

An experiment is validated completely (including every board, die, shot and skill it names and
every override path) before anything is written, so a bad file costs one line on stderr and never
leaves a half-made output folder. The resolved experiment is a list of *cells* (variant x sweep
value); each cell is one Scenario, and throw k of every cell uses the same random draw.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, ValidationError, field_validator, model_validator

from sim.errors import FieldError, SpecError, from_validation_error
from sim.hashing import json_hash
from sim.specs.base import Name, Spec
from sim.specs.datafiles import read_toml, resolve

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
RATE_SIMPLE = ("hit", "miss", "insta_kill", "cocked")
RATE_PREFIXES = ("result:", "reason:", "section:", "face:")
SETTING_KEYS = (
    "board",
    "dice",
    "shots",
    "skill",
    "rules",
    "overrides",
    "physics",
    "materials",
    "templates",
    "flip_bank",
)
MERGED_KEYS = ("rules", "overrides", "physics")  # a variant's entries are merged key by key onto the defaults
FORMAT_VERSION = 1
# Cells (variants x sweep values) of one experiment: each is validated by building its scenario before
# anything runs (~20 ms a cell), so the cap keeps `dfsim check` and a run's start within seconds.
MAX_CELLS = 200
MAX_DICE = 8  # the scenario's own limits (sim/specs/scenario.py), checked here so the error names the field
MAX_SHOTS = 8
SWEEP_BOUND = (
    1e9  # sweep values are checked against the swept setting's own range; this only keeps them finite
)

RuleValue = bool | int | float | str


def _name(v: str, what: str) -> str:
    if not NAME_RE.match(v):
        raise ValueError(
            f"{what} '{v}' must start with a letter or digit and use only letters, digits, '_', '.', '-'"
        )
    return v


def _as_list(v: Any) -> Any:
    return [v] if isinstance(v, str) else v


def _check_override_keys(d: Mapping[str, float] | None) -> None:
    for k in d or {}:
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)+$", k):
            raise ValueError(f"override '{k}' is not a dotted path like 'shot.release.distance_mm'")


class Settings(Spec):
    """What one throw is made of. In [defaults] unset keys take the built-in defaults."""

    board: Name | None = None
    dice: list[Name] | None = Field(default=None, min_length=1, max_length=MAX_DICE)
    shots: list[Name] | None = Field(default=None, min_length=1, max_length=MAX_SHOTS)
    skill: Name | None = None
    rules: dict[str, RuleValue] | None = Field(default=None, max_length=50)
    overrides: dict[str, float] | None = Field(default=None, max_length=50)
    # PhysicsSettings options (sim/specs/physics.py), merged like rules
    physics: dict[str, RuleValue] | None = Field(default=None, max_length=50)
    materials: Name | None = None  # material table: built-in name or path
    # templates on the board: laid { name, x_mm, y_mm, yaw_deg } or { name, flip = true, ... }
    # (sim/specs/template_setup.py); a variant's list replaces the defaults' list
    templates: list[Annotated[dict[str, Any], Field(max_length=20)]] | None = Field(
        default=None, max_length=20
    )
    # flips kept in the flip bank of a scenario with flipped templates (sim/engine/flip_bank.py;
    # unset: the default size, 0: flip afresh before every throw); checked by the scenario
    flip_bank: Any = None

    _list = field_validator("dice", "shots", mode="before")(_as_list)

    @field_validator("overrides")
    @classmethod
    def _paths(cls, v):
        _check_override_keys(v)
        return v

    @field_validator("board", "skill")
    @classmethod
    def _nonempty(cls, v):
        if v is not None and not v.strip():
            raise ValueError("must not be empty")
        return v


class Variant(Settings):
    """A named change to the defaults; `rules`, `overrides` and `physics` are merged key by key onto them."""

    name: str = Field(max_length=100)
    description: str = ""

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return _name(v, "variant name")


SweepValue = Annotated[float, Field(ge=-SWEEP_BOUND, le=SWEEP_BOUND)]


class Sweep(Spec):
    """A grid over one numeric setting (a dotted override path), given as values or start/stop/num."""

    setting: str = Field(max_length=200)
    values: list[SweepValue] | None = Field(default=None, min_length=1, max_length=1000)
    start: SweepValue | None = None
    stop: SweepValue | None = None
    num: int | None = Field(default=None, ge=2, le=1000)

    @field_validator("setting")
    @classmethod
    def _path(cls, v: str) -> str:
        _check_override_keys({v: 0.0})
        return v

    @field_validator("values")
    @classmethod
    def _finite_unique(cls, v):
        if v is not None:
            if any(not math.isfinite(x) for x in v):
                raise ValueError("values must be finite numbers")
            if len(set(v)) != len(v):
                raise ValueError("values must not repeat")
        return v

    @model_validator(mode="after")
    def _one_form(self) -> Sweep:
        grid = (self.start, self.stop, self.num)
        if self.values is not None and any(g is not None for g in grid):
            raise ValueError("give either values or start/stop/num, not both")
        if self.values is None:
            missing = [k for k, g in zip(("start", "stop", "num"), grid, strict=True) if g is None]
            if missing:
                raise ValueError(f"give values, or all of start, stop and num (missing {', '.join(missing)})")
            if self.start == self.stop:
                raise ValueError("start and stop must differ")
        return self

    def grid(self) -> list[float]:
        """The swept values: the explicit list, else `num` evenly spaced values from start to stop
        inclusive."""
        if self.values is not None:
            return [float(v) for v in self.values]
        return [float(v) for v in np.linspace(self.start, self.stop, self.num)]


class StopRule(Spec):
    """Throw until the 95 % interval on `rate` is at most `width` wide in every cell (or max_throws)."""

    rate: str = "hit"
    width: float = Field(gt=0, lt=1)
    max_throws: int = Field(ge=1, le=100_000_000)

    @field_validator("rate")
    @classmethod
    def _rate(cls, v: str) -> str:
        if v in RATE_SIMPLE:
            return v
        for p in RATE_PREFIXES:
            if v.startswith(p) and len(v) > len(p):
                return v
        raise ValueError(
            f"unknown rate '{v}' (use {', '.join(RATE_SIMPLE)}, or result:X, reason:X, section:X, face:X)"
        )

    def board_problem(self, board: Any, cell: str) -> str | None:
        """What is wrong with a `section:X` rate on the board a cell throws at (None if nothing): a section
        the board does not have would count no throw, and the rule would never stop before max_throws."""
        kind, _, value = self.rate.partition(":")
        if kind != "section":
            return None
        if board is None:
            return (
                f"names section '{value}', but cell '{cell}' throws on the open table (no board, no sections)"
            )
        ids = [s.id for s in board.sections]
        if value in ids:
            return None
        return (
            f"board '{board.name}' of cell '{cell}' has no section '{value}' "
            f"(sections: {', '.join(ids) or 'none'})"
        )


class ExperimentSpec(Spec):
    """The whole experiment file."""

    name: str = Field(max_length=200)
    description: str = ""
    seed: int = Field(ge=0, le=2**63 - 1)
    throws: int = Field(ge=1, le=100_000_000)
    chunk_throws: int = Field(default=100, ge=1, le=100_000)
    confidence: float = Field(default=0.95, gt=0.5, lt=1)
    defaults: Settings = Settings()
    variants: list[Variant] = Field(default_factory=list, max_length=MAX_CELLS)
    sweep: Sweep | None = None
    stop: StopRule | None = None
    # extra record columns, opt-in so that existing experiments keep their records bit for bit:
    # "effects" (the outcome's effects joined by ';': template, prop and special-die effects)
    record: list[Literal["effects"]] | None = Field(default=None, min_length=1, max_length=10)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return _name(v, "experiment name")

    @model_validator(mode="after")
    def _check(self) -> ExperimentSpec:
        seen: set[str] = set()
        for i, v in enumerate(self.variants):
            if v.name in seen:
                raise FieldError(f"variants.{i}.name", f"duplicate variant name '{v.name}'")
            seen.add(v.name)
        if self.stop is not None and self.stop.max_throws < self.throws:
            raise FieldError(
                "stop.max_throws",
                f"must be at least throws ({self.throws}), the minimum before the rule is checked",
            )
        n_variants = max(1, len(self.variants))
        n_values = (
            len(self.sweep.values)
            if self.sweep and self.sweep.values
            else (self.sweep.num if self.sweep else 1)
        )
        if n_variants * (n_values or 1) > MAX_CELLS:
            raise FieldError(
                "sweep" if self.sweep else "variants",
                f"{n_variants} variant(s) x {n_values} sweep value(s) = {n_variants * (n_values or 1)} "
                "cells; "
                f"an experiment has at most {MAX_CELLS} cells (split it into several experiments)",
            )
        return self


# ----------------------------------------------------------------------------------------------
# resolution


@dataclass(frozen=True)
class Cell:
    """One variant at one sweep value: a fully resolved scenario and its inputs."""

    index: int
    name: str
    variant: str
    sweep_value: float | None
    inputs: dict[str, Any]  # keyword arguments of Scenario.build
    key: str  # the scenario's stable hash
    description: dict[str, Any] = field(repr=False, default_factory=dict)


@dataclass(frozen=True)
class Experiment:
    """A validated experiment with its cells and the hash that identifies its records."""

    spec: ExperimentSpec
    source: str
    cells: list[Cell]
    hash: str

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def throws(self) -> int:
        """Throws per cell without a stopping rule; the minimum per cell with one."""
        return self.spec.throws

    @property
    def max_throws(self) -> int:
        return self.spec.stop.max_throws if self.spec.stop else self.spec.throws

    @property
    def variant_names(self) -> list[str]:
        return list(dict.fromkeys(c.variant for c in self.cells))

    def resolved(self) -> dict[str, Any]:
        """JSON-able copy of everything the records depend on (written as experiment.resolved.json)."""
        return {
            "format": FORMAT_VERSION,
            "hash": self.hash,
            "source": self.source,
            "experiment": _unset_bank_left_out(
                self.spec.model_dump(mode="json", exclude={"record"} if self.spec.record is None else None)
            ),
            "cells": [
                {
                    "index": c.index,
                    "name": c.name,
                    "variant": c.variant,
                    "sweep_value": c.sweep_value,
                    "inputs": c.inputs,
                    "scenario_key": c.key,
                    "scenario": c.description,
                }
                for c in self.cells
            ],
        }


def _unset_bank_left_out(dumped: dict[str, Any]) -> dict[str, Any]:
    """An experiment's dump without `flip_bank` where it is unset: what files without it wrote before."""
    for settings in [dumped.get("defaults") or {}, *(dumped.get("variants") or [])]:
        if settings.get("flip_bank", 0) is None:
            settings.pop("flip_bank")
    return dumped


def _merge(defaults: Settings, variant: Settings | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in SETTING_KEYS:
        base = getattr(defaults, k)
        over = getattr(variant, k) if variant is not None else None
        if k in MERGED_KEYS:
            merged = dict(base or {})
            merged.update(over or {})
            out[k] = merged
        else:
            out[k] = over if over is not None else base
    return out


def _localise(value: Any, base_dir: Path | None) -> Any:
    """A relative file path in an experiment is relative to the experiment file's folder."""
    if base_dir is None or not isinstance(value, str):
        return value
    looks_like_path = value.endswith(".toml") or "/" in value or "\\" in value
    if looks_like_path and not Path(value).is_absolute():
        candidate = base_dir / value
        if candidate.is_file():
            return str(candidate.resolve())
    return value


def _scenario_inputs(settings: dict[str, Any], base_dir: Path | None) -> dict[str, Any]:
    inputs: dict[str, Any] = {}
    for k, v in settings.items():
        if v is None:
            continue
        if k in ("dice", "shots"):
            v = [_localise(x, base_dir) for x in v]
        elif k in ("board", "skill", "materials"):
            v = _localise(v, base_dir)
        inputs[k] = v
    return inputs


_KINDS = {"board": "board", "skill": "skill", "dice": "die", "shots": "shot", "materials": "material"}
_SETTING_PROBLEMS = ("unknown key", "unknown component", "is not a table", "dotted path")


def _check_names(inputs: dict[str, Any], source: str, origin: str) -> None:
    """Every board/die/shot/skill named in a cell exists (the error names the experiment field)."""
    for key, kind in _KINDS.items():
        values = inputs.get(key)
        if values is None:
            continue
        for v in values if isinstance(values, list) else [values]:
            try:
                resolve(kind, v)
            except SpecError as exc:
                problem = exc.problem if exc.problem != "file not found" else f"file not found: {v}"
                raise SpecError(source, f"{origin}.{key}", problem) from None


def _validate_variant(
    scenario_cls, inputs: dict[str, Any], source: str, origin: str, variant: Settings | None = None
) -> None:
    """Build the cell piece by piece so an error is blamed on the field that caused it: in the variant's
    own table, or in [defaults] when the variant does not set that key."""

    def where(key: str, sub: str = "") -> str:
        own = getattr(variant, key, None) if variant is not None else None
        from_variant = own is not None and (
            key not in MERGED_KEYS or not sub or sub.split(".")[0] in own or sub in own
        )
        return origin if from_variant or variant is None else "defaults"

    _check_names(inputs, source, origin)
    base = {k: v for k, v in inputs.items() if k != "overrides"}
    try:
        scenario_cls.build(**base, source=source)
    except SpecError as exc:
        if exc.source.startswith(f"{source} (") and exc.source.endswith(")"):  # e.g. "<file> (rules)"
            part = exc.source[len(source) + 2 : -1]
            key = part.split(".")[0]
            at = where(key, exc.field)
            raise SpecError(
                source, f"{at}.{part}.{exc.field}" if exc.field else f"{at}.{part}", exc.problem
            ) from None
        if exc.source == source:
            at = where(exc.field.split(".")[0]) if exc.field else origin
            raise SpecError(source, f"{at}.{exc.field}" if exc.field else origin, exc.problem) from None
        raise  # a data file (board, die...) is itself wrong: its own file and field
    for k, v in (inputs.get("overrides") or {}).items():
        try:
            scenario_cls.build(**base, overrides={k: v}, source=source)
        except SpecError as exc:
            raise SpecError(source, f"{where('overrides', k)}.overrides.{k}", exc.problem) from None


def load_experiment(path_or_name: str | Path) -> tuple[ExperimentSpec, str]:
    """Read and validate an experiment file (by path, or a built-in experiment by name)."""
    path = resolve("experiment", path_or_name)
    data = read_toml(path)
    return parse_experiment(data, str(path)), str(path)


def parse_experiment(data: Mapping[str, Any], source: str = "<experiment>") -> ExperimentSpec:
    """Validate an experiment table; any problem raises one SpecError naming the field."""
    if not isinstance(data, Mapping):
        raise SpecError(source, "", "expected a table of keys and values")
    data = dict(data)
    if data.get("kind") == "experiment":
        data.pop("kind")
    try:
        return ExperimentSpec.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(source, exc, data=data) from None


def _hash(obj: Any) -> str:
    return json_hash(obj, compact=True)


def resolve_experiment(
    spec: ExperimentSpec | Mapping[str, Any] | str | Path,
    source: str | None = None,
    max_throws: int | None = None,
) -> Experiment:
    """Validate an experiment fully and build one Scenario per cell (variant x sweep value).

    `max_throws` caps the throws per cell (both `throws` and `stop.max_throws`): a cheap preview
    of the same experiment. It changes the records, so it is part of the experiment hash.
    """
    from sim.specs.scenario import Scenario  # the engine; imported late so specs load without PyBullet

    if isinstance(spec, (str, Path)):
        spec, source = load_experiment(spec)
    elif not isinstance(spec, ExperimentSpec):
        spec = parse_experiment(spec, source or "<experiment>")
    source = source or "<experiment>"
    if max_throws is not None:
        if max_throws < 1:
            raise SpecError(source, "max_throws", "must be at least 1")
        upd: dict[str, Any] = {"throws": min(spec.throws, max_throws)}
        if spec.stop is not None:
            upd["stop"] = spec.stop.model_copy(update={"max_throws": min(spec.stop.max_throws, max_throws)})
        spec = spec.model_copy(update=upd)
    base_dir = Path(source).resolve().parent if Path(source).is_file() else None

    variants: list[tuple[str, str, Settings | None]] = [
        (v.name, f"variants.{i}", v) for i, v in enumerate(spec.variants)
    ] or [("default", "defaults", None)]
    sweep_values: list[float | None] = spec.sweep.grid() if spec.sweep else [None]

    cells: list[Cell] = []
    for vname, origin, vsettings in variants:
        settings = _merge(spec.defaults, vsettings)
        base_inputs = _scenario_inputs(settings, base_dir)
        _check_names(base_inputs, source, origin)
        for value in sweep_values:
            inputs = dict(base_inputs)
            if value is not None:
                inputs["overrides"] = {**inputs.get("overrides", {}), spec.sweep.setting: value}
            try:
                sc = Scenario.build(**inputs, source=source)
            except SpecError as exc:
                # one build per cell while all is well; on an error, find the field to blame
                _validate_variant(Scenario, base_inputs, source, origin, vsettings)
                if value is None:
                    raise SpecError(source, f"{origin}.overrides", exc.problem) from None
                bad_setting = any(p in exc.problem for p in _SETTING_PROBLEMS)
                raise SpecError(
                    source,
                    "sweep.setting" if bad_setting else "sweep.values",
                    f"{exc.problem} (at {spec.sweep.setting} = {value:g})",
                ) from None
            name = vname if value is None else f"{vname}@{value:g}"
            problem = spec.stop.board_problem(sc.board, name) if spec.stop is not None else None
            if problem:
                raise SpecError(source, "stop.rate", problem)
            cells.append(
                Cell(
                    index=len(cells),
                    name=name,
                    variant=vname,
                    sweep_value=value,
                    inputs=inputs,
                    key=sc.key,
                    description=sc.describe(),
                )
            )
    ident = {
        "format": FORMAT_VERSION,
        "seed": spec.seed,
        "throws": spec.throws,
        "chunk_throws": spec.chunk_throws,
        "stop": spec.stop.model_dump(mode="json") if spec.stop else None,
        "cells": [(c.name, c.key) for c in cells],
    }
    if spec.record:  # only when set: the hashes of experiments without it do not move
        ident["record"] = sorted(set(spec.record))
    return Experiment(spec=spec, source=source, cells=cells, hash=_hash(ident))


# the pieces other experiment kinds share with throw experiments (FieldError:
# sim.errors, imported above)
Model = Spec
check_name = _name
localise = _localise
