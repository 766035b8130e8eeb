"""`dfsim`: the command line. JSON contracts of DESIGN §10; one-line errors with exit status 2."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .errors import SpecError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        sys.stderr.write(f"dfsim: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def _parse_value(text: str) -> Any:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _pairs(items: list[str] | None, flag: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for it in items or []:
        if "=" not in it:
            raise SpecError(flag, it, "expected KEY=VALUE")
        k, v = it.split("=", 1)
        out[k.strip()] = _parse_value(v.strip())
    return out


def _scenario_args(p: argparse.ArgumentParser, default_shot: bool = True) -> None:
    p.add_argument("--board", default="magma", help="board name or TOML path (default: magma)")
    p.add_argument("--die", action="append", dest="dice", help="die name or path; repeat for several dice (default: hero-d8)")
    if default_shot:
        p.add_argument("--shot", action="append", dest="shots", help="shot profile; repeat to combine requirements (default: standard)")
        p.add_argument("--skill", default="casual", help="skill level: novice, casual, expert or a path (default: casual)")
    p.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule option, e.g. cocked=miss")
    p.add_argument("--set", action="append", metavar="PATH=VALUE", dest="overrides", help="override a setting, e.g. shot.release.distance_mm=900")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _build(args, shots=None):
    from .scenario import Scenario

    return Scenario.build(
        board=args.board,
        dice=args.dice or ["hero-d8"],
        shots=shots or getattr(args, "shots", None) or ["standard"],
        skill=getattr(args, "skill", "casual"),
        rules=_pairs(args.rule, "--rule"),
        overrides=_pairs(args.overrides, "--set"),
        source="command line",
    )


def _human(res: dict) -> str:
    lines = [f"{res['result'].upper()} ({res['reason']})"]
    if res.get("section"):
        lines.append(f"  section {res['section']} (value {res['value']})")
    cocked = "  [cocked {:.1f} deg]".format(res["tilt_deg"]) if res["cocked"] else ""
    lines.append(f"  face {res['face']}{'  [icon]' if res['icon'] else ''}{cocked}")
    lines.append(f"  damage {res['damage']:g}{'  INSTA-KILL' if res.get('insta_kill') else ''}")
    lines.append("  rest at ({:.1f}, {:.1f}) mm, touching {}".format(res["position_mm"][0], res["position_mm"][1], ", ".join(res["touching"]) or "nothing"))
    if res.get("requirements"):
        lines.append("  requirements: " + ", ".join(f"{k} {v}" for k, v in res["requirements"].items()))
    if res.get("template"):
        lines.append(f"  template {res['template']}{' (partial)' if res.get('partial_template') else ''}")
    if res.get("seed") is not None:
        lines.append(f"  seed {res['seed']} throw {res['index']}")
    return "\n".join(lines)


def cmd_throw(args) -> int:
    from .release import Release

    sc = _build(args)
    th = sc.thrower()
    if args.release:
        rel = Release.from_json(args.release)
        res = th.throw_releases([rel])
        res.seed, res.index = args.seed, args.index
    else:
        if args.seed is None:
            raise SpecError("command line", "--seed", "is required (or give --release)")
        res = th.throw(args.seed, args.index)
    out = res.to_json()
    if not args.events:
        out.pop("events", None)
    print(json.dumps(out) if args.json else _human(out))
    return 0


def cmd_place(args) -> int:
    sc = _build(args, shots=["standard"])
    extra = getattr(args, "template", None)
    if extra:
        from . import placement  # provided by the templates layer

        res = placement.place_with_templates(sc, args, extra)
    else:
        res = sc.thrower().place(args.x * 1e-3, args.y * 1e-3, args.yaw, args.up)
    out = res.to_json()
    out.pop("events", None)
    print(json.dumps(out) if args.json else _human(out))
    return 0


def _listing(kind: str, args) -> int:
    from .catalog import list_kind

    specs = list_kind(kind)
    if args.json:
        print(json.dumps([s.model_dump(mode="json") | {"source": s.source} for s in specs]))
        return 0
    for s in specs:
        est = " (estimated)" if getattr(s, "estimated", False) else ""
        desc = getattr(s, "description", "") or getattr(s, "notes", "")
        extra = ""
        if kind == "die":
            extra = f"{s.shape}, {s.mass_g:g} g, faces: {', '.join(s.faces)}"
        elif kind == "board":
            extra = f"{len(s.sections)} sections, {len(s.holes)} holes, {len(s.bones)} bones, {2 * s.radius_m * 1e3:.0f} mm across"
        print(f"{s.name:<22}{est:<13} {extra or desc}")
    return 0


def cmd_check(args) -> int:
    from .catalog import check_file

    kind, spec = check_file(args.file)
    msg = f"ok: {args.file} is a valid {kind}"
    if kind == "material":
        from .material import solve_coefficients

        pf = {(p.a, p.b): p.friction for p in spec.pairs}
        pe = {(p.a, p.b): max(p.restitution, 1e-3) for p in spec.pairs}
        msg += f" (worst pair error with all materials in one scene: friction {solve_coefficients(pf)[1]:.1%}, restitution {solve_coefficients(pe)[1]:.1%})"
    print(msg)
    return 0


def cmd_bench(args) -> int:
    from .bench import run_bench

    out = run_bench(throws=args.throws, naive_throws=args.naive_throws)
    print(json.dumps(out) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dfsim", description="Dungeon Fighter throw simulator")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    t = sub.add_parser("throw", help="one physical throw")
    _scenario_args(t)
    t.add_argument("--seed", type=int, help="root seed")
    t.add_argument("--index", type=int, default=0, help="throw index within the seed's stream (default 0)")
    t.add_argument("--release", help="exact release as JSON: position_mm, velocity_mps, orientation_xyzw, spin_radps")
    t.add_argument("--events", action="store_true", help="include the contact event trace")
    t.set_defaults(func=cmd_throw)

    pl = sub.add_parser("place", help="put a die on the board, let it settle, classify it")
    _scenario_args(pl, default_shot=False)
    pl.add_argument("--x", type=float, required=True, help="mm")
    pl.add_argument("--y", type=float, required=True, help="mm")
    pl.add_argument("--yaw", type=float, default=0.0, help="deg about z")
    pl.add_argument("--up", help="face label to put up (down for a d4)")
    pl.set_defaults(func=cmd_place)
    _place_parser[0] = pl

    for kind, name in (("board", "boards"), ("die", "dice"), ("shot", "shots"), ("skill", "skills")):
        lp = sub.add_parser(name, help=f"list built-in {name}")
        lp.add_argument("--json", action="store_true")
        lp.set_defaults(func=lambda a, k=kind: _listing(k, a))

    c = sub.add_parser("check", help="validate a data file (board, die, shot, skill, materials, ...)")
    c.add_argument("file")
    c.set_defaults(func=cmd_check)

    b = sub.add_parser("bench", help="throughput of the reference scene vs a naive loop")
    b.add_argument("--throws", type=int, default=300)
    b.add_argument("--naive-throws", type=int, default=10)
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=cmd_bench)

    for hook in _EXTENSIONS:
        hook(sub)
    return p


_place_parser: list[Any] = [None]
_EXTENSIONS: list[Any] = []


def _load_extensions() -> None:
    """Subcommands contributed by the experiment, template and prop layers, when present."""
    import importlib

    for mod, fn in (("sim.runner", "add_experiment_commands"), ("sim.template_cli", "add_template_commands"), ("sim.shot_cli", "add_shot_commands"),
                    ("sim.tune_cli", "add_parser")):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name == mod:
                continue
            raise
        hook = getattr(m, fn, None)
        if hook is not None and hook not in _EXTENSIONS:
            _EXTENSIONS.append(hook)


def main(argv: list[str] | None = None) -> int:
    from .physics import _silenced_c_output

    with _silenced_c_output():  # extensions may import pybullet, whose C code prints on import
        _load_extensions()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except SpecError as exc:
        sys.stderr.write(f"dfsim: {exc}\n")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        sys.stderr.write("dfsim: interrupted\n")
        return 130
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    # `python -m sim.cli`: run the imported module's main, so that extension hooks (which import
    # sim.cli) see the same parser objects as the command they extend
    from sim.cli import main as _main

    raise SystemExit(_main())
