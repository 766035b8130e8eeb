"""The built-in data, by kind: list names, load by name or path, validate any file."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from sim.errors import SpecError
from sim.specs.datafiles import KINDS, builtin_dir, builtin_names, read_toml

# kind -> (module, class): imported when a kind is first used, so listing boards never loads scipy
_SPEC_CLASS_PATHS: dict[str, tuple[str, str]] = {
    "board": ("sim.specs.board", "BoardSpec"),
    "die": ("sim.specs.die", "DieSpec"),
    "material": ("sim.specs.material", "MaterialTable"),
    "shot": ("sim.specs.shot", "ShotSpec"),
    "skill": ("sim.specs.skill", "SkillSpec"),
    "template": ("sim.specs.template", "TemplateSpec"),
    "prop": ("sim.specs.prop", "PropSpec"),
    "monster": ("sim.specs.monster", "MonsterSpec"),
    "fight": ("sim.specs.fight", "FightSpec"),
    "deck": ("sim.specs.deck", "DeckSpec"),
    "game": ("sim.specs.game", "GameSpec"),
}
# kinds a user writes and dfsim reads, with no built-in files
_USER_CLASS_PATHS: dict[str, tuple[str, str]] = {
    "tally": ("sim.specs.tally", "TallySpec"),
    "measurements": ("sim.specs.measurements", "MeasurementsSpec"),
}
USER_KINDS = tuple(_USER_CLASS_PATHS)


class _SpecClasses(Mapping[str, Any]):
    """kind -> spec class, each class imported on first use."""

    def __getitem__(self, kind: str) -> Any:
        module, name = _SPEC_CLASS_PATHS[kind]
        return getattr(importlib.import_module(module), name)

    def __iter__(self) -> Iterator[str]:
        return iter(_SPEC_CLASS_PATHS)

    def __len__(self) -> int:
        return len(_SPEC_CLASS_PATHS)


SPEC_CLASSES: Mapping[str, Any] = _SpecClasses()

_DIR_KIND = {
    "dice": "die",
    "materials": "material",
    "skills": "skill",
    "templates": "template",
    "props": "prop",
    "boards": "board",
    "shots": "shot",
    "experiments": "experiment",
    "monsters": "monster",
    "fights": "fight",
    "decks": "deck",
    "games": "game",
}


def list_kind(kind: str) -> list[Any]:
    """Every built-in spec of a kind, loaded and validated."""
    cls = SPEC_CLASSES[kind]
    return [cls.load(n, kind) for n in builtin_names(kind)]


def infer_kind(path: Path, data: dict) -> str:
    """The kind of a data file: its `kind` key, its folder, or its tell-tale keys."""
    k = data.get("kind")
    if k is not None and not isinstance(k, str):
        raise SpecError(path, "kind", 'must be text naming the kind of file, e.g. kind = "board"')
    if isinstance(k, str):
        if k not in KINDS and k not in USER_KINDS:
            raise SpecError(path, "kind", f"unknown kind '{k}' (one of {', '.join((*KINDS, *USER_KINDS))})")
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
    if "dungeon" in data or "bosses" in data:
        return "deck"
    if "decks" in data:
        return "game"
    if "miss_damage" in data:
        return "monster"
    if "party" in data:
        return "fight"
    if "speed_sd_frac" in data:
        return "skill"
    if "hits" in data and "base_skill" in data:
        return "tally"
    if "surface" in data and any(k in data for k in ("drops", "tilts", "ramps")):
        return "measurements"
    if "variants" in data or "throws" in data:
        return "experiment"
    raise SpecError(
        path, "kind", 'cannot tell what kind of file this is; add kind = "board" (or die, shot, ...)'
    )


def check_file(path: str | Path) -> tuple[str, Any]:
    """Validate one data file; returns (kind, spec). Raises SpecError on the first problem."""
    p = Path(path)
    data = read_toml(p)
    kind = infer_kind(p, data)
    if kind in _USER_CLASS_PATHS:
        module, name = _USER_CLASS_PATHS[kind]
        return kind, getattr(importlib.import_module(module), name).from_dict(data, p)
    cls = SPEC_CLASSES.get(kind)
    if cls is None:
        raise SpecError(
            p, "kind", f"'{kind}' files are checked by `dfsim check` itself, not by the spec catalog"
        )
    if hasattr(cls, "check_file"):
        return kind, cls.check_file(p, data)
    spec = cls.from_dict(data, p)
    _check_materials(kind, spec, p)
    if kind == "shot":
        # what a scenario would refuse later: props that do not load, requirements without their prop
        from sim.specs.combine import check_requirements, load_shot_props

        shots = (spec,)
        props, _ = load_shot_props(shots)
        check_requirements(shots, props)
    return kind, spec


MATERIAL_KEYS = {
    "die": ("material",),
    "board": ("material", "table_material"),
    "prop": ("material",),
    "shot": ("table_material",),
}


def _check_materials(kind: str, spec: Any, path: Path) -> None:
    """The materials a die, board or prop names must be in the default table (a scenario with another
    table checks against that one when it is built)."""
    keys = MATERIAL_KEYS.get(kind, ())
    if not keys:
        return
    table = SPEC_CLASSES["material"].load("default", "material")
    for key in keys:
        name = getattr(spec, key, None)
        if isinstance(name, str) and name not in table.materials:
            raise SpecError(path, key, f"unknown material '{name}' (materials: {', '.join(table.materials)})")


__all__ = ["list_kind", "check_file", "infer_kind", "builtin_dir", "builtin_names", "SPEC_CLASSES"]
