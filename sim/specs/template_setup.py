"""Templates in a scenario: which templates lie on the board for every throw, laid at a pose or flipped.

A scenario (and so an experiment variant) may carry `templates = [...]`, each entry a table:

    { name = "fireball", x_mm = 0, y_mm = 0, yaw_deg = 0 }        # laid flat there, face up
    { name = "weak-point", flip = true, skill = "casual" }        # flipped before every throw
    { name = "weak-point", flip = true, aim_mm = [100, 0] }       # ... aimed at a point
    { name = "fireball", x_mm = 50, y_mm = 0, homemade = true }   # a copy beyond the box's pieces
    aim = true                                                     # the thrower aims at this one

and a `flip_bank = N` setting: how many flips of its templates onto the empty board a scenario keeps
in its flip bank (sim/engine/flip_bank.py), each throw taking one of them; 0 flips afresh before every
throw (the records of before the bank).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from sim.errors import SpecError
from sim.specs.base import MAX_ANGLE_DEG, MAX_BOARD_MM, Name, Place, Spec
from sim.specs.flip import FLIP_SKILLS
from sim.specs.template import load_template

MAX_TEMPLATES = 20  # templates on the board in one scenario
# Flips a flip bank holds by default. A run's template poses are a resample of them, so a rate carries the
# bank's own error besides its binomial one: at most a throw's spread over the root of the size
# (docs/templates.md, "The flip bank"); a bank costs that many flip sessions, once per machine
FLIP_BANK_DEFAULT = 256
MAX_FLIP_BANK = 65536


class TemplateSetup(Spec):
    """One template of a scenario: laid at (x_mm, y_mm, yaw_deg), or flipped before every throw."""

    name: Name
    x_mm: float | None = Field(default=None, ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)
    y_mm: float | None = Field(default=None, ge=-MAX_BOARD_MM, le=MAX_BOARD_MM)
    yaw_deg: float = Field(default=0.0, ge=-MAX_ANGLE_DEG, le=MAX_ANGLE_DEG)
    flip: bool = False
    skill: Name = "casual"
    aim_mm: tuple[Place, Place] | None = None
    aim: bool = False
    homemade: bool = False  # a copy the user made, beyond the pieces the boxes hold (`in_boxes`)

    @model_validator(mode="after")
    def _check(self) -> TemplateSetup:
        if self.flip:
            if self.x_mm is not None or self.y_mm is not None:
                raise ValueError("give either flip = true or x_mm/y_mm, not both")
            if self.skill not in FLIP_SKILLS:
                raise ValueError(
                    f"skill: unknown flip skill '{self.skill}' (one of {', '.join(FLIP_SKILLS)})"
                )
            if self.aim:
                raise ValueError("aim = true is for laid templates (a flipped one is aimed with aim_mm)")
        elif self.x_mm is None or self.y_mm is None:
            raise ValueError("a laid template needs x_mm and y_mm (or flip = true)")
        return self


def parse_setups(items: list[Any], source: str) -> tuple[TemplateSetup, ...]:
    """Validate a scenario's `templates` list (each name must be a known template)."""
    if len(items) > MAX_TEMPLATES:
        raise SpecError(
            source, "templates", f"at most {MAX_TEMPLATES} templates on the board ({len(items)} given)"
        )
    out = []
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            raise SpecError(
                source, f"templates.{i}", 'expected a table like { name = "fireball", x_mm = 0, y_mm = 0 }'
            )
        setup = TemplateSetup.from_dict(it, f"{source} (templates.{i})")
        try:
            load_template(setup.name)
        except SpecError as exc:
            raise SpecError(source, f"templates.{i}.name", exc.problem) from None
        out.append(setup)
    if sum(s.aim for s in out) > 1:
        raise SpecError(source, "templates", "at most one template can have aim = true")
    check_box_counts(out, source, "templates", "mark the copies you made homemade = true")
    return tuple(out)


def check_box_counts(setups: list[TemplateSetup] | tuple, source: str, field: str, hint: str) -> None:
    """No more pieces of a template than the boxes hold (`in_boxes` of its file: two Fireballs, three
    Explosion pieces), those marked homemade aside: twenty-one Fireballs at one spot is a typo, not a
    setup. `hint` says how the user lays more anyway."""
    pieces: dict[str, int] = {}
    for s in setups:
        if not s.homemade:
            pieces[s.name] = pieces.get(s.name, 0) + load_template(s.name).count
    for name, n in pieces.items():
        spec = load_template(name)
        if n > spec.in_boxes:
            title = spec.title or spec.name
            raise SpecError(
                source,
                field,
                f"{n} pieces of the {title} template, but the boxes hold {spec.in_boxes} "
                f"({spec.source} in_boxes); {hint}",
            )


def check_flip_bank(value: Any, source: str) -> int:
    """The `flip_bank` setting as a whole number of flips (0: flip afresh before every throw)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_FLIP_BANK:
        raise SpecError(
            source,
            "flip_bank",
            f"must be a whole number from 0 (flip afresh before every throw) to {MAX_FLIP_BANK}, "
            f"not {value!r}",
        )
    return int(value)
