"""`dfsim place ... --template NAME:X,Y,YAW`: put templates on the board (stacking allowed), then the die.

Templates are laid flat, face up, in the order given, each dropped 1 mm above whatever is under its
outline (the board, the table, templates placed before it), and left to settle; then the die is put
at (X, Y) just above the highest surface under it and classified with the templates on the board.
The world is the scenario's own (table, board mesh, dice) plus one body per template; it is built
fresh for the command (the per-process thrower of the scenario is left untouched). Dice meet the
board exactly as without templates (same mesh, same margin: the engine's own physics); templates
rest on a convex prism of the board's outline that only they collide with (`templates_on_prism`),
at their true height.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sim.specs.template import PlacedTemplate, TemplateSpec, flat_pose, load_template, parse_template_arg
from sim.world.flip import add_template_body
from sim.world.templates import fit_template_materials, templates_on_prism

DROP_M = 0.001


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


def _ids(specs: list[TemplateSpec]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s.name] = seen.get(s.name, 0) + 1
        out.append(s.name if seen[s.name] == 1 else f"{s.name}-{seen[s.name]}")
    return out


def build_scene(scenario, poses: list[TemplatePose]):
    """A fresh Thrower for `scenario` with the templates laid on its board; returns (thrower, placed)."""
    from sim.engine.thrower import Thrower

    specs = [load_template(p.name) for p in poses]
    th = Thrower(scenario)
    ph = th.physics
    board = scenario.board
    ids = _ids(specs)
    for tid, spec in zip(ids, specs):
        add_template_body(ph, spec, f"template:{tid}")
    if board is not None:
        templates_on_prism(ph, board, [f"template:{t}" for t in ids], th.die_names)
    fit_template_materials(ph, [f"template:{t}" for t in ids])
    for name in th.die_names:
        ph.park(name)
    placed: list[PlacedTemplate] = []
    for tid, spec, pose in zip(ids, specs, poses):
        pos, q = flat_pose(spec, pose.x_mm, pose.y_mm, pose.yaw_deg, 0.0)
        local = PlacedTemplate(tid, spec, pos, q)
        base = 0.0
        if board is not None and board.surface.intersects(local.footprint):
            base = board.thickness_m
        for other in placed:
            if other.footprint.intersects(local.footprint):
                base = max(base, other.top_z_m)
        start = (pos[0], pos[1], base + spec.thickness_m / 2 + DROP_M)
        ph.set_state(f"template:{tid}", start, q)
        ph.settle([f"template:{t.id}" for t in placed] + [f"template:{tid}"])
        placed = [_read(ph, t.id, t.spec) for t in placed] + [_read(ph, tid, spec)]
    th.templates = placed
    return th, placed


def _read(ph, tid: str, spec: TemplateSpec) -> PlacedTemplate:
    p, q = ph.die_pose(f"template:{tid}")
    return PlacedTemplate(tid, spec, tuple(float(v) for v in p), tuple(float(v) for v in q))


def place_die(th, placed: list[PlacedTemplate], x_m: float, y_m: float, yaw_deg: float = 0.0, up: str | None = None,
              drop_mm: float = 1.0):
    """Like Thrower.place, but the die starts above the highest template under it."""
    rel = th.place_release(x_m, y_m, yaw_deg, up, drop_mm, surfaces=tuple((t.footprint, t.top_z_m) for t in placed))
    return th.throw_releases([rel], placed=True)


def place_with_templates(scenario, poses: list[TemplatePose], x_m: float, y_m: float, yaw_deg: float = 0.0,
                         up: str | None = None):
    """Lay the templates, put the die at (x, y) on top of whatever is there, classify it; the result
    carries where the templates ended up (after settling: the die may have nudged them)."""
    th, placed = build_scene(scenario, poses)
    res = place_die(th, placed, x_m, y_m, yaw_deg, up)
    for t in placed:
        p, q = th.physics.die_pose(t.body_name)
        res.templates.append({
            "id": t.id, "template": t.spec.name,
            "position_mm": [round(float(v) * 1e3, 3) for v in p],
            "yaw_deg": round(math.degrees(2 * math.atan2(q[2], q[3])), 3),
        })
    return res
