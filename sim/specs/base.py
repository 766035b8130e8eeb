"""Base class and loader glue shared by every validated, immutable data-file spec."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from sim.errors import SpecError, from_validation_error
from sim.specs.datafiles import read_toml, resolve

S = TypeVar("S", bound="Spec")


class Spec(BaseModel):
    """Frozen pydantic model; unknown keys are errors so typos never pass silently."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)
    _source: str = PrivateAttr(default="<data>")

    @classmethod
    def from_dict(cls: type[S], data: dict[str, Any], source: str | Path = "<data>") -> S:
        """Validate a data table (its 'kind' key ignored) into a spec; any problem raises SpecError naming
        `source` and the field."""
        data = dict(data)
        data.pop("kind", None)
        try:
            obj = cls.model_validate(data)
        except ValidationError as exc:
            raise from_validation_error(source, exc) from None
        except SpecError:
            raise
        except ValueError as exc:
            raise SpecError(source, "", str(exc)) from None
        obj._source = str(source)
        return obj

    @classmethod
    def load(cls: type[S], name_or_path: str | Path, kind: str) -> S:
        """Load a built-in spec by name, or a TOML file by path, of the given kind."""
        path = resolve(kind, name_or_path)
        return cls.from_dict(read_toml(path), source=path)

    @property
    def source(self) -> str:
        """The file (or "command line") this spec came from, for error messages."""
        return self._source

    def with_source(self: S, source: str | Path) -> S:
        """This spec, marked as coming from `source` (a derived spec keeps its origin's file)."""
        self._source = str(source)
        return self
