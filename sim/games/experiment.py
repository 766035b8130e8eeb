"""A game experiment file: its variants and contrasts, validated, and each variant's game built."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator

from sim.errors import SpecError, from_validation_error
from sim.experiments.spec import Model, check_name

Value = bool | int | float | str | list[str]


class GameVariant(Model):
    """One [[variants]] entry: a name and the dotted game-file keys it sets over [defaults]."""

    name: str
    description: str = ""
    policy: str | None = None  # the game policy of this variant (a rung: first-time, default, strong)
    set: dict[str, Value] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return check_name(v, "variant name")


class Contrast(Model):
    """A difference of differences of win rates: (a - b) - (c - d), on paired games."""

    name: str
    a: str
    b: str
    c: str
    d: str


class GameExperimentSpec(Model):
    """The whole game experiment file (module docstring)."""

    name: str
    description: str = ""
    game: str = Field(min_length=1)
    seed: int = Field(ge=0, le=2**63 - 1)
    games: int = Field(ge=1, le=10_000_000)
    bank_throws: int | None = Field(default=None, ge=1, le=1_000_000)
    bank_replicates: int | None = Field(default=None, ge=0, le=1000)  # default REPLICATES; 0: no bank part
    policy: str | None = None
    baseline: str | None = None
    confidence: float = Field(default=0.95, gt=0.5, lt=1)
    defaults: dict[str, Value] = Field(default_factory=dict)
    variants: list[GameVariant] = Field(min_length=1, max_length=200)
    contrasts: list[Contrast] = Field(default_factory=list, max_length=50)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return check_name(v, "experiment name")


def is_game_experiment(data: Any) -> bool:
    """Whether an experiment table is a game experiment (it has a `game` key)."""
    return isinstance(data, dict) and "game" in data


def parse_game_experiment(data: dict[str, Any], source: str) -> GameExperimentSpec:
    """Validate the file, every variant's game (a bad setting names the variant) and the names."""
    data = {k: v for k, v in data.items() if k != "kind"}
    try:
        spec = GameExperimentSpec.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(source, exc, data=data) from None
    names = [v.name for v in spec.variants]
    for i, n in enumerate(names):
        if n in names[:i]:
            raise SpecError(source, f"variants.{i}.name", f"two variants are called '{n}'")
    if spec.baseline is not None and spec.baseline not in names:
        raise SpecError(source, "baseline", f"'{spec.baseline}' is not a variant ({', '.join(names)})")
    for i, c in enumerate(spec.contrasts):
        for k in ("a", "b", "c", "d"):
            if getattr(c, k) not in names:
                raise SpecError(source, f"contrasts.{i}.{k}", f"'{getattr(c, k)}' is not a variant")
    return spec


def _game_path(spec: GameExperimentSpec, source: str) -> str:
    g = spec.game
    if g.endswith(".toml") and not Path(g).is_absolute():
        cand = Path(source).parent / g
        if cand.is_file():
            return str(cand)
    return g


def variant_specs(spec: GameExperimentSpec, source: str) -> dict[str, Any]:
    """Each variant's game spec (defaults, then the variant's settings); a bad one names the variant."""
    from sim.games.ladder import resolve_game_policy
    from sim.games.spec import load_game

    out = {}
    for i, v in enumerate(spec.variants):
        # the policy: the variant's `policy`, else its `set`, else the file's `policy`, else the game's
        policy = {"policy": spec.policy} if spec.policy else {}
        own = {"policy": v.policy} if v.policy else {}
        try:
            resolve_game_policy(v.policy or spec.policy, source)
        except SpecError as exc:
            where = f"variants.{i}.policy" if v.policy else "policy"
            raise SpecError(source, where, exc.problem) from None
        try:
            g = load_game(_game_path(spec, source), {**policy, **spec.defaults, **v.set, **own})
            resolve_game_policy(g.policy, "")
            g = g.with_seed(spec.seed)  # the experiment's seed is the root of the shuffles and the throws
            g.load_decks()
        except SpecError as exc:
            raise SpecError(
                source, f"variants.{i}.set", f"{v.name}: {exc.source}: {exc.field}: {exc.problem}"
            ) from None
        out[v.name] = g
    return out


@dataclass(frozen=True)
class GameExperiment:
    """A validated game experiment: every variant's game spec (decks loaded) and the games per variant."""

    spec: GameExperimentSpec
    source: str
    specs: dict[str, Any]  # variant name -> its game spec
    games: int  # games per variant (after any cap)

    @property
    def name(self) -> str:
        return self.spec.name


def resolve_game_experiment(
    spec: GameExperimentSpec, source: str, max_games: int | None = None
) -> GameExperiment:
    """Every variant's game built (a bad setting names the variant); `max_games` caps the games."""
    n = spec.games if max_games is None else min(spec.games, max_games)
    return GameExperiment(spec=spec, source=source, specs=variant_specs(spec, source), games=n)
