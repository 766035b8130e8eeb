"""What a replay draws, as plain JSON: the board, dice, props and templates of a scenario, and throws.

Why JSON built here: the page's JavaScript only draws; every shape comes from the same specs the
engine and the classifier use (BoardSpec regions in painter's order, DieSpec faces and labels, the
prop meshes PyBullet was given, template outlines), so the picture is the world that was simulated.
Lengths are millimetres (rounded to 0.01 mm), times seconds, orientations quaternions (x, y, z, w).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import shapely
import shapely.affinity
import shapely.geometry
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel, unary_union

from sim.hashing import json_hash
from sim.viewer.recorder import Trajectory

SIMPLIFY_MM = 0.05  # outline simplification: far below what a page shows, and it halves the points
MIN_LABEL_AREA_MM2 = 200.0  # pieces smaller than this carry no value label


def _r(x: float, nd: int = 2) -> float:
    v = round(float(x), nd)
    return 0.0 if v == 0 else v


def _polygons(geom: BaseGeometry | None) -> list:
    if geom is None or geom.is_empty:
        return []
    if geom.geom_type == "Polygon":
        return [geom]
    return [p for g in getattr(geom, "geoms", []) for p in _polygons(g)]


def _rings(geom: BaseGeometry, scale: float = 1e3) -> list[dict[str, Any]]:
    """Polygons in mm: [{"ext": [[x, y], ...], "holes": [[[x, y], ...], ...]}], rings open (no repeat)."""
    out = []
    for poly in _polygons(geom):
        poly = shapely.affinity.scale(poly, scale, scale, origin=(0, 0)).simplify(SIMPLIFY_MM)
        for p in _polygons(poly):
            if p.area <= 0:
                continue
            p = shapely.geometry.polygon.orient(p)
            out.append(
                {
                    "ext": [[_r(x), _r(y)] for x, y in list(p.exterior.coords)[:-1]],
                    "holes": [[[_r(x), _r(y)] for x, y in list(r.coords)[:-1]] for r in p.interiors],
                }
            )
    return out


def _labels(geom: BaseGeometry, scale: float = 1e3) -> list[list[float]]:
    """Where to print a region's label: [x, y, size] (mm) per piece big enough to carry one."""
    out = []
    for poly in _polygons(geom):
        p = shapely.affinity.scale(poly, scale, scale, origin=(0, 0))
        if p.area < MIN_LABEL_AREA_MM2:
            continue
        pt = polylabel(p, tolerance=0.5)
        room = (
            p.exterior.distance(pt)
            if not p.interiors
            else min(p.boundary.distance(pt), p.exterior.distance(pt))
        )
        out.append([_r(pt.x, 1), _r(pt.y, 1), _r(min(40.0, max(6.0, 1.3 * room)), 1)])
    return out


def _section_colour(t: float) -> str:
    import matplotlib

    r, g, b, _ = matplotlib.colormaps["Oranges"](t)
    return f"#{int(255 * r):02x}{int(255 * g):02x}{int(255 * b):02x}"


def board_json(board) -> dict[str, Any] | None:
    """The board: its cardboard (outline minus holes) and every visible region in painter's order
    (sections, then bones over them; a later layer covers an earlier one, as the classifier reads it)."""
    if board is None:
        return None
    surface = board.surface
    layers: list[tuple[BaseGeometry, dict[str, Any]]] = []
    values = [s.value for s in board.sections] or [0]
    vmin, vmax = min(values), max(values)
    for s in board.sections:
        t = 0.15 + 0.6 * ((s.value - vmin) / (vmax - vmin) if vmax > vmin else 0.5)
        layers.append(
            (
                s.shape.geometry(),
                {
                    "kind": "section",
                    "id": s.id,
                    "value": s.value,
                    "bullseye": s.bullseye,
                    "colour": "#c0392b" if s.bullseye else _section_colour(t),
                },
            )
        )
    for i, b in enumerate(board.bones):
        layers.append(
            (b.shape.geometry(), {"kind": "bones", "id": b.id or f"bones-{i}", "colour": "#e8e2d0"})
        )
    regions = []
    covered = None
    for geom, info in reversed(layers):
        vis = geom.intersection(surface)
        if covered is not None:
            vis = vis.difference(covered)
        covered = geom if covered is None else unary_union([covered, geom])
        if vis.is_empty or vis.area <= 0:
            continue
        regions.append(info | {"polys": _rings(vis), "labels": _labels(vis)})
    regions.reverse()
    holes = [
        {"id": h.id or f"hole-{i}", "polys": _rings(g)}
        for i, (h, g) in enumerate(zip(board.holes, board.hole_geoms))
    ]
    return {
        "name": board.name,
        "thickness_mm": _r(board.thickness_mm),
        "radius_mm": _r(board.radius_m * 1e3),
        "surface": _rings(surface),
        "regions": regions,
        "holes": holes,
    }


def die_json(die) -> dict[str, Any]:
    """A die as its flat faces (body frame, mm), each with its label: what the classifier reads."""
    faces = []
    for label, f in zip(die.faces, die.face_geometry):
        faces.append(
            {
                "label": label,
                "icon": bool(die.is_icon(label)),
                "normal": [_r(v, 5) for v in f.normal],
                "corners": [[_r(v * 1e3, 3) for v in c] for c in f.corners],
            }
        )
    return {
        "kind": "die",
        "name": die.name,
        "colour": die.color,
        "shape": die.shape,
        "reading": die.reading_rule,
        "faces": faces,
    }


def _mesh_json(verts: np.ndarray, idx: np.ndarray, scale: float = 1e3) -> dict[str, Any]:
    v = np.round(np.asarray(verts, float).reshape(-1, 3) * scale, 2)
    return {"v": [_r(x) for x in v.ravel()], "f": [int(i) for i in np.asarray(idx).ravel()]}


def _box_mesh(parts) -> tuple[np.ndarray, np.ndarray]:
    """Triangle mesh (body frame, m) of compound box parts ((centre), (half extents)[, yaw])."""
    verts: list[np.ndarray] = []
    idx: list[int] = []
    quad = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    for p in parts:
        c, h = np.asarray(p[0], float), np.asarray(p[1], float)
        yaw = p[2] if len(p) > 2 else 0.0
        rz = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1.0]])
        base = len(verts)
        for sx in (-1, 1):
            for sy in (-1, 1):
                for sz in (-1, 1):
                    verts.append(c + rz @ (h * np.array([sx, sy, sz])))
        for a, b, cc, d in quad:
            idx += [base + a, base + b, base + cc, base + a, base + cc, base + d]
    return np.array(verts), np.array(idx)


def _hulls_mesh(hulls) -> tuple[np.ndarray, np.ndarray]:
    """Triangle mesh (body frame, m) of convex pieces: each piece's convex hull."""
    from scipy.spatial import ConvexHull

    verts: list[np.ndarray] = []
    idx: list[int] = []
    for h in hulls:
        pts = np.asarray(h, float)
        hull = ConvexHull(pts)
        base = len(verts)
        verts += list(pts)
        for simplex, eq in zip(hull.simplices, hull.equations):
            a, b, c = pts[simplex]
            tri = simplex if np.dot(np.cross(b - a, c - a), eq[:3]) > 0 else simplex[[0, 2, 1]]
            idx += [base + int(i) for i in tri]
    return np.array(verts), np.array(idx)


def props_json(thrower) -> dict[str, Any]:
    """Every prop body: its mesh in its body frame (what PyBullet was given, read back from the world's
    Physics) and what it is."""
    out: dict[str, Any] = {}
    world = getattr(thrower, "props", None)
    if world is None:
        return out
    ph = thrower.physics
    for pp in world.props.values():
        for name in pp.bodies:
            g = ph.body_geometry(name)
            if g is None or (g.mesh is None and not g.boxes and not g.hulls):
                continue
            if g.mesh is not None:
                verts, idx = g.mesh
            else:
                verts, idx = _box_mesh(g.boxes) if g.boxes else _hulls_mesh(g.hulls)
            out[name] = {
                "kind": "prop",
                "prop": pp.name,
                "type": pp.type,
                "colour": pp.traits.colour,
                "mesh": _mesh_json(verts, idx),
            }
    return out


def templates_json(thrower) -> dict[str, Any]:
    """Template bodies (body frame = outline centroid, mid-thickness): outline, printed regions, damage."""
    out: dict[str, Any] = {}
    for tid, spec, _setup in getattr(thrower, "pieces", []):
        cx, cy = spec.centroid_m
        regions = []
        for r in spec.regions:
            g = shapely.affinity.translate(r.shape.geometry(), -cx, -cy).intersection(spec.local_outline)
            regions.append({"id": r.id, "value": r.damage, "polys": _rings(g), "labels": _labels(g)})
        out[f"template:{tid}"] = {
            "kind": "template",
            "name": spec.name,
            "title": spec.title or spec.name,
            "effect": spec.effect,
            "value": spec.damage,
            "thickness_mm": _r(spec.thickness_mm),
            "outline": _rings(spec.local_outline),
            "labels": _labels(spec.local_outline),
            "regions": regions,
        }
    return out


def scene_json(thrower) -> dict[str, Any]:
    """Everything static about a thrower's world: board, dice, props, templates (not their poses)."""
    sc = thrower.scenario
    bodies: dict[str, Any] = {}
    for name, die in zip(thrower.die_names, sc.dice):
        bodies[name] = die_json(die)
    bodies.update(props_json(thrower))
    bodies.update(templates_json(thrower))
    scene: dict[str, Any] = {
        "board": board_json(sc.board),
        "table": {"colour": "#6b4f35", "half_size_mm": 1500},
        "bodies": bodies,
    }
    # a key of the drawing itself: cells that differ only in skill (same world) share one scene
    scene["key"] = json_hash(scene, length=12)
    return scene


EVENT_KINDS = (
    ("table", "table"),
    ("board", "board"),
    ("prop:", "prop"),
    ("template:", "template"),
    ("die:", "die"),
)


def event_kind(other: str) -> str:
    """The kind of body a contact was with (table, board, prop, template, die, other), from its name's
    prefix."""
    for prefix, kind in EVENT_KINDS:
        if other.startswith(prefix):
            return kind
    return "other"


def _pose_rows(arr: np.ndarray) -> list[float]:
    """Frames of one body as a flat list: x, y, z in mm (0.01), quaternion (1e-5)."""
    a = np.asarray(arr, float).reshape(-1, 7)
    out = np.empty_like(a)
    out[:, :3] = np.round(a[:, :3] * 1e3, 2)
    out[:, 3:] = np.round(a[:, 3:], 5)
    return [_r(v, 5) for v in out.ravel()]


def throw_json(
    traj: Trajectory, result, label: str = "", extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One throw for the page: frames of every body that was in play, events, outcome and release."""
    bodies = {}
    for name, arr in traj.poses.items():
        if traj.visible(name):
            bodies[name] = _pose_rows(arr)
    static = {n: _pose_rows(p)[:7] for n, p in traj.static_poses.items() if traj.visible(n)}
    events = [
        {
            "t": _r(e.time_s, 4),
            "die": e.die,
            "other": e.other,
            "kind": event_kind(e.other),
            "at": [_r(v * 1e3, 1) for v in e.point_m],
            "speed": _r(e.speed_mps, 3),
        }
        for e in traj.events
    ]
    outs = [o.to_json() for o in result.outcomes]
    for o in outs:
        o.pop("orientation_xyzw", None)
    rel = result.releases[0].to_json() if result.releases else None
    return {
        "label": label,
        "seed": result.seed,
        "index": result.index,
        "fps": traj.fps,
        "t": [_r(t, 4) for t in traj.times_s],
        "bodies": bodies,
        "static": static,
        "dice": [d for d in traj.dice if d in bodies],
        "events": events,
        "outcome": outs[0],
        "outcomes": outs if len(outs) > 1 else None,
        "release": rel,
        "extra": extra or {},
    }
