"""The one pydantic base of every validated, immutable spec (data files, scenarios, experiments).

What it refuses, once for all specs:
- unknown keys (a typo never passes silently);
- a value of the wrong kind that pydantic's lax mode would convert: text for a number
  (`thickness_mm = "2"`), a boolean for a number, a number or text for a boolean. A whole number for
  a decimal field stays fine (TOML writes `radius_mm = 280`);
- NaN and infinities in every number;
- text longer than `MAX_TEXT` characters (a 50 MB `notes`).
Ranges are each field's own: every number has a lower and an upper bound (tests/specs check that no
numeric field lacks one), every list a maximum length.
"""

from __future__ import annotations

import json
import types
from collections import OrderedDict
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from sim.errors import FieldError, SpecError, from_validation_error
from sim.specs.datafiles import read_toml, resolve

S = TypeVar("S", bound="Spec")

MAX_TEXT = 10_000  # characters in any text field (names, notes, descriptions)
MAX_LENGTH_MM = 5_000.0  # any length or coordinate on the table (the world is a 4 m radius around the board)
MAX_BOARD_MM = (
    1_500.0  # how far from the board centre a board reaches, and a die, template or aim point is put
)
MAX_ANGLE_DEG = 720.0  # any angle given in degrees
MAX_INT = 1_000_000  # any count or score without a tighter bound of its own

# bounded number types for the elements of tuples and lists (a Field bound applies to the whole field)
Length = Annotated[float, Field(ge=-MAX_LENGTH_MM, le=MAX_LENGTH_MM)]
Angle = Annotated[float, Field(ge=-MAX_ANGLE_DEG, le=MAX_ANGLE_DEG)]
Place = Annotated[float, Field(ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)]
Name = Annotated[str, Field(min_length=1, max_length=200)]


class Spec(BaseModel):
    """Frozen pydantic model; unknown keys are errors so typos never pass silently (see the module doc)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        arbitrary_types_allowed=True,
        allow_inf_nan=False,
        str_max_length=MAX_TEXT,
    )
    _source: str = PrivateAttr(default="<data>")

    @model_validator(mode="before")
    @classmethod
    def _no_conversion(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name, info in cls.model_fields.items():
                key = info.alias or name
                if key in data:
                    _check_kind(info.annotation, data[key], key)
        return data

    @classmethod
    def from_dict(cls: type[S], data: dict[str, Any], source: str | Path = "<data>") -> S:
        """Validate a data table (its 'kind' key ignored) into a spec; any problem raises SpecError naming
        `source` and the field."""
        if not isinstance(data, dict):
            raise SpecError(source, "", "expected a table of keys and values")
        data = dict(data)
        kind = data.pop("kind", None)
        if kind is not None and not isinstance(kind, str):
            raise SpecError(source, "kind", 'must be text naming the kind of file, e.g. kind = "board"')
        key = _cache_key(cls, data, source)
        if key is not None and key in _VALIDATED:
            _VALIDATED.move_to_end(key)
            return _VALIDATED[key]  # type: ignore[return-value]
        try:
            obj = cls.model_validate(data)
        except ValidationError as exc:
            raise from_validation_error(source, exc, data=data) from None
        except SpecError:
            raise
        except FieldError as exc:
            raise SpecError(source, exc.field, exc.problem) from None
        except (ValueError, ArithmeticError) as exc:
            raise SpecError(source, "", str(exc)) from None
        obj._source = str(source)
        if key is not None:
            _VALIDATED[key] = obj
            if len(_VALIDATED) > _CACHE_SIZE:
                _VALIDATED.popitem(last=False)
        return obj

    @classmethod
    def load(cls: type[S], name_or_path: str | Path, kind: str) -> S:
        """Load a built-in spec by name, or a TOML file by path, of the given kind."""
        path = resolve(kind, name_or_path)
        data = read_toml(path)
        if data.get("kind", kind) != kind:
            raise SpecError(path, "kind", f"this is a '{data['kind']}' file, not a {kind}")
        return cls.from_dict(data, source=path)

    @property
    def source(self) -> str:
        """The file (or "command line") this spec came from, for error messages."""
        return self._source

    def with_source(self: S, source: str | Path) -> S:
        """This spec, marked as coming from `source` (a derived spec keeps its origin's file)."""
        self._source = str(source)
        return self


def validated(cls: type[S], data: dict[str, Any], source: str | Path, field: str = "") -> S:
    """`cls.model_validate(data)` for specs derived in code (merged shots, overrides): any problem is a
    SpecError about `field` of `source`, never a traceback."""
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise from_validation_error(source, exc, prefix=field, data=data) from None


# ---------------------------------------------------------------- validated specs, reused ----
# A sweep builds one scenario per cell from the same board, die and skill files: validating each once
# (a board's geometry checks take ~10 ms) keeps an experiment's validation fast. Specs are frozen, so
# one instance can serve every scenario that reads the same data from the same source.
_CACHE_SIZE = 256
_VALIDATED: OrderedDict[tuple, Spec] = OrderedDict()


def _cache_key(cls: type, data: dict[str, Any], source: str | Path) -> tuple | None:
    """(class, source, canonical JSON of the data), or None for data that is not plain JSON."""
    try:
        blob = json.dumps(data, sort_keys=True, allow_nan=True, default=_not_json)
    except (TypeError, ValueError, RecursionError):
        return None
    return (cls, str(source), blob)


def _not_json(obj: Any) -> Any:
    raise TypeError(type(obj).__name__)  # e.g. a TOML date: validated every time, never cached


# ---------------------------------------------------------------- no silent conversions ----
_NUMBER, _BOOL, _TEXT, _OTHER = "number", "bool", "text", "other"


def _arms(tp: Any) -> list[Any]:
    """The alternatives of an annotation (Annotated and Optional unwrapped)."""
    if get_origin(tp) is Annotated:
        return _arms(get_args(tp)[0])
    if get_origin(tp) in (Union, types.UnionType):
        return [a for arg in get_args(tp) for a in _arms(arg)]
    return [tp]


def _category(tp: Any) -> str:
    if tp is bool:
        return _BOOL
    if tp in (int, float):
        return _NUMBER
    if tp is str or get_origin(tp) is Literal:
        return _TEXT
    return _OTHER


def _check_kind(tp: Any, value: Any, path: str) -> None:
    """Refuse a value that lax validation would silently convert to the annotated type."""
    arms = [a for a in _arms(tp) if a is not type(None)]
    cats = {_category(a) for a in arms}
    if _OTHER in cats and any(a is Any for a in arms):
        return
    a_number = "a number" if float in arms else "a whole number (integer)"
    if isinstance(value, bool):
        if _BOOL not in cats and _NUMBER in cats:
            raise FieldError(path, f"expected {a_number}, not true/false")
        return
    if isinstance(value, (int, float)):
        if _NUMBER not in cats and _BOOL in cats:
            raise FieldError(path, "expected true or false, not a number")
        return
    if isinstance(value, str):
        if _TEXT not in cats and _NUMBER in cats:
            raise FieldError(path, f"expected {a_number}, not the text {_quote(value)}")
        if _TEXT not in cats and _BOOL in cats:
            raise FieldError(path, f"expected true or false, not the text {_quote(value)}")
        return
    if isinstance(value, (list, tuple)):
        for arm in arms:
            origin = get_origin(arm)
            if origin in (list, tuple):
                args = get_args(arm)
                if origin is tuple and args and args[-1] is not Ellipsis:
                    elems = list(args)
                else:
                    elems = [args[0] if args else Any] * len(value)
                for i, (et, v) in enumerate(zip(elems, value)):
                    _check_kind(et, v, f"{path}.{i}" if path else str(i))
                return
    if isinstance(value, dict):
        for arm in arms:
            if get_origin(arm) is dict:
                vt = get_args(arm)[1] if get_args(arm) else Any
                for k, v in value.items():
                    _check_kind(vt, v, f"{path}.{k}" if path else str(k))
                return


def _quote(text: str) -> str:
    return repr(text if len(text) <= 20 else text[:17] + "...")
