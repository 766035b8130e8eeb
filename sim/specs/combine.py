"""Combining specific throws (a monster, a room and a weapon can each demand one).

"If, during a combat, both the Monster and the Room (and possibly even a Weapon!) each require a
Specific Throw, the Heroes must combine those throws." A combination is composed the same way
whatever the order the cards (or `--shot` options) name the shots in, by what each shot says about
the throw (its `role`, sim/specs/shot.py):

- **grip** (arm, elbow, thumb, flip, slap, cup, waterfall, roll): where the die starts and how it
  leaves the body; **hand** (friendly): whose hand throws; **body** (jump, wrist): the thrower's
  body; **scene** (firewall, lava, puddle, fire-ring, gate, smash): a hand throw tuned to a prop the
  die must pass or bounce on; **plain** (standard, and the board modifiers volcano, slow-tokens,
  fire-token: props lying on the board change where the die lands, not the throw); **stance** (far):
  where the thrower stands.
- The shots are put in canonical order (by role in that order, then by name, scenes as below; a shot named
  twice
  counts once, and so does a shot another one `covers`: the Thumb and Flip Shots have one rule text,
  "flips the die with their thumb, as if they were flipping a coin", and either throw meets both),
  and the first is the **technique**: its `[release]`, `[limits]` and `[noise]` are the
  throw's. A die starts in one place and one hand throws it: two different grips, or two different
  hands, cannot be combined (refused in one line).
- **Where the die must bounce** belongs to the props: with a technique that is not a scene, the
  first scene's `aim` and `bounce_gap_mm` replace the technique's (Lava + Elbow bounces on the mat,
  thrown from the elbow). Scenes are ordered by their aimed bounce, the one furthest from the board
  first (Puddle 180 mm, Firewall 160, Lava 150, Gate and Smash 120, Fire Ring 100): the props a die
  must bounce on or before (the Puddle's hole, the mat, the wall) ask for room before the board,
  the ones it passes through (Gate, Fire Ring) for none. An unaimed technique (cup, waterfall, roll)
  stays unaimed.
- **Every other shot's `[combine]`** changes the technique's release, and these commute:
  `distance_add_mm`, `height_add_mm`, `lateral_add_mm` and `bounce_gap_add_mm` add (Far steps back 70
  cm and aims the bounce 90 mm earlier, Jump raises the hand 15 cm, Friendly moves it 12 cm to the
  thrower's right), `height_max_mm` caps the release height (Wrist on the Table: 60 mm, the lowest
  cap of all), `noise` multiplies into the technique's (a Friendly or Jump shot makes any other throw
  sloppier). The technique's `[limits]` move with the added distance and height.
- **What the props demand**: every other scene's `[limits]` (the Firewall's lob: elevation >= 0)
  intersect the technique's. A height cap below the technique's lowest release, or an empty
  intersection, cannot be thrown: refused in one line naming the shots and the quantity (Elbow +
  Wrist: the elbow is at least 250 mm up, the wrist allows 60).
- The nominal release is put inside the combined limits; props are the union over all shots, each
  prop once (by its name); requirements are the union, identical ones counted once (the rulebook: "If
  the throw requirements of 2 or more cards are the same, then they count as one requirement").

A shot of role stance alone is the plain throw with its own `[combine]` (the Far Shot's `[release]` is
the standard one stepped back: `far` and `standard + far` throw the same release, tests/specs).
Each pair of built-in shots is tabulated in docs/shots-and-props.md (`pair_table`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

from sim.errors import SpecError
from sim.specs.base import validated
from sim.specs.datafiles import read_toml, resolve
from sim.specs.requirements import REQUIRED_PROP
from sim.specs.shot import LIMIT_PAIRS, SHOT_ROLES, NoiseMultipliers, ReleaseLimits, ShotSpec

# at most one shot of these roles in a throw, and why
ONE_ONLY = {
    "grip": "say where the die starts, and a die starts in one place",
    "hand": "say whose hand throws, and one hand throws the die",
}
UNITS = dict(LIMIT_PAIRS)


def canonical_indices(shots: Sequence[ShotSpec]) -> list[int]:
    """The positions of `shots` in canonical order, each different shot once: by role (grip, hand,
    body, scene, plain, stance), scenes by their aimed bounce (furthest from the board first), then by
    name, then content. The first is the combination's technique."""
    seen: list[str] = []
    keep: list[tuple[tuple, int]] = []
    for i, s in enumerate(shots):
        body = json.dumps(s.model_dump(mode="json"), sort_keys=True)
        if body in seen:
            continue
        seen.append(body)
        # scenes: the one aiming its bounce furthest from the board first (it leads the aim, below)
        gap = -s.release.bounce_gap_mm if s.role == "scene" else 0.0
        keep.append(((SHOT_ROLES.index(s.role), gap, s.name, body), i))
    out: list[int] = []
    for _, i in sorted(keep):
        s = shots[i]
        # a shot another one covers is met by that one's throw (either way round: the first of the two)
        if not any(s.name in shots[j].covers or shots[j].name in s.covers for j in out):
            out.append(i)
    return out


def combine_shots(shots: Sequence[ShotSpec], source: str = "<scenario>") -> tuple[ShotSpec, ...]:
    """The shots in canonical order, the first (the technique) with every other shot's release
    constraints folded in (docstring of this module); a combination that cannot be thrown raises
    SpecError naming `source`'s `shots`."""
    ordered = tuple(shots[i] for i in canonical_indices(shots))
    if len(ordered) < 2:
        return ordered
    base, rest = ordered[0], ordered[1:]
    both = " + ".join(s.name for s in ordered)
    for s in rest:
        if s.role == base.role and base.role in ONE_ONLY:
            raise SpecError(
                source,
                "shots",
                f"{both} cannot be combined: {base.name} and {s.name} both "
                f"{ONE_ONLY[base.role]} ({_what(base)}; {_what(s)})",
            )
    rel = base.release.model_dump()
    noise = base.noise.model_dump()
    lim = base.limits.model_dump()
    scenes = [s for s in rest if s.role == "scene"]
    if scenes and base.role != "scene" and rel["aim"] != "none":
        lead = scenes[0].release  # where the die must bounce: the props' (the first scene's)
        rel.update(aim=lead.aim, aim_mm=lead.aim_mm, bounce_gap_mm=lead.bounce_gap_mm)
    cap: tuple[float, ShotSpec] | None = None
    raised: list[str] = []
    for s in rest:
        c = s.combine
        rel["distance_mm"] += c.distance_add_mm
        rel["height_mm"] += c.height_add_mm
        rel["lateral_mm"] += c.lateral_add_mm
        rel["bounce_gap_mm"] += c.bounce_gap_add_mm
        for k, add in (("distance", c.distance_add_mm), ("height", c.height_add_mm)):
            for side in ("min", "max"):
                if lim[f"{k}_{side}_mm"] is not None:
                    lim[f"{k}_{side}_mm"] += add
        if c.height_add_mm:
            raised.append(f"{s.name}'s {c.height_add_mm:+g} mm")
        if c.height_max_mm is not None and (cap is None or c.height_max_mm < cap[0]):
            cap = (c.height_max_mm, s)
        for k, v in c.noise.model_dump().items():
            noise[k] *= v
    for s in scenes:  # what each prop demands of any throw
        for stem, unit in LIMIT_PAIRS:
            lo, hi = lim[f"{stem}_min_{unit}"], lim[f"{stem}_max_{unit}"]
            slo, shi = s.limits.bounds(stem)
            lo = slo if lo is None else lo if slo is None else max(lo, slo)
            hi = shi if hi is None else hi if shi is None else min(hi, shi)
            if lo is not None and hi is not None and lo > hi:
                raise SpecError(
                    source,
                    "shots",
                    f"{both} cannot be combined: {base.name} allows {stem} "
                    f"{_range(base.limits.bounds(stem), unit)}, {s.name} demands "
                    f"{_range((slo, shi), unit)}",
                )
            lim[f"{stem}_min_{unit}"], lim[f"{stem}_max_{unit}"] = lo, hi
    for s in scenes:  # the techniques every prop leaves the hand (a grip or a spin axis all allow)
        for key in ("grips", "spin_axes"):
            kept = tuple(g for g in lim[key] if g in getattr(s.limits, key))
            if not kept:
                raise SpecError(
                    source,
                    "shots",
                    f"{both} cannot be combined: {base.name} allows {key} {', '.join(lim[key])}, "
                    f"{s.name} {', '.join(getattr(s.limits, key))}",
                )
            lim[key] = kept
    if rel["grip"] not in lim["grips"]:
        rel.update(grip=lim["grips"][0], grip_face=None)
    if rel["spin_axis"] not in lim["spin_axes"]:
        rel["spin_axis"] = lim["spin_axes"][0]
    if cap is not None:
        top, capper = cap
        low = lim["height_min_mm"]
        if low is not None and low > top:
            with_raise = f" (with {', '.join(raised)})" if raised else ""
            raise SpecError(
                source,
                "shots",
                f"{both} cannot be combined: {capper.name} holds the release at most "
                f"{top:g} mm above the table, {base.name}'s release{with_raise} is at least {low:g} mm up",
            )
        lim["height_max_mm"] = top if lim["height_max_mm"] is None else min(lim["height_max_mm"], top)
    limits = validated(ReleaseLimits, lim, f"{base.source} (combined: {both})", "limits")
    # the nominal release inside what the combination allows
    for stem, key in (("height", "height_mm"), ("distance", "distance_mm"), ("spin", "spin_rps")):
        rel[key] = limits.clip(stem, rel[key])
    if rel["aim"] == "none":
        rel["speed_mps"] = limits.clip("speed", rel["speed_mps"])
        rel["elevation_deg"] = limits.clip("elevation", rel["elevation_deg"])
    if rel["distance_mm"] <= 0 or rel["height_mm"] <= 0:
        raise SpecError(source, "shots", f"{both} give a non-positive release distance or height")
    where = f"{base.source} (combined: {both})"
    merged = base.model_copy(
        update={
            "release": validated(type(base.release), rel, where, "release"),
            "noise": validated(NoiseMultipliers, noise, where, "noise"),
            "limits": limits,
        }
    )
    return (merged.with_source(base.source), *rest)


def _what(s: ShotSpec) -> str:
    return f"{s.name}: {s.description.rstrip('.')}" if s.description else s.name


def _range(bounds: tuple[float | None, float | None], unit: str) -> str:
    lo, hi = bounds
    if lo is None:
        return f"at most {hi:g} {unit}"
    if hi is None:
        return f"at least {lo:g} {unit}"
    return f"{lo:g}..{hi:g} {unit}"


def pair_table(names: Sequence[str]) -> list[str]:
    """Markdown rows, one per unordered pair of the named shots: the technique thrown, where from
    (hand distance, height and lateral offset, mm), the aimed bounce before the board edge (mm), the
    limits the combination changes, or why it cannot be combined."""
    from sim.specs.shot import load_shot

    specs = {n: load_shot(n) for n in names}
    rows = [
        "| shots | thrown as | from: distance, height, lateral (mm) | bounce gap (mm) | limits the other "
        "shot changes |",
        "| --- | --- | --- | --- | --- |",
    ]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            try:
                shots = combine_shots((specs[a], specs[b]))
            except SpecError as exc:
                rows.append(f"| {a} + {b} | refused: {exc.problem.split(': ', 1)[-1].split(' (')[0]} | | | |")
                continue
            t = shots[0]
            r = t.release
            alone = specs[t.name]
            changed = [
                f"{stem} {_range(t.limits.bounds(stem), UNITS[stem])}"
                for stem, _ in LIMIT_PAIRS
                if t.limits.bounds(stem) != alone.limits.bounds(stem)
            ]
            gap = "unaimed" if r.aim == "none" else f"{r.bounce_gap_mm:g}"
            rows.append(
                f"| {a} + {b} | {t.name} | {r.distance_mm:g}, {r.height_mm:g}, {r.lateral_mm:g} | {gap} | "
                f"{'; '.join(changed) or '-'} |"
            )
    return rows


def check_requirements(shots: tuple[ShotSpec, ...], props: tuple) -> None:
    """Every requirement of every shot has the prop it reads among `props` (the props of all the shots),
    and a shot thrown without a board has no prop anchored to the board."""
    prop_types = {p.shape.type for p in props}
    for s in shots:
        for i, r in enumerate(s.requirements):
            need = REQUIRED_PROP.get(r)
            if need is not None and need not in prop_types:
                raise SpecError(
                    s.source, f"requirements.{i}", f"'{r}' needs a '{need}' prop; add one to the shot's props"
                )
    if shots and not any(s.board for s in shots):
        for p in props:
            if p.placement.anchor in ("board", "board-edge") or p.shape.traits.fills_holes:
                what = (
                    f"{p.shape.type.replace('-', ' ')} need"
                    if p.shape.traits.fills_holes
                    else f"anchor '{p.placement.anchor}' needs"
                )
                raise SpecError(
                    p.source,
                    "placement.anchor" if "anchor" in what else "shape",
                    f"{what} a board (the shot has board = false)",
                )


def load_shot_props(
    shots: tuple[ShotSpec, ...],
    overrides: list[tuple[list[str], Any, str]] | tuple = (),
    source: str = "<scenario>",
) -> tuple[tuple, dict]:
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
            raise SpecError(
                source,
                f"overrides.{key}",
                f"the scene has no prop '{parts[0]}' (props: {', '.join(names) or 'none'})",
            )
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
        sizes = ", ".join(
            k
            for k, v in shape.items()
            if k != "type" and isinstance(v, (int, float)) and not isinstance(v, bool)
        )
        raise SpecError(
            source,
            f"overrides.{key}",
            f"prop '{data.get('name')}' has no field '{path[0]}' (its sizes: {sizes or 'none'}; "
            f"or one of {', '.join(k for k in top if k != 'name')})",
        )
    cur = data
    for p in path[:-1]:
        nxt = cur.setdefault(p, {})
        if not isinstance(nxt, dict):
            raise SpecError(source, f"overrides.{key}", f"'{p}' is not a table")
        cur = nxt
    cur[path[-1]] = value
