"""Template subcommands: `dfsim templates`, `dfsim flip NAME --seed N`, and `place --template`.

Loaded by sim.cli (`_load_extensions`): `add_template_commands(subparsers)` is called from
`build_parser` after the core subcommands exist.
"""

from __future__ import annotations

import json

from . import template as _template  # noqa: F401  (registers the "template" kind for `dfsim check`)
from .errors import SpecError


def cmd_templates(args) -> int:
    from .template import builtin_templates

    specs = builtin_templates()
    if args.json:
        print(json.dumps([s.model_dump(mode="json") | {"source": s.source, "mass_g": round(s.mass_kg * 1e3, 3)} for s in specs]))
        return 0
    for s in specs:
        b = s.outline_geom.bounds
        size = f"{(b[2] - b[0]) * 1e3:.0f}x{(b[3] - b[1]) * 1e3:.0f} mm"
        eff = [s.effect if s.effect != "damage" else "damage " + "/".join(str(d) for d in [s.damage, *(r.damage for r in s.regions)])]
        for k in ("hero_damage", "heal", "gold"):
            if getattr(s, k):
                eff.append(f"{k} {getattr(s, k)}")
        if s.icon_insta_kill:
            eff.append("icon insta-kill")
        if s.count > 1:
            eff.append(f"x{s.count}")
        est = " (estimated)" if s.estimated else ""
        print(f"{s.name:<20}{est:<13} {size:<12} {s.mass_kg * 1e3:4.1f} g  {', '.join(eff)}")
    return 0


def cmd_flip(args) -> int:
    from .board import load_board
    from .flip import FLIP_SKILLS, FlipProfile, flip_template
    from .template import load_template

    spec = load_template(args.name)
    board = load_board(args.board)
    if args.skill not in FLIP_SKILLS:
        raise SpecError("command line", "--skill", f"unknown flip skill '{args.skill}' (one of {', '.join(FLIP_SKILLS)})")
    if args.seed is None:
        raise SpecError("command line", "--seed", "is required")
    prof = {}
    if args.aim:
        try:
            x, y = (float(v) for v in args.aim.split(","))
        except ValueError:
            raise SpecError("command line", "--aim", "expected X,Y in mm") from None
        prof["aim_mm"] = (x, y)
    profile = FlipProfile.from_dict(prof, "command line")
    results = flip_template(board, spec, args.seed, args.index, args.skill, profile)
    out = results[0].to_json()
    if len(results) > 1:
        out["pieces"] = [r.to_json() for r in results]
        out["flips"] = sum(r.flips for r in results)
        out["damage"] = sum(r.damage for r in results)
    if args.json:
        print(json.dumps(out))
    else:
        for r in (out.get("pieces") or [out]):
            state = "stayed" if r["stayed"] else "never stayed"
            print(f"{r['id']}: {state} at ({r['position_mm'][0]:.1f}, {r['position_mm'][1]:.1f}) mm after {r['flips']} flip(s), "
                  f"turned {r['turned_deg']:.0f} deg, damage {r['damage']}, touching {', '.join(r['touching']) or 'nothing'}")
    return 0


def _template_report(args) -> int:
    from .template_report import cmd_template_report

    return cmd_template_report(args)


def add_template_commands(sub) -> None:
    from . import cli

    t = sub.add_parser("templates", help="list built-in templates")
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=cmd_templates)

    f = sub.add_parser("flip", help="flip a template onto the board like a coin")
    f.add_argument("name", help="template name or TOML path")
    f.add_argument("--seed", type=int, help="root seed")
    f.add_argument("--index", type=int, default=0, help="flip index within the seed's stream (default 0)")
    f.add_argument("--board", default="magma", help="board name or path (default: magma)")
    f.add_argument("--skill", default="casual", help="flip skill: novice, casual, expert (default: casual)")
    f.add_argument("--aim", help="aim point X,Y in mm (default: the board centre)")
    f.add_argument("--json", action="store_true", help="print one JSON object")
    f.set_defaults(func=cmd_flip)

    r = sub.add_parser("template-report", help="template odds of a finished template-odds run (table, JSON, figure)")
    r.add_argument("out", help="the run's output folder (e.g. results/template-odds)")
    r.add_argument("--json", action="store_true")
    r.add_argument("--no-figure", action="store_true")
    r.set_defaults(func=_template_report)

    pl = cli._place_parser[0]
    if pl is not None and not any("--template" in a.option_strings for a in pl._actions):
        pl.add_argument("--template", action="append", default=[], metavar="NAME:X,Y,YAW",
                        help="lay a template on the board first (mm, mm, deg); repeat to add or stack more")
