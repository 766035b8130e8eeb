"""Fight experiments: one fight file played many times per variant, its throws drawn from the records
of a throw experiment.

A fight experiment is an experiment file with a `fight` key instead of throw settings::

    name = "house-rules"
    fight = "reference"                 # a fight file: built-in name or path (relative to this file)
    engine = "resample"                 # throws are drawn from recorded throws (the only engine so far)
    throws_from = "house-rules-throws"  # a throw experiment (run first when its results are missing)
                                        # or the folder of a finished `dfsim run`
    seed = 1
    fights = 2000                       # fights per cell
    [defaults]                          # fight settings; every variant starts from them
    difficulty = "normal"
    [[variants]]
    name = "hard"
    difficulty = "hard"

Why this shape: the fight engine is pure and the resampling source draws throw k of fight f from
(seed, f, k) alone, so a chunk of fights is a pure function of (cell, fight range) exactly like a
chunk of throws, and the throw experiments' runner, executors and store carry it unchanged. Fight f
of every variant uses the same random streams (common random numbers), so variants are compared on
paired fights. Everything, including whether the recorded throws cover every throw each variant's
fight can ask for, is checked before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from sim.engine.run_folder import MANIFEST, RESOLVED
from sim.errors import SpecError, from_validation_error
from sim.experiments.spec import (
    Experiment,
    FieldError,
    Model,
    check_name,
    localise,
    parse_experiment,
    resolve_experiment,
)
from sim.hashing import json_hash
from sim.specs.datafiles import read_toml, resolve

FIGHT_FORMAT = 1
FightValue = bool | int | float | str
# experiment setting -> the fight file's dotted key it sets
NAMED_SETTINGS = {"difficulty": "difficulty", "skill": "throws.skill", "policy": "policy"}


class FightSettings(Model):
    """What a fight variant changes in the fight file. In [defaults] unset keys keep the file's values."""

    difficulty: Literal["normal", "hard", "inferno"] | None = None
    skill: str | None = None  # the fight's [throws] skill: every hero without a skill of their own
    policy: str | None = None  # a named policy (sim.fights.policy.POLICIES)
    house_rules: dict[str, FightValue] | None = None  # [house_rules] options, merged key by key
    set: dict[str, FightValue] | None = None  # any dotted key of the fight file, merged key by key

    @field_validator("skill", "policy")
    @classmethod
    def _nonempty(cls, v):
        if v is not None and not v.strip():
            raise ValueError("must not be empty")
        return v

    @field_validator("set")
    @classmethod
    def _paths(cls, v):
        for k in v or {}:
            if not k or any(not p for p in k.split(".")):
                raise ValueError(f"'{k}' is not a dotted key of the fight file like 'party.white_dice'")
            if k.split(".")[0] in ("difficulty", "policy", "house_rules") or k == "throws.skill":
                raise ValueError(f"'{k}' has its own setting (difficulty, skill, policy, house_rules)")
        return v


class FightVariant(FightSettings):
    """One `[[variants]]` entry: a name and the settings it lays over `[defaults]`, key by key."""

    name: str
    description: str = ""

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return check_name(v, "variant name")


class FightExperimentSpec(Model):
    """The whole fight experiment file."""

    name: str
    description: str = ""
    fight: str = Field(min_length=1)
    engine: Literal["resample"]
    throws_from: str = Field(min_length=1)
    seed: int = Field(ge=0, le=2**63 - 1)
    fights: int = Field(ge=1, le=10_000_000)
    chunk_fights: int = Field(default=500, ge=1, le=100_000)
    confidence: float = Field(default=0.95, gt=0.5, lt=1)
    baseline: str | None = None  # the variant differences are taken against (default: the first)
    curves: list[str] | None = Field(default=None, min_length=1, max_length=10)  # variants drawn as lines
    defaults: FightSettings = FightSettings()
    variants: list[FightVariant] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return check_name(v, "experiment name")

    @model_validator(mode="after")
    def _check(self) -> FightExperimentSpec:
        names = [v.name for v in self.variants]
        for i, n in enumerate(names):
            if n in names[:i]:
                raise FieldError(f"variants.{i}.name", f"duplicate variant name '{n}'")
        if self.baseline is not None and self.baseline not in (names or ["default"]):
            raise FieldError("baseline", f"no variant named '{self.baseline}' (variants: {', '.join(names)})")
        for i, c in enumerate(self.curves or []):
            if c not in (names or ["default"]):
                raise FieldError(f"curves.{i}", f"no variant named '{c}' (variants: {', '.join(names)})")
        return self


@dataclass(frozen=True)
class FightCell:
    """One variant: the fight file with the variant's settings, validated and keyed."""

    index: int
    name: str
    variant: str
    overrides: dict[str, Any]  # dotted fight-file keys -> values (load_fight's overrides)
    key: str  # hash of the resolved fight
    description: dict[str, Any] = field(repr=False, default_factory=dict)
    sweep_value: None = None  # (fight experiments have no sweep; the store's code reads the field)

    @property
    def label(self) -> str:
        return self.name


@dataclass(frozen=True)
class FightExperiment:
    """A validated fight experiment: its cells, the throw records it draws from, and its hash."""

    spec: FightExperimentSpec
    source: str
    cells: list[FightCell]
    hash: str
    fight_path: str  # the fight file every cell is built from
    fights: int  # fights per cell (after any cap)
    throws_hash: str  # the throw experiment whose records are resampled
    throws_name: str
    throws_experiment: Experiment | None = None  # when throws_from names an experiment (run it first)
    throws_dir: Path | None = None  # the folder holding its records (set by the runner for an experiment)
    throws_cap: int | None = None  # --max-throws, when it changes the throw experiment
    notes: tuple[str, ...] = ()

    kind = "fight"

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def variant_names(self) -> list[str]:
        return [c.variant for c in self.cells]

    @property
    def baseline(self) -> str:
        return self.spec.baseline or self.cells[0].variant

    def with_throws_dir(self, path: Path) -> FightExperiment:
        """A copy reading its throw records from `path` (the runner sets it once the throw experiment ran)."""
        return replace(self, throws_dir=Path(path))

    def resolved(self) -> dict[str, Any]:
        """JSON-able copy of everything the records depend on (experiment.resolved.json)."""
        return {
            "format": FIGHT_FORMAT,
            "kind": "fight",
            "hash": self.hash,
            "source": self.source,
            "experiment": self.spec.model_dump(mode="json"),
            "fight": self.fight_path,
            "fights": self.fights,
            "throws": {
                "name": self.throws_name,
                "hash": self.throws_hash,
                "folder": str(self.throws_dir) if self.throws_dir else None,
            },
            "cells": [
                {
                    "index": c.index,
                    "name": c.name,
                    "variant": c.variant,
                    "overrides": c.overrides,
                    "key": c.key,
                    "fight": c.description,
                }
                for c in self.cells
            ],
        }


# ----------------------------------------------------------------------------------------------
# reading


def is_fight_experiment(data: Mapping[str, Any]) -> bool:
    """An experiment file's contents describe fights (not throws) when they have a `fight` key."""
    return "fight" in data


def parse_fight_experiment(data: Mapping[str, Any], source: str = "<experiment>") -> FightExperimentSpec:
    """The fight experiment file's contents, validated; the first problem is a SpecError naming
    `source` and the field. `kind = "experiment"` is allowed, as in a throw experiment (`dfsim check`
    asks for it when a file's kind cannot be told)."""
    data = dict(data)
    if data.get("kind") == "experiment":
        data.pop("kind")
    try:
        return FightExperimentSpec.model_validate(data)
    except ValidationError as exc:  # FieldErrors (model checks that know their field) included
        raise from_validation_error(source, exc, data=data) from None


def fight_key(spec) -> str:
    """A resolved fight's stable hash: what a worker checks it rebuilt the same fight by."""
    return json_hash(spec.model_dump(mode="json"), compact=True)


def _merged(defaults: FightSettings, variant: FightSettings | None) -> list[tuple[str, Any, str]]:
    """(fight-file key, value, experiment field) of every setting in force, variant over defaults."""
    out: dict[str, tuple[Any, str]] = {}
    for layer, origin in ((defaults, "defaults"), (variant, None)):
        if layer is None:
            continue
        where = origin or "{v}"
        for k, target in NAMED_SETTINGS.items():
            v = getattr(layer, k)
            if v is not None:
                out[target] = (v, f"{where}.{k}")
        for k, v in (layer.house_rules or {}).items():
            out[f"house_rules.{k}"] = (v, f"{where}.house_rules.{k}")
        for k, v in (layer.set or {}).items():
            out[k] = (v, f"{where}.set.{k}")
    return [(k, v, f) for k, (v, f) in out.items()]


def _load_fight(fight_path: str, overrides: dict[str, Any]):
    from sim.fights.spec import load_fight

    return load_fight(fight_path, overrides)


def _throw_source(spec: FightExperimentSpec, source: str, base_dir: Path | None, max_throws: int | None):
    """(throw experiment or None, its folder or None, its hash, its name, its resolved cells, notes, cap)."""
    v = spec.throws_from
    dirs = [Path(v)] + ([base_dir / v] if base_dir is not None and not Path(v).is_absolute() else [])
    for d in dirs:
        if d.is_dir():
            man = d / MANIFEST
            try:
                manifest = json.loads(man.read_text())
                resolved = json.loads((d / RESOLVED).read_text())
            except (OSError, ValueError):
                raise SpecError(source, "throws_from", f"{d} is not the folder of a `dfsim run`") from None
            if resolved.get("kind") == "fight":
                raise SpecError(source, "throws_from", f"{d} holds fights, not throws")
            if manifest.get("state") != "complete":
                raise SpecError(
                    source,
                    "throws_from",
                    f"the run in {d} is not finished (state "
                    f"'{manifest.get('state')}'); run it again to resume it",
                )
            notes = (f"throws from the folder {d}",) + (
                ("--max-throws does not apply to a finished folder",) if max_throws is not None else ()
            )
            return (
                None,
                d,
                manifest["experiment_hash"],
                manifest.get("name", d.name),
                resolved["cells"],
                notes,
                None,
            )
    target = localise(v, base_dir)
    try:
        path = resolve("experiment", target)
    except SpecError:
        raise SpecError(
            source,
            "throws_from",
            f"'{v}' is neither a results folder nor an experiment (a built-in name or a .toml path)",
        ) from None
    data = read_toml(path)
    if is_fight_experiment(data):
        raise SpecError(source, "throws_from", f"'{v}' is a fight experiment; name a throw experiment")
    tspec = parse_experiment(data, str(path))
    texp = resolve_experiment(tspec, str(path), max_throws=max_throws)
    capped = max_throws is not None and (
        max_throws < tspec.throws or (tspec.stop is not None and max_throws < tspec.stop.max_throws)
    )
    return texp, None, texp.hash, texp.name, texp.resolved()["cells"], (), (max_throws if capped else None)


def resolve_fight_experiment(
    spec: FightExperimentSpec,
    source: str | None = None,
    max_throws: int | None = None,
    max_fights: int | None = None,
) -> FightExperiment:
    """Validate every variant's fight, the throw records and their coverage; build the cells."""
    from sim.fights.equipment import possible_requests
    from sim.fights.policy import POLICIES
    from sim.fights.resample import cell_matches, uncovered

    source = source or "<experiment>"
    base_dir = Path(source).resolve().parent if Path(source).is_file() else None
    fights = spec.fights
    if max_fights is not None:
        if max_fights < 1:
            raise SpecError(source, "max_fights", "must be at least 1")
        fights = min(fights, max_fights)
    try:
        fight_path = str(resolve("fight", localise(spec.fight, base_dir)))
    except SpecError as exc:
        raise SpecError(source, "fight", exc.problem) from None
    _load_fight(fight_path, {})  # the fight file's own problems name the fight file

    texp, tdir, thash, tname, tcells, notes, cap = _throw_source(spec, source, base_dir, max_throws)
    variants = [(v.name, f"variants.{i}", v) for i, v in enumerate(spec.variants)] or [
        ("default", "defaults", None)
    ]
    cells: list[FightCell] = []
    for vname, origin, vsettings in variants:
        settings = _merged(spec.defaults, vsettings)
        overrides: dict[str, Any] = {}
        for key, value, where in settings:
            where = where.format(v=origin)
            if key == "policy" and value not in POLICIES:
                raise SpecError(source, where, f"unknown policy '{value}' (one of {', '.join(POLICIES)})")
            try:
                _load_fight(fight_path, {key: value})
            except SpecError as exc:
                if exc.source != fight_path:
                    raise  # a file the setting names (a monster file) is itself wrong
                raise SpecError(source, where, exc.problem) from None
            overrides[key] = value
        try:
            fs = _load_fight(fight_path, overrides)
        except SpecError as exc:
            if exc.source != fight_path:
                raise
            raise SpecError(
                source, origin, f"{exc.field}: {exc.problem}" if exc.field else exc.problem
            ) from None
        if fs.policy not in POLICIES:
            raise SpecError(
                fight_path, "policy", f"unknown policy '{fs.policy}' (one of {', '.join(POLICIES)})"
            )
        matches, _ = cell_matches(tcells, tname, None, fs.throws.white_die, fs.throws.colored_die)
        missing = uncovered([m for _, _, m in matches], possible_requests(fs))
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise SpecError(
                source,
                "throws_from",
                f"variant '{vname}' needs throws '{tname}' does not record: {missing[0]}{more}",
            )
        cells.append(
            FightCell(
                index=len(cells),
                name=vname,
                variant=vname,
                overrides=overrides,
                key=fight_key(fs),
                description=fs.model_dump(mode="json"),
            )
        )
    ident = {
        "format": FIGHT_FORMAT,
        "kind": "fight",
        "seed": spec.seed,
        "fights": fights,
        "chunk_fights": spec.chunk_fights,
        "engine": spec.engine,
        "throws": thash,
        "cells": [(c.name, c.key) for c in cells],
    }
    return FightExperiment(
        spec=spec,
        source=source,
        cells=cells,
        hash=json_hash(ident, compact=True),
        fight_path=fight_path,
        fights=fights,
        throws_hash=thash,
        throws_name=tname,
        throws_experiment=texp,
        throws_dir=tdir,
        throws_cap=cap,
        notes=notes,
    )


def throws_folder(exp: FightExperiment, out: Path) -> Path:
    """Where a fight experiment's throw experiment writes: beside the fight results, under its own
    name (with `-maxN` when capped by --max-throws, so a preview never collides with the full run)."""
    if exp.throws_dir is not None:
        return exp.throws_dir
    name = exp.throws_name + (f"-max{exp.throws_cap}" if exp.throws_cap is not None else "")
    return Path(out).parent / name
