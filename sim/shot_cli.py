"""`dfsim props`: list the built-in props; loading this module also registers the prop kind, so
`dfsim check boards/props/NAME.toml` validates prop files. Auto-loaded by sim/cli.py."""

from __future__ import annotations

import json

from . import prop as _prop  # noqa: F401  (registers the "prop" kind with the catalog)


def _list_props(args) -> int:
    from .catalog import list_kind

    specs = list_kind("prop")
    if args.json:
        print(json.dumps([s.model_dump(mode="json") | {"source": s.source} for s in specs]))
        return 0
    for s in specs:
        pl = s.placement
        print(f"{s.name:<14}{' (estimated)' if s.estimated else '':<13} {s.shape.type:<12} {s.material:<10} "
              f"at {pl.anchor} {pl.x_mm:+g},{pl.y_mm:+g},{pl.z_mm:+g} mm")
    return 0


def add_shot_commands(sub) -> None:
    p = sub.add_parser("props", help="list built-in props (Firewall, Fire Ring, Lava mat, ...)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_list_props)
