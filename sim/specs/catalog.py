"""The built-in data, by kind: list names, load by name or path, validate any file."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from sim import plugins
from sim.errors import SpecError
from sim.specs.datafiles import KINDS, builtin_dir, builtin_names, read_toml

# kind -> (module, class): imported when a kind is first used, so listing boards never loads scipy; the
# core's kinds, then those of the packages built on it (sim/plugins.py)
_CORE_CLASS_PATHS: dict[str, tuple[str, str]] = {
    "board": ("sim.specs.board", "BoardSpec"),
    "die": ("sim.specs.die", "DieSpec"),
    "material": ("sim.specs.material", "MaterialTable"),
    "shot": ("sim.specs.shot", "ShotSpec"),
    "skill": ("sim.specs.skill", "SkillSpec"),
    "template": ("sim.specs.template", "TemplateSpec"),
    "prop": ("sim.specs.prop", "PropSpec"),
}


def _class_paths() -> dict[str, tuple[str, str]]:
    declared = {k.name: tuple(k.spec_class.split(":", 1)) for k in plugins.data_kinds()}
    return {**_CORE_CLASS_PATHS, **declared}  # type: ignore[dict-item]


# kinds a user writes and dfsim reads, with no built-in files
_USER_CLASS_PATHS: dict[str, tuple[str, str]] = {
    "tally": ("sim.specs.tally", "TallySpec"),
    "measurements": ("sim.specs.measurements", "MeasurementsSpec"),
}
USER_KINDS = tuple(_USER_CLASS_PATHS)


class _SpecClasses(Mapping[str, Any]):
    """kind -> spec class, each class imported on first use."""

    def __getitem__(self, kind: str) -> Any:
        module, name = _class_paths()[kind]
        return getattr(importlib.import_module(module), name)

    def __iter__(self) -> Iterator[str]:
        return iter(_class_paths())

    def __len__(self) -> int:
        return len(_class_paths())


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
}
# the keys that tell a file's kind when it names none, in order (sim.plugins.DataKind.tell_order): a
# package's tells come between the shot's (40) and the skill's (60)
_CORE_TELLS: tuple[tuple[int, tuple[str, ...], str], ...] = (
    (10, ("sections", "outline"), "board"),
    (20, ("faces",), "die"),
    (30, ("pairs",), "material"),
    (40, ("release",), "shot"),
    (60, ("speed_sd_frac",), "skill"),
)


def _tells() -> list[tuple[int, tuple[str, ...], str]]:
    declared = [(k.tell_order, k.tells, k.name) for k in plugins.data_kinds() if k.tells]
    return sorted([*_CORE_TELLS, *declared], key=lambda t: t[0])


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
    folders = {**_DIR_KIND, **{k.folder: k.name for k in plugins.data_kinds()}}
    if parent in folders:
        return folders[parent]
    for _, keys, tell in _tells():
        if any(key in data for key in keys):
            return tell
    if "hits" in data and "base_skill" in data:
        return "tally"
    if "surface" in data and any(k in data for k in ("drops", "tilts", "ramps")):
        return "measurements"
    if "variants" in data or "throws" in data:
        return "experiment"
    if any(isinstance(data.get(k), str) for k in ("fight", "game")) or "throws_from" in data:
        return "experiment"  # a fight or game experiment: `fight = "reference"`, `game = "base"`
    raise SpecError(
        path,
        "kind",
        'cannot tell what kind of file this is; add kind = "board" (or die, shot, experiment, ...)',
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
        from sim.specs.stance import check_shot_file_stance

        check_shot_file_stance(spec, str(p))
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
