"""`dfsim place ... --template NAME:X,Y,YAW`: put templates on the board (stacking allowed), then the die.

Templates are laid flat, face up, in the order given, each dropped 1 mm above whatever is under its
outline (the board, the table, templates placed before it), and left to settle (by `TemplateLayer`,
exactly as in experiments); then the die is put
at (X, Y) just above the highest surface under it and classified with the templates on the board.
The world is the scenario's own (table, board, dice) plus one body per template; it is built
fresh for the command (the per-process thrower of the scenario is left untouched). Dice meet the
board exactly as without templates (the same solids: the engine's own physics); templates
rest on a convex prism of the board's outline that only they collide with (`templates_on_prism`),
at their true height.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from sim.engine.templates import attach_templates
from sim.engine.thrower import Thrower
from sim.specs.template import PlacedTemplate, parse_template_arg
from sim.specs.template_setup import TemplateSetup


@dataclass
class TemplatePose:
    """One template to lay for `dfsim place`: its name and centroid position (mm, board frame) and yaw
    (deg)."""

    name: str
    x_mm: float
    y_mm: float
    yaw_deg: float = 0.0


def parse_templates(items: list[str]) -> list[TemplatePose]:
    """`NAME:X,Y,YAW` command-line items as poses."""
    return [TemplatePose(*parse_template_arg(t)) for t in items]


def build_scene(scenario, poses: list[TemplatePose]):
    """A fresh Thrower for `scenario` with the templates laid on its board (by the same component that lays
    templates in experiments: one laying routine); returns (thrower, placed templates)."""
    setups = tuple(TemplateSetup(name=p.name, x_mm=p.x_mm, y_mm=p.y_mm, yaw_deg=p.yaw_deg) for p in poses)
    th = Thrower(dataclasses.replace(scenario, templates=setups))
    attach_templates(th)
    return th, list(th.templates)


def place_die(
    th,
    placed: list[PlacedTemplate],
    x_m: float,
    y_m: float,
    yaw_deg: float = 0.0,
    up: str | None = None,
    drop_mm: float = 1.0,
):
    """Like Thrower.place, but the die starts above the highest template under it."""
    rel = th.place_release(
        x_m, y_m, yaw_deg, up, drop_mm, surfaces=tuple((t.footprint, t.top_z_m) for t in placed)
    )
    return th.throw_releases([rel], placed=True)


def place_with_templates(
    scenario, poses: list[TemplatePose], x_m: float, y_m: float, yaw_deg: float = 0.0, up: str | None = None
):
    """Lay the templates, put the die at (x, y) on top of whatever is there, classify it; the result
    carries where the templates ended up (after settling: the die may have nudged them)."""
    th, placed = build_scene(scenario, poses)
    res = place_die(th, placed, x_m, y_m, yaw_deg, up)
    for t in placed:
        p, q = th.physics.die_pose(t.body_name)
        res.templates.append(
            {
                "id": t.id,
                "template": t.spec.name,
                "position_mm": [round(float(v) * 1e3, 3) for v in p],
                "yaw_deg": round(math.degrees(2 * math.atan2(q[2], q[3])), 3),
            }
        )
    return res
