"""`dfsim boards | dice | shots | skills | templates | props` and `dfsim check FILE`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sim.errors import SpecError


def _line(kind: str, s) -> str:
    est = " (estimated)" if getattr(s, "estimated", False) else ""
    desc = getattr(s, "description", "") or getattr(s, "notes", "")
    extra = ""
    if kind == "die":
        extra = f"{s.shape}, {s.mass_g:g} g, faces: {', '.join(s.faces)}"
    elif kind == "board":
        extra = (
            f"{len(s.sections)} sections, {len(s.holes)} holes, {len(s.bones)} bones, "
            f"{2 * s.radius_m * 1e3:.0f} mm across"
        )
    elif kind == "skill":  # what tells skills apart: their spreads (one standard deviation each)
        extra = (
            f"1 sd: speed {100 * s.speed_sd_frac:.1f} %, elevation {s.elevation_sd_deg:g} deg, azimuth "
            f"{s.azimuth_sd_deg:g} deg, release point {s.height_sd_mm:g}/{s.lateral_sd_mm:g}/"
            f"{s.distance_sd_mm:g} mm (height/side/distance), spin {s.spin_sd_rps:g} rps"
        )
        if s.speed_bias_frac or s.azimuth_bias_deg:
            extra += f"; bias: speed {100 * s.speed_bias_frac:+.1f} %, azimuth {s.azimuth_bias_deg:+g} deg"
        extra = f"{desc}; {extra}" if desc else extra
    elif kind == "prop":
        pl = s.placement
        return (
            f"{s.name:<14}{est:<13} {s.shape.type:<12} {s.material:<10} "
            f"at {pl.anchor} {pl.x_mm:+g},{pl.y_mm:+g},{pl.z_mm:+g} mm"
        )
    elif kind == "template":
        b = s.outline_geom.bounds
        size = f"{(b[2] - b[0]) * 1e3:.0f}x{(b[3] - b[1]) * 1e3:.0f} mm"
        eff = [
            s.effect
            if s.effect != "damage"
            else "damage " + "/".join(str(d) for d in [s.damage, *(r.damage for r in s.regions)])
        ]
        for k in ("hero_damage", "heal", "gold"):
            if getattr(s, k):
                eff.append(f"{k} {getattr(s, k)}")
        if s.icon_insta_kill:
            eff.append("icon insta-kill")
        if s.count > 1:
            eff.append(f"x{s.count}")
        return f"{s.name:<20}{est:<13} {size:<12} {s.mass_kg * 1e3:4.1f} g  {', '.join(eff)}"
    return f"{s.name:<22}{est:<13} {extra or desc}"


def cmd_list(kind: str, args: argparse.Namespace) -> int:
    """`dfsim boards|dice|...`: one line per built-in spec of `kind` (a JSON list with --json, template masses
    in g)."""
    from sim.specs.catalog import list_kind

    specs = list_kind(kind)
    if args.json:
        rows = []
        for s in specs:
            row = s.model_dump(mode="json") | {"source": s.source}
            if kind == "template":
                row["mass_g"] = round(s.mass_kg * 1e3, 3)
            rows.append(row)
        print(json.dumps(rows))
        return 0
    for s in specs:
        print(_line(kind, s))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """`dfsim check FILE`: validate a data file of any kind (experiments build every scenario) and say it is
    ok; bad input raises SpecError."""
    from sim.specs.catalog import SPEC_CLASSES, USER_KINDS, check_file, infer_kind
    from sim.specs.datafiles import read_toml

    path = Path(args.file)
    data = read_toml(path)
    if data.get("kind") == "measured-board" or (data.get("kind") is None and "center_mm" in data):
        from sim.specs.measured_board import board_from_measurements

        board, _ = board_from_measurements(data, str(path))
        print(
            f"ok: {args.file} is a valid measured board ({len(board.sections)} sections, {len(board.holes)} "
            f"holes, {len(board.bones)} bones)"
        )
        return 0
    if data.get("kind") == "sensitivity" or (data.get("kind") is None and "parameters" in data):
        from sim.studies.sensitivity import load_sensitivity, plan_sensitivity

        plan = plan_sensitivity(*load_sensitivity(path))
        print(
            f"ok: {args.file} is a valid sensitivity analysis ({plan.spec.method}, {len(plan.X)} design "
            "points, "
            "every parameter applied at both ends of its range)"
        )
        return 0
    kind = infer_kind(path, data)
    if kind not in SPEC_CLASSES and kind not in USER_KINDS:
        if kind != "experiment":
            raise SpecError(path, "kind", f"unknown kind '{kind}'")
        from sim.experiments.kinds import resolve_any

        experiment_kind, exp = resolve_any(path)
        print(f"ok: {args.file} is a valid {experiment_kind.checked(exp)}")
        return 0
    kind, spec = check_file(path)
    msg = f"ok: {args.file} is a valid {kind}"
    if kind == "tally":  # the scene `dfsim fit-skill` builds
        from sim.studies.skill_fit import tally_scenario

        tally_scenario(spec)
    elif kind == "measurements":  # the die, table and pair `dfsim calibrate` resolves
        from sim.studies.calibration import measured_pair

        measured_pair(spec)
    if kind == "material":
        from sim.specs.material import solve_coefficients

        pf = {(p.a, p.b): p.friction for p in spec.pairs}
        pe = {(p.a, p.b): max(p.restitution, 1e-3) for p in spec.pairs}
        msg += (
            f" (worst pair error with all materials in one scene: friction {solve_coefficients(pf)[1]:.1%}, "
            f"restitution {solve_coefficients(pe)[1]:.1%})"
        )
    print(msg)
    return 0


LISTINGS = (
    ("board", "boards"),
    ("die", "dice"),
    ("shot", "shots"),
    ("skill", "skills"),
    ("template", "templates"),
    ("prop", "props"),
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add one listing command per spec kind and the `check` command."""
    for kind, name in LISTINGS:
        lp = sub.add_parser(name, help=f"list built-in {name}")
        lp.add_argument("--json", action="store_true")
        lp.set_defaults(func=lambda a, k=kind: cmd_list(k, a))
    c = sub.add_parser(
        "check",
        help="validate a data file (board, die, shot, skill, materials, template, prop, monster, fight, "
        "experiment)",
    )
    c.add_argument("file")
    c.set_defaults(func=cmd_check)
