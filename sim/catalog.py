"""The built-in data, by kind: list names, load by name or path, validate any file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .board import BoardSpec
from .datafiles import KINDS, builtin_dir, builtin_names, read_toml
from .die import DieSpec
from .errors import SpecError
from .material import MaterialTable
from .shot import ShotSpec
from .skill import SkillSpec

SPEC_CLASSES: dict[str, Any] = {
    "board": BoardSpec,
    "die": DieSpec,
    "material": MaterialTable,
    "shot": ShotSpec,
    "skill": SkillSpec,
}

_DIR_KIND = {"dice": "die", "materials": "material", "skills": "skill", "templates": "template", "props": "prop",
             "boards": "board", "shots": "shot", "experiments": "experiment",
             "monsters": "monster", "fights": "fight"}


def register_kind(kind: str, spec_class: Any) -> None:
    """Later layers (templates, props, experiments) add their spec classes here."""
    SPEC_CLASSES[kind] = spec_class


def list_kind(kind: str) -> list[Any]:
    cls = SPEC_CLASSES[kind]
    return [cls.load(n, kind) for n in builtin_names(kind)]


def infer_kind(path: Path, data: dict) -> str:
    k = data.get("kind")
    if isinstance(k, str):
        if k not in KINDS:
            raise SpecError(path, "kind", f"unknown kind '{k}' (one of {', '.join(KINDS)})")
        return k
    parent = path.resolve().parent.name
    if parent in _DIR_KIND:
        return _DIR_KIND[parent]
    if "sections" in data or "outline" in data:
        return "board"
    if "faces" in data:
        return "die"
    if "pairs" in data:
        return "material"
    if "release" in data:
        return "shot"
    if "speed_sd_frac" in data:
        return "skill"
    if "variants" in data or "throws" in data:
        return "experiment"
    raise SpecError(path, "kind", "cannot tell what kind of file this is; add kind = \"board\" (or die, shot, ...)")


def check_file(path: str | Path) -> tuple[str, Any]:
    """Validate one data file; returns (kind, spec). Raises SpecError on the first problem."""
    p = Path(path)
    data = read_toml(p)
    kind = infer_kind(p, data)
    cls = SPEC_CLASSES.get(kind)
    if cls is None:
        raise SpecError(p, "kind", f"no validator for kind '{kind}' is installed")
    if hasattr(cls, "check_file"):
        return kind, cls.check_file(p, data)
    return kind, cls.from_dict(data, p)


__all__ = ["list_kind", "check_file", "builtin_dir", "builtin_names", "register_kind", "MaterialTable"]
