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

from .flip import add_flip_board, add_template_body
from .template import PlacedTemplate, TemplateSpec, flat_pose, load_template, parse_template_arg

DROP_M = 0.001


@dataclass
class TemplatePose:
    name: str
    x_mm: float
    y_mm: float
    yaw_deg: float = 0.0


def parse_templates(items: list[str]) -> list[TemplatePose]:
    return [TemplatePose(*parse_template_arg(t)) for t in items]


def _ids(specs: list[TemplateSpec]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s.name] = seen.get(s.name, 0) + 1
        out.append(s.name if seen[s.name] == 1 else f"{s.name}-{seen[s.name]}")
    return out


def templates_on_prism(ph, board, template_names: list[str], die_names: list[str]) -> None:
    """Templates rest on the board's outline as a convex prism (as in the flip world), not on its
    triangle mesh: a template over the mesh costs ~1 ms a step (every triangle under it is a separate
    convex test), over the prism a few microseconds. Dice still meet only the mesh (and its holes);
    the prism ("board:under-templates") collides with templates only."""
    c = ph.client
    prism = add_flip_board(ph, board, name="board:under-templates")
    for n in template_names:
        c.setCollisionFilterPair(ph.body(n), ph.body("board"), -1, -1, 0)
    for n in die_names:
        c.setCollisionFilterPair(ph.body(n), prism, -1, -1, 0)


def fit_template_materials(ph, names: list[str]) -> None:
    """Friction / restitution for template bodies added to a world whose other bodies are final.

    `Physics.finalize_materials` solves every body's factor at once (Bullet multiplies the two bodies'
    values); re-solving with templates in the world would change the dice's and the board's factors
    and so every throw. Instead each template gets the factor that best fits its own pairs (log least
    squares) against the others' values as they are, so a throw that never touches a template is the
    very throw of the same world without templates. Contact damping of the dice against templates
    follows the material table as for any body."""
    import math

    c = ph.client
    fixed = [n for n in ph.names() if n not in names]
    info = {n: c.getDynamicsInfo(ph.body(n), -1) for n in fixed}
    for n in names:
        m = ph._material_of[n]
        lf, le = [], []
        self_pair = ph.materials.pair(m, m)
        if self_pair is not None:
            lf.append(0.5 * math.log(self_pair.friction))
            le.append(0.5 * math.log(max(self_pair.restitution, 1e-3)))
        for o in fixed:
            if o.startswith("board:under"):
                continue
            pair = ph.materials.pair(m, ph._material_of[o])
            if pair is None:
                continue
            w = 10 if o.startswith("die") else 1  # die-on-template pairs matter most
            lf += [math.log(pair.friction) - math.log(max(info[o][1], 1e-9))] * w
            le += [math.log(max(pair.restitution, 1e-3)) - math.log(max(info[o][5], 1e-9))] * w
            if o.startswith("die") and pair.contact_damping > 0:
                ph._damping[(o, n)] = pair.contact_damping
        if lf:
            c.changeDynamics(ph.body(n), -1, lateralFriction=math.exp(sum(lf) / len(lf)),
                             restitution=math.exp(sum(le) / len(le)))
    for n in ph.names():
        if n.startswith("board:under"):  # the prism under templates feels like the board
            b = info.get("board") or c.getDynamicsInfo(ph.body("board"), -1)
            c.changeDynamics(ph.body(n), -1, lateralFriction=b[1], restitution=b[5])


def settle(ph, names: list[str], max_time_s: float = 3.0, hold_s: float = 0.1) -> None:
    """Step until every named body is at rest (or the time cap)."""
    c = ph.client
    bodies = [ph.body(n) for n in names]
    still = 0.0
    for _ in range(int(max_time_s / ph.dt)):
        ph.step()
        moving = False
        for b in bodies:
            v, w = c.getBaseVelocity(b)
            if v[0] ** 2 + v[1] ** 2 + v[2] ** 2 > 1e-6 or w[0] ** 2 + w[1] ** 2 + w[2] ** 2 > 0.05:
                moving = True
                break
        still = 0.0 if moving else still + ph.dt
        if still >= hold_s:
            return


def build_scene(scenario, poses: list[TemplatePose]):
    """A fresh Thrower for `scenario` with the templates laid on its board; returns (thrower, placed)."""
    from .throw import Thrower

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
        settle(ph, [f"template:{t.id}" for t in placed] + [f"template:{tid}"])
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


def place_with_templates(scenario, args, template_args: list[str]):
    """The `dfsim place --template ...` path (called by sim.cli.cmd_place)."""
    poses = parse_templates(template_args)
    th, placed = build_scene(scenario, poses)
    res = place_die(th, placed, args.x * 1e-3, args.y * 1e-3, getattr(args, "yaw", 0.0) or 0.0, getattr(args, "up", None))
    # where the templates ended up (after settling; the die may have nudged them)
    out_templates = []
    for t in placed:
        p, q = th.physics.die_pose(t.body_name)
        out_templates.append({
            "id": t.id, "template": t.spec.name,
            "position_mm": [round(float(v) * 1e3, 3) for v in p],
            "yaw_deg": round(math.degrees(2 * math.atan2(q[2], q[3])), 3),
        })
    res.templates_json = out_templates
    _orig = res.to_json

    def to_json() -> dict:
        d = _orig()
        d["templates"] = out_templates
        return d

    res.to_json = to_json
    return res
