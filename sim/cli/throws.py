"""`dfsim throw` and `dfsim place`: one physical throw, or one die put on the board."""

from __future__ import annotations

import argparse
import json
import sys

from sim.cli.common import INDEX, SEED, AimProgress, add_scenario_options, human, number, scenario_from
from sim.cli.viewer import add_clip_options
from sim.errors import SpecError
from sim.specs.base import MAX_ANGLE_DEG, MAX_BOARD_MM

PLACE = number(-MAX_BOARD_MM, MAX_BOARD_MM)  # a position on the table, mm from the board centre


def cmd_throw(args: argparse.Namespace) -> int:
    """`dfsim throw`: one throw from (seed, index) or from an exact --release, printed as JSON or text."""
    from sim.engine.release import Release, check_release_position
    from sim.engine.worlds import thrower_for
    from sim.viewer.outputs import ThrowOutputs

    if args.release:
        release = Release.from_json(args.release)
    elif args.seed is None:
        raise SpecError("command line", "--seed", "is required (or give --release)")
    sc = scenario_from(args)
    if args.release:
        check_release_position(release, sc)  # before any world is built or any file written
    th = thrower_for(sc)
    th.aim.progress = AimProgress()
    views = ThrowOutputs(th, replay=args.replay, gif=args.gif, mp4=args.mp4)  # paths checked before throwing
    with views.recording():
        if args.release:
            res = th.throw_releases([release])
            res.seed, res.index = args.seed, args.index
        else:
            res = th.throw(args.seed, args.index)
    written = views.write(res)
    out = res.to_json()
    if not args.events:
        out.pop("events", None)
    print(json.dumps(out) if args.json else human(out))
    if written:  # on stderr, so that --json output stays one JSON object
        sys.stderr.write("dfsim: wrote " + ", ".join(str(p) for p in written) + "\n")
    return 0


def cmd_place(args: argparse.Namespace) -> int:
    """`dfsim place`: put a die at (x, y) mm on the board (optionally on templates, and in the scene of
    `--shot`, on its props), let it settle, classify it (no throw requirement applies to a placed die)."""
    from sim.engine.placement import parse_templates, place_with_templates
    from sim.engine.worlds import thrower_for

    sc = scenario_from(args)
    x_m, y_m = args.x * 1e-3, args.y * 1e-3
    if args.template:
        poses = parse_templates(args.template)
        if not args.homemade_templates:  # before any world is built
            from sim.specs.template_setup import MAX_TEMPLATES, TemplateSetup, check_box_counts

            if len(poses) > MAX_TEMPLATES:
                raise SpecError(
                    "command line", "--template", f"at most {MAX_TEMPLATES} templates ({len(poses)} given)"
                )
            check_box_counts(
                [TemplateSetup(name=p.name, x_mm=p.x_mm, y_mm=p.y_mm) for p in poses],
                "command line",
                "--template",
                "add --homemade-templates to lay the copies you made",
            )
        res = place_with_templates(sc, poses, x_m, y_m, args.yaw, args.up)
    else:
        res = thrower_for(sc).place(x_m, y_m, args.yaw, args.up)
    out = res.to_json()
    out.pop("events", None)
    print(json.dumps(out) if args.json else human(out))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `throw` and `place` commands."""
    t = sub.add_parser("throw", help="one physical throw")
    add_scenario_options(t)
    t.add_argument("--seed", type=SEED, help="root seed")
    t.add_argument("--index", type=INDEX, default=0, help="throw index within the seed's stream (default 0)")
    t.add_argument(
        "--release", help="exact release as JSON: position_mm, velocity_mps, orientation_xyzw, spin_radps"
    )
    t.add_argument("--events", action="store_true", help="include the contact event trace")
    t.add_argument(
        "--replay", metavar="HTML", help="also write a 3-D replay page of the throw (docs/viewer.md)"
    )
    add_clip_options(t)
    t.set_defaults(func=cmd_throw)

    pl = sub.add_parser("place", help="put a die on the board, let it settle, classify it")
    add_scenario_options(pl)  # --shot: the die is set down in that shot's scene, its props included
    pl.add_argument("--x", type=PLACE, required=True, help="mm")
    pl.add_argument("--y", type=PLACE, required=True, help="mm")
    pl.add_argument("--yaw", type=number(-MAX_ANGLE_DEG, MAX_ANGLE_DEG), default=0.0, help="deg about z")
    pl.add_argument("--up", help="face label to put up (down for a d4)")
    pl.add_argument(
        "--template",
        action="append",
        default=[],
        metavar="NAME:X,Y,YAW",
        help="lay a template on the board first (mm, mm, deg); repeat to add or stack more",
    )
    pl.add_argument(
        "--homemade-templates",
        action="store_true",
        help="allow more pieces of a template than the boxes hold (copies you made)",
    )
    pl.set_defaults(func=cmd_place)
