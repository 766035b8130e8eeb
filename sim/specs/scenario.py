"""A scenario: the resolved, validated set of specs one kind of throw needs (the *task* side).

Built from names or paths plus dotted-path overrides (for sweeps and house rules), hashed into a
stable key, and turned into a `Thrower` (the physics side) once per process.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from sim.errors import SpecError
from sim.hashing import json_hash
from sim.specs.board import BoardSpec
from sim.specs.datafiles import read_toml, resolve
from sim.specs.die import DIE_READING_KEYS, DIE_WORDS, DieSpec
from sim.specs.material import MaterialTable
from sim.specs.physics import PhysicsSettings
from sim.specs.rules import RuleSet
from sim.specs.shot import ShotSpec
from sim.specs.skill import SkillSpec

MAX_DICE = 8  # dice thrown at once
MAX_SHOTS = 8  # shots combined into one throw


def _check_slow_tokens(props: tuple, board: BoardSpec | None) -> None:
    """Slow tokens fill holes of the board by id: every id they name must be one of the board's."""
    if board is None:
        return
    ids = [h.id or f"hole-{i}" for i, h in enumerate(board.holes)]
    for p in props:
        holes = getattr(p.shape, "holes", "all") if p.shape.traits.fills_holes else "all"
        for i, hid in enumerate([] if holes == "all" else holes):
            if hid not in ids:
                raise SpecError(
                    p.source,
                    f"shape.holes.{i}",
                    f"board '{board.name}' has no hole '{hid}' (holes: {', '.join(ids) or 'none'})",
                )


def _check_material_pairs(sc: Scenario, template_specs: list) -> None:
    """The material table has a pair for every contact the world will have: each moving body (dice,
    templates) against every material in the scene. The world would refuse a missing pair only when it
    is built, inside a run's worker."""
    board = sc.board
    users: list[tuple[str, str, str]] = []  # (material, file, field) in the order a user reads them
    users += [(d.material, d.source, "material") for d in sc.dice]
    users += [(t.material, t.source, "material") for t in template_specs]
    if board is not None:
        users += [
            (board.material, board.source, "material"),
            (board.table_material, board.source, "table_material"),
        ]
    else:
        users.append((sc.shots[0].table_material, sc.shots[0].source, "table_material"))
    users += [(p.material, p.source, "material") for p in sc.props]
    moving = {m for m, _, _ in users[: len(sc.dice) + len(template_specs)]}
    for m, where, fld in users:
        for a in sorted(moving):
            if sc.materials.pair(a, m) is None:
                raise SpecError(
                    where,
                    fld,
                    f"material '{m}' has no pair with '{a}' in the material table {sc.materials.source}",
                )


def _load_raw(kind: str, name: str | Path) -> tuple[dict, str]:
    path = resolve(kind, name)
    return read_toml(path), str(path)


def _set_path(data: dict, path: list[str], value: Any, source: str, full: str) -> None:
    """Set data[a][b]... = value; a whole-number part indexes a list (`materials.pairs.1.friction`: the
    second pair of the material table)."""
    cur: Any = data
    for p in path[:-1]:
        if isinstance(cur, list):
            cur = cur[_list_index(cur, p, source, full)]
            continue
        nxt = cur.get(p)
        if nxt is None:
            nxt = {}
            cur[p] = nxt
        if not isinstance(nxt, (dict, list)):
            raise SpecError(source, full, f"'{p}' is not a table")
        cur = nxt
    if isinstance(cur, list):
        cur[_list_index(cur, path[-1], source, full)] = value
    elif isinstance(cur, dict):
        cur[path[-1]] = value
    else:
        raise SpecError(source, full, f"'{path[-2]}' is not a table")


def _list_index(items: list, part: str, source: str, full: str) -> int:
    """The list index a path part names: a whole number below the list's length."""
    if not part.isdigit() or int(part) >= len(items):
        raise SpecError(
            source,
            full,
            f"'{part}' is not an index of a list of {len(items)} entries (0 to {len(items) - 1})",
        )
    return int(part)


@dataclass
class Scenario:
    """Everything one throw needs, resolved and validated: board, dice, shots, skill, rules, physics,
    materials, props and templates; `key` identifies it for caches."""

    board: BoardSpec | None
    dice: tuple[DieSpec, ...]
    shots: tuple[ShotSpec, ...]
    skill: SkillSpec
    rules: RuleSet
    physics: PhysicsSettings
    materials: MaterialTable
    description: dict = field(default_factory=dict)
    props: tuple = ()  # PropSpecs of all shots, each once (sim/specs/prop.py, sim/specs/combine.py)
    templates: tuple = ()  # TemplateSetups: laid or flipped before each throw (sim/specs/template_setup.py)
    flip_bank: int = 0  # flips kept in the templates' flip bank (sim/engine/flip_bank.py); 0: flip afresh

    @classmethod
    def build(
        cls,
        board: str | Path = "magma",
        dice: list[str | Path] | tuple = ("hero-d8",),
        shots: list[str | Path] | tuple = ("standard",),
        skill: str | Path = "casual",
        rules: dict | None = None,
        overrides: dict[str, Any] | None = None,
        physics: dict | None = None,
        materials: str | Path = "default",
        source: str = "<scenario>",
        templates: list | None = None,
        flip_bank: int | None = None,
    ) -> Scenario:
        """Load and validate a scenario from names or paths plus overrides; every problem raises one
        SpecError naming the file and field."""
        if isinstance(dice, (str, Path)):
            dice = [dice]
        if isinstance(shots, (str, Path)):
            shots = [shots]
        if not dice:
            raise SpecError(source, "dice", "at least one die is required")
        if not shots:
            raise SpecError(source, "shots", "at least one shot is required")
        if len(dice) > MAX_DICE:
            raise SpecError(source, "dice", f"at most {MAX_DICE} dice in one throw ({len(dice)} given)")
        if len(shots) > MAX_SHOTS:
            raise SpecError(source, "shots", f"at most {MAX_SHOTS} shots combined ({len(shots)} given)")
        raw: dict[str, Any] = {}
        srcs: dict[str, str] = {}
        raw["board"], srcs["board"] = _load_raw("board", board)
        raw["skill"], srcs["skill"] = _load_raw("skill", skill)
        raw["materials"], srcs["materials"] = _load_raw("material", materials)
        dice_raw = [_load_raw("die", d) for d in dice]
        shot_raw = [_load_raw("shot", s) for s in shots]
        raw["rules"], srcs["rules"] = dict(rules or {}), source
        raw["physics"], srcs["physics"] = dict(physics or {}), source
        raw = copy.deepcopy(raw)
        dice_d = [copy.deepcopy(d) for d, _ in dice_raw]
        shot_d = [copy.deepcopy(s) for s, _ in shot_raw]
        prop_overrides: list[tuple[list[str], Any, str]] = []
        for key, value in (overrides or {}).items():
            parts = key.split(".")
            head = parts[0]
            if len(parts) < 2:
                raise SpecError(
                    source, f"overrides.{key}", "must be a dotted path like shot.release.distance_mm"
                )
            if head == "prop":
                if len(parts) < 3:
                    raise SpecError(
                        source, f"overrides.{key}", "must be prop.NAME.FIELD, e.g. prop.firewall.height_mm"
                    )
                prop_overrides.append((parts[1:], value, key))
            elif head == "shot":
                _set_path(shot_d[0], parts[1:], value, source, key)
            elif head == "die":
                _set_path(dice_d[0], parts[1:], value, source, key)
            elif head in ("board", "skill", "rules", "physics", "materials"):
                _set_path(raw[head], parts[1:], value, source, key)
            else:
                raise SpecError(
                    source,
                    f"overrides.{key}",
                    f"unknown component '{head}' (board, die, shot, skill, rules, physics, prop)",
                )
        shot_specs = tuple(ShotSpec.from_dict(s, src) for s, (_, src) in zip(shot_d, shot_raw))
        from sim.specs.combine import canonical_indices, check_requirements, combine_shots, load_shot_props

        # combined shots in canonical order, each once: the order they are named in changes nothing
        order = canonical_indices(shot_specs)
        # a shot's role and covers decide only how it combines, and a combination's description records what
        # it
        # throws ("combined"): left out, so that adding roles kept every single shot's key and cache
        shot_d = [{k: v for k, v in shot_d[i].items() if k not in ("role", "covers")} for i in order]
        shot_specs = combine_shots(shot_specs, source)
        prop_specs, props_raw = load_shot_props(shot_specs, prop_overrides, source)
        board_spec = (
            BoardSpec.from_dict(raw["board"], srcs["board"]) if any(s.board for s in shot_specs) else None
        )
        sc = cls(
            board=board_spec,
            dice=tuple(DieSpec.from_dict(d, src) for d, (_, src) in zip(dice_d, dice_raw)),
            shots=shot_specs,
            skill=SkillSpec.from_dict(raw["skill"], srcs["skill"]),
            rules=RuleSet.from_dict(raw["rules"], f"{source} (rules)"),
            physics=PhysicsSettings.from_dict(raw["physics"], f"{source} (physics)"),
            materials=MaterialTable.from_dict(raw["materials"], srcs["materials"]),
            props=prop_specs,
        )
        grip_face = sc.shot.release.grip_face
        if grip_face is not None:  # the face held down must be a face of the die it holds
            first = sc.dice[0]
            try:
                first.face_index(grip_face)
            except KeyError:
                raise SpecError(
                    sc.shot.source,
                    "release.grip_face",
                    f"die '{first.name}' has no face '{grip_face}' (faces: {', '.join(first.faces)})",
                ) from None
        sc.description = {
            "board": raw["board"] if board_spec else None,
            "dice": dice_d,
            "shots": shot_d,
            "skill": raw["skill"],
            "rules": sc.rules.describe(),
            "physics": sc.physics.model_dump(),
            "materials": raw["materials"],
        }
        if props_raw:
            sc.description["props"] = props_raw
        if (
            len(shot_specs) > 1
        ):  # what the combination throws (sim/specs/combine.py), so caches follow its rules
            sc.description["combined"] = shot_specs[0].model_dump(
                mode="json", include={"release", "limits", "noise"}
            )
        template_specs: list = []
        if templates:
            from sim.specs.template_setup import parse_setups

            sc.templates = parse_setups(list(templates), source)
            from sim.specs.template import load_template

            template_specs = [load_template(t.name) for t in sc.templates]
            sc.description["templates"] = [
                t.model_dump(mode="json", exclude=set() if t.homemade else {"homemade"})
                | {"spec": spec.describe()}
                for t, spec in zip(sc.templates, template_specs)
            ]
        from sim.specs.template_setup import FLIP_BANK_DEFAULT, check_flip_bank

        bank = FLIP_BANK_DEFAULT if flip_bank is None else check_flip_bank(flip_bank, source)
        if bank and any(t.flip for t in sc.templates):
            # only then: a scenario without flipped templates (or flipping afresh) keeps its key
            sc.flip_bank = bank
            sc.description["flip_bank"] = bank
        check_requirements(sc.shots, prop_specs)
        from sim.specs.stance import check_stance

        check_stance(sc.shot, board_spec, sc.shot.source)
        _check_slow_tokens(prop_specs, board_spec)
        for d in sc.dice:
            if sc.materials.pair(d.material, d.material) is None and d.material not in sc.materials.materials:
                raise SpecError(d.source, "material", f"unknown material '{d.material}'")
        _check_material_pairs(sc, template_specs)
        _check_dice_fit(sc)
        return sc

    def with_physics(self, **settings: Any) -> Scenario:
        """The same scenario with some physics settings replaced (a new key: its own world)."""
        ps = PhysicsSettings.from_dict({**self.physics.model_dump(), **settings}, "<with_physics>")
        desc = dict(self.description)
        desc["physics"] = ps.model_dump()
        return dataclasses.replace(self, physics=ps, description=desc)

    def describe(self) -> dict:
        """A copy of the scenario's description in plain JSON types (it is what `key` hashes)."""
        return json.loads(json.dumps(self.description, sort_keys=True, default=str))

    @cached_property
    def aim_key(self) -> str:
        """Hash of what the aimed (nominal) release depends on: everything, the skill included (a thrower's
        technique is the one most reliable under their own spread), the dice as bodies: a face's label
        says what a landing reads, not how the die lands, so dice of one body (the box's hero, white,
        Iron and Boulder d8s) share a technique aimed at a hit (an objective that weighs the faces adds
        them: sim/engine/aim.py)."""
        return json_hash(self._aim_description())

    @cached_property
    def board_aim_key(self) -> str:
        """The aim key of this scenario without its templates: aiming at the board as usual, variants
        with and without templates share one aimed release (and so throw the very same releases)."""
        d = {k: v for k, v in self._aim_description().items() if k not in ("templates", "flip_bank")}
        return json_hash(d)

    @cached_property
    def world_key(self) -> str:
        """Hash of what the built world is made of: the aim key without the skill and the rules (a
        world is built before anyone throws in it, and the rules only judge where a die stops), so
        the rebound calibration of a scene is shared by every thrower and house rule."""
        d = {k: v for k, v in self._aim_description().items() if k not in ("skill", "rules")}
        return json_hash(d)

    @cached_property
    def faces_key(self) -> str:
        """Hash of what the dice's faces read (what `aim_key` leaves out)."""
        return json_hash([{k: d.get(k) for k in DIE_READING_KEYS} for d in self.description["dice"]])

    def _aim_description(self) -> dict:
        dice = [
            {k: v for k, v in d.items() if k not in (*DIE_WORDS, "estimated", *DIE_READING_KEYS)}
            for d in self.description["dice"]
        ]
        return {**self.description, "dice": dice}

    @cached_property
    def key(self) -> str:
        """The scenario's stable name: a hash of everything it is made of (its records' key)."""
        return json_hash(self.description)

    @property
    def shot(self) -> ShotSpec:
        """The technique of the (combined) shots: its release is the one thrown (sim/specs/combine.py)."""
        return self.shots[0]

    @property
    def requirements(self) -> list[str]:
        return list(dict.fromkeys(r for s in self.shots for r in s.requirements))


def _check_dice_fit(sc: Scenario) -> None:
    """A die must fit on the board it is thrown at: no wider than the board's radius (a 200 mm die on a
    32 mm board is a typo, and its throws would mean nothing)."""
    if sc.board is None:
        return
    reach_mm = sc.board.radius_m / 1e-3
    for d in sc.dice:
        if d.max_extent_mm > reach_mm:
            raise SpecError(
                d.source,
                "size_mm",
                f"a die {d.max_extent_mm:.3g} mm across does not fit on board "
                f"'{sc.board.name}' ({reach_mm:.3g} mm from centre to edge): dice must "
                "be at most as wide as the board's radius",
            )
