"""Combining specific throws (a monster, a room and a weapon can each demand one).

Merge rules, applied by `Scenario.build` when several shots are given (`--shot firewall --shot far`,
or `shots = [...]` in an experiment):

- the **first** shot is the primary one: its release profile is the one thrown;
- every further shot's `[combine]` table adjusts that release: `distance_add_mm`, `height_add_mm`
  and `bounce_gap_add_mm` add (the Far Shot's step back adds 700 mm and aims the bounce 90 mm
  earlier), `height_max_mm` caps the release
  height (Wrist on the Table), and its `noise` multipliers multiply into the primary's (a Friendly
  or Jump shot makes any other throw sloppier);
- the primary shot's `[limits]` (what its technique allows) move with its release: added distance
  and height shift the distance and height ranges, a height cap caps the height range; the
  secondary shots' own `[limits]` are their techniques', not applied;
- props are the union over all shots, each prop once (by its name);
- requirements are the union over all shots, identical ones counted once (the rulebook: "If the
  throw requirements of 2 or more cards are the same, then they count as one requirement").
"""

from __future__ import annotations

import copy
from typing import Any

from sim.errors import SpecError
from sim.specs.base import validated
from sim.specs.datafiles import read_toml, resolve
from sim.specs.requirements import REQUIRED_PROP
from sim.specs.shot import NoiseMultipliers, ReleaseLimits, ShotSpec

# One shot, one physical meaning: a modifier shot thrown alone (`far`) is the standard shot with its
# own `[combine]` rules applied, so `far` and `standard + far` throw the same release (tests/specs).


def combine_shots(shots: tuple[ShotSpec, ...]) -> tuple[ShotSpec, ...]:
    """Fold the secondary shots' `combine` rules (added distance and height, height cap, noise factors)
    into the primary shot's release; the others keep their requirements and props."""
    if len(shots) < 2:
        return shots
    primary = shots[0]
    rel = primary.release.model_dump()
    noise = primary.noise.model_dump()
    lim = primary.limits.model_dump()
    cap = None
    for s in shots[1:]:
        c = s.combine
        rel["distance_mm"] += c.distance_add_mm
        rel["height_mm"] += c.height_add_mm
        for k, add in (("distance", c.distance_add_mm), ("height", c.height_add_mm)):
            for side in ("min", "max"):
                if lim[f"{k}_{side}_mm"] is not None:
                    lim[f"{k}_{side}_mm"] += add
        rel["bounce_gap_mm"] += c.bounce_gap_add_mm
        if c.height_max_mm is not None:
            cap = c.height_max_mm if cap is None else min(cap, c.height_max_mm)
        for k, v in c.noise.model_dump().items():
            noise[k] *= v
    if cap is not None:
        rel["height_mm"] = min(rel["height_mm"], cap)
        lim["height_max_mm"] = cap if lim["height_max_mm"] is None else min(lim["height_max_mm"], cap)
        if lim["height_min_mm"] is not None:
            lim["height_min_mm"] = min(lim["height_min_mm"], lim["height_max_mm"])
    if rel["distance_mm"] <= 0 or rel["height_mm"] <= 0:
        raise SpecError(primary.source, "release", "combined shots give a non-positive release distance or height")
    where = f"{primary.source} (combined with {', '.join(s.name for s in shots[1:])})"
    merged = primary.model_copy(update={"release": validated(type(primary.release), rel, where, "release"),
                                        "noise": validated(NoiseMultipliers, noise, where, "noise"),
                                        "limits": validated(ReleaseLimits, lim, where, "limits")})
    return (merged.with_source(primary.source), *shots[1:])


def check_requirements(shots: tuple[ShotSpec, ...], props: tuple) -> None:
    """Every requirement of every shot has the prop it reads among `props` (the props of all the shots),
    and a shot thrown without a board has no prop anchored to the board."""
    prop_types = {p.shape.type for p in props}
    for s in shots:
        for i, r in enumerate(s.requirements):
            need = REQUIRED_PROP.get(r)
            if need is not None and need not in prop_types:
                raise SpecError(s.source, f"requirements.{i}", f"'{r}' needs a '{need}' prop; add one to the shot's props")
    if shots and not any(s.board for s in shots):
        for p in props:
            if p.placement.anchor in ("board", "board-edge") or p.shape.type == "slow-tokens":
                what = "slow tokens need" if p.shape.type == "slow-tokens" else f"anchor '{p.placement.anchor}' needs"
                raise SpecError(p.source, "placement.anchor" if "anchor" in what else "shape",
                                f"{what} a board (the shot has board = false)")


def load_shot_props(shots: tuple[ShotSpec, ...], overrides: list[tuple[list[str], Any, str]] | tuple = (),
                    source: str = "<scenario>") -> tuple[tuple, dict]:
    """The props of all shots, each once: (PropSpecs, {name: raw file data} for the scenario key).

    `overrides` are `--set prop.NAME.FIELD=VALUE` settings as (path after "prop", value, full key):
    NAME is a prop of the scene, FIELD a dotted path in its file (`placement.x_mm`) or, for its
    sizes, a key of its `[shape]` table given alone (`prop.firewall.height_mm`)."""
    from sim.specs.prop import PropSpec

    specs: list[PropSpec] = []
    raw: dict[str, Any] = {}
    loaded: list[tuple[dict, Any]] = []
    for s in shots:
        for i, ref in enumerate(s.props):
            try:
                path = resolve("prop", ref)
            except SpecError as exc:
                raise SpecError(s.source, f"props.{i}", exc.problem) from None
            data = copy.deepcopy(read_toml(path))  # overrides change it
            if any(data == d for d, _ in loaded):
                continue
            loaded.append((data, path))
    names = [d.get("name") if isinstance(d.get("name"), str) else p.stem for d, p in loaded]
    changed: dict[int, list[str]] = {}
    for parts, value, key in overrides:
        if parts[0] not in names:
            raise SpecError(source, f"overrides.{key}", f"the scene has no prop '{parts[0]}' (props: {', '.join(names) or 'none'})")
        k = names.index(parts[0])
        _set_prop_field(loaded[k][0], parts[1:], value, source, key, PropSpec)
        changed.setdefault(k, []).append(key)
    for k, (data, path) in enumerate(loaded):
        # a bad overridden value is the override's fault, not the file's: say both
        where = f"{path} (overridden by {', '.join(changed[k])})" if k in changed else path
        spec = PropSpec.from_dict(data, where)
        if spec.name in raw:
            raise SpecError(path, "name", f"a different prop named '{spec.name}' is already in the scene")
        raw[spec.name] = data
        specs.append(spec)
    return tuple(specs), raw


def _set_prop_field(data: dict, path: list[str], value: Any, source: str, key: str, spec_type) -> None:
    """Set one field of a prop's raw data; a bare key of its `[shape]` goes there. Unknown fields are
    refused here, with the fields there are (the prop's validation would name only the first)."""
    top = spec_type.model_fields
    shape = data.get("shape") if isinstance(data.get("shape"), dict) else {}
    if path[0] not in top and path[0] in shape:
        path = ["shape", *path]
    if path[0] not in top:
        sizes = ", ".join(k for k, v in shape.items() if k != "type" and isinstance(v, (int, float)) and not isinstance(v, bool))
        raise SpecError(source, f"overrides.{key}", f"prop '{data.get('name')}' has no field '{path[0]}' (its sizes: {sizes or 'none'}; "
                        f"or one of {', '.join(k for k in top if k != 'name')})")
    cur = data
    for p in path[:-1]:
        nxt = cur.setdefault(p, {})
        if not isinstance(nxt, dict):
            raise SpecError(source, f"overrides.{key}", f"'{p}' is not a table")
        cur = nxt
    cur[path[-1]] = value
