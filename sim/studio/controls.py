"""The studio's controls, read from the game spec models: every house rule, rulebook option and party
setting a game file may set becomes a slider, a field, a switch or a choice with the range its model
allows, so a new house rule or option shows up on the page without touching the studio.

A control is a plain dict the page draws and the server checks a request against:
`{"key": "house_rules.extra_white_dice", "kind": "int", "min": 0, "max": 9, "default": 0, ...}`
(`kind`: int, float, bool or choice; `optional`: the value may be null, the file's rule).
"""

from __future__ import annotations

import math
import typing
from typing import Any, Literal

from pydantic import BaseModel

from sim.fights.house_rules import RULEBOOK, HouseRules
from sim.fights.party import CHEST_DICE
from sim.games.spec import MAX_HEROES, GameOptions, GameSpec
from sim.specs.datafiles import builtin_names

# the game file's fields the page sets (the rest, names, decks, the roster, are the file's own)
GROUPS = (
    ("house_rules", HouseRules, "House rules"),
    ("options", GameOptions, "Rulebook options and the deck's limits"),
)
LABELS = {
    "difficulty": "Difficulty",
    "party.size": "Party size",
    "throws.skill": "Skill",
    "party.white_dice": "White dice at Setup",
    "party.gold": "Gold at Setup",
}


def _bounds(field: Any) -> tuple[float | None, float | None]:
    lo = hi = None
    for m in field.metadata:
        if getattr(m, "ge", None) is not None:
            lo = m.ge
        if getattr(m, "gt", None) is not None:
            lo = m.gt
        if getattr(m, "le", None) is not None:
            hi = m.le
        if getattr(m, "lt", None) is not None:
            hi = m.lt
    return lo, hi


def control(key: str, field: Any, group: str, doc: str = "") -> dict[str, Any] | None:
    """One field as a control, or None when the field is not a number, switch or choice."""
    ann = field.annotation
    optional = False
    args = typing.get_args(ann)
    if type(None) in args and len(args) == 2:  # `int | None`: null is the file's (the rulebook's) value
        optional = True
        ann = next(a for a in args if a is not type(None))
    out: dict[str, Any] = {"key": key, "group": group, "label": LABELS.get(key, _label(key)), "doc": doc}
    if typing.get_origin(ann) is Literal:
        out |= {"kind": "choice", "choices": [str(c) for c in typing.get_args(ann)]}
    elif ann is bool:
        out |= {"kind": "bool"}
    elif ann in (int, float):
        lo, hi = _bounds(field)
        if lo is None or hi is None:
            return None
        out |= {"kind": ann.__name__, "min": lo, "max": hi, "step": 1 if ann is int else _step(lo, hi)}
    else:
        return None
    default = field.default
    out["default"] = default
    out["optional"] = optional
    return out


def _step(lo: float, hi: float) -> float:
    return 10 ** math.floor(math.log10((hi - lo) / 40)) if hi > lo else 0.1


def _label(key: str) -> str:
    return " ".join(key.split(".")[1:]).replace("_", " ").capitalize()


def model_controls(prefix: str, model: type[BaseModel], group: str) -> list[dict[str, Any]]:
    """Every number, switch and choice of a model (and of the models inside it), with its range."""
    out = []
    for name, field in model.model_fields.items():
        key = f"{prefix}.{name}"
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            out += model_controls(key, ann, group)
            continue
        doc = RULEBOOK[name][1] if model is HouseRules and name in RULEBOOK else ""
        c = control(key, field, group, doc)
        if c is not None:
            out.append(c)
    return out


BANK_CANNOT = (
    "the throw bank cannot answer it: its throws were recorded at the usual release noise "
    "(dfsim game --engine physics can)"
)


def release_rules() -> set[str]:
    """House rules that change the release itself (the physics engine's noise), found by trying each
    on the model: the bank's recorded throws cannot answer them."""
    on = {n: True for n, f in HouseRules.model_fields.items() if f.annotation is bool}
    everything = HouseRules(**on).release_noise_factor
    out = set()
    for name, f in HouseRules.model_fields.items():
        if f.annotation is bool and HouseRules(**{name: True}).release_noise_factor != 1.0:
            out.add(name)
        elif f.annotation is float:
            lo, hi = _bounds(f)
            most = HouseRules.model_validate(on | {name: hi}) if hi is not None else None
            if most is not None and most.release_noise_factor != everything:
                out.add(name)
    return out


def game_controls(spec: GameSpec) -> list[dict[str, Any]]:
    """The controls of one game: the table (difficulty, party size, skill, Setup), then every house
    rule and option; defaults are this game file's values."""
    party = type(spec.party).model_fields
    main = [
        control("difficulty", GameSpec.model_fields["difficulty"], "The table"),
        control("party.size", party["size"], "The table"),
        {
            "key": "throws.skill",
            "group": "The table",
            "label": LABELS["throws.skill"],
            "doc": "how well every hero throws (a skill file)",
            "kind": "choice",
            "choices": builtin_names("skill"),
            "optional": False,
        },
        control("party.white_dice", party["white_dice"], "The table"),
        control("party.gold", party["gold"], "The table", "empty: the rulebook's (players - 2)"),
    ]
    out = [c for c in main if c is not None]
    for c in out:
        if c["key"] == "party.size":  # the roster seats at most its length
            c["max"] = min(MAX_HEROES, len(spec.party.heroes))
            c["optional"] = False
        if c["key"] == "party.white_dice":
            c["max"] = CHEST_DICE
        if c["key"] == "party.gold":
            c["max"] = 30  # the field allows 999; a slider that long says nothing
    for prefix, model, group in GROUPS:
        out += model_controls(prefix, model, group)
    release = {f"house_rules.{n}" for n in release_rules()}
    for c in out:
        c["default"] = current(spec, c["key"])
        c["doc"] = c["doc"].replace("`", "")
        if c["key"] in release:
            c["disabled"] = BANK_CANNOT
        if c["key"] == "throws.skill" and c["default"] not in c["choices"]:
            c["choices"] = [c["default"], *c["choices"]]
    return out


def current(spec: GameSpec, key: str) -> Any:
    """The value a dotted key has in a spec (`party.size` is the players seated)."""
    if key == "party.size":
        return spec.party.players
    obj: Any = spec
    for part in key.split("."):
        obj = getattr(obj, part)
    return obj


def check_value(c: dict[str, Any], value: Any) -> str | None:
    """Why a value does not fit a control (None when it fits): the JSON type and the range."""
    if c.get("disabled"):
        return c["disabled"]
    if value is None:
        return None if c.get("optional") else "must be given (null is not allowed here)"
    kind = c["kind"]
    if kind == "bool":
        return None if isinstance(value, bool) else f"must be true or false, got {value!r}"
    if kind == "choice":
        if not isinstance(value, str) or value not in c["choices"]:
            return f"must be one of {', '.join(c['choices'])}, got {value!r}"
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"must be a number, got {value!r}"
    if kind == "int" and not isinstance(value, int):
        if not float(value).is_integer():
            return f"must be a whole number, got {value!r}"
    if not math.isfinite(float(value)):
        return "must be a finite number"
    if value < c["min"] or value > c["max"]:
        return f"must lie in [{c['min']}, {c['max']}], got {value!r}"
    return None


def coerce(c: dict[str, Any], value: Any) -> Any:
    """A checked value in the type its model wants (a whole float for an int field becomes an int)."""
    if value is None or c["kind"] in ("bool", "choice"):
        return value
    return int(value) if c["kind"] == "int" else float(value)
