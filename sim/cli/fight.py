"""`dfsim fight FIGHT.toml --records RESULTS_DIR`: play a fight from recorded throws; `dfsim monsters`.

One fight prints its blow-by-blow log; `--fights N` plays fights 0..N-1 (fight i depends only on
(seed, i)) and prints how hard the fight is: the win rate with its interval and the cost of the
fights. Throws come from the records of a `dfsim run` folder (sim.fights.resample), or with
`--engine physics` from physics in the loop (sim.fights.physics_source: every throw simulated, the
dice of earlier throws lying on the board; slow, ~0.1-0.5 s per throw).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from sim.cli.common import INDEX, SEED, integer, json_or_text, split_pair
from sim.errors import SpecError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `fight` and `monsters` commands to the CLI's subparsers."""
    p = sub.add_parser("fight", help="play a fight (monster, room, party) with resampled recorded throws")
    p.add_argument("fight", help="fight file, or a built-in fight name (fights/), e.g. 'reference'")
    p.add_argument(
        "--records", metavar="RESULTS_DIR", help="output folder of a `dfsim run` whose throws are resampled"
    )
    p.add_argument(
        "--engine",
        choices=("resample", "physics"),
        default="resample",
        help="resample recorded throws (--records, default) or simulate every throw with the dice "
        "left on the board (physics)",
    )
    p.add_argument(
        "--variant", help="use only this variant's throws from RESULTS_DIR (default: the fight file's)"
    )
    p.add_argument("--seed", type=SEED, help="root seed (default: the fight file's)")
    p.add_argument(
        "--fights", type=integer(1, 10_000_000), help="how many fights to play (default: the fight file's, 1)"
    )
    p.add_argument("--first", type=INDEX, default=0, help="index of the first fight (default 0)")
    p.add_argument("--policy", help="named policy (default: the fight file's)")
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        dest="overrides",
        help="override a fight setting, e.g. difficulty=hard or house_rules.extra_white_dice=2",
    )
    p.add_argument(
        "--rule",
        action="append",
        metavar="NAME[=VALUE]",
        dest="house_rules",
        help="a house rule (docs/fights.md), e.g. --rule holes_inactive or --rule monster_life_bonus=-3",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_fight)
    m = sub.add_parser("monsters", help="list built-in monsters")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=cmd_monsters)


def _overrides(
    items: list[str] | None, rules: list[str] | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """--set KEY=VALUE and --rule NAME[=VALUE] (a house rule; a bare name turns it on) as overrides,
    and the flag each key came from."""
    out: dict[str, Any] = {}
    flags: dict[str, str] = {}
    for it in items or []:
        k, v = split_pair(it, "--set")
        out[k], flags[k] = json_or_text(v, "--set", k), "--set"
    for it in rules or []:
        if "=" not in it:  # a bare name turns the rule on
            if not it.strip():
                raise SpecError("command line", "--rule", f"expected NAME or NAME=VALUE, got '{it}'")
            k, v = it.strip(), None
        else:
            k, v = split_pair(it, "--rule", "NAME or NAME=VALUE")
        key = f"house_rules.{k}"
        out[key], flags[key] = (True if v is None else json_or_text(v, "--rule", k)), "--rule"
    return out, flags


def _played_fights(spec, source, fights: range, policy, physics: bool) -> list:
    """Fights played one by one with a bar on stderr once they take a while (fights, time left; in full
    physics, seconds per throw, also the throws so far and a new scene's aim solve); one fight prints
    its log as run_fights does."""
    from sim.experiments.progress import WorkBar
    from sim.fights.engine import run_fights

    bar = WorkBar(
        len(fights), "fight", "fights in physics" if physics else "fights", after_s=0.5 if physics else 1.0
    )
    if physics:
        source.on_throw = lambda k: bar.bar.set_postfix_str(f"{k} throws", refresh=True)
        source.aim_progress = lambda done, total: bar.bar.set_postfix_str(
            f"{source.throws} throws; aiming a new scene, reference throw {min(done + 1, total)} of at most"
            f" {total}",
            refresh=True,
        )
    results = []
    try:
        for i in fights:
            results += run_fights(spec, source, range(i, i + 1), policy, log=(len(fights) == 1))
            bar.update()
    finally:
        bar.close()
    return results


def cmd_fight(args: argparse.Namespace) -> int:
    """`dfsim fight`: one fight prints its log, N fights print the win rate and per-fight costs with
    95 % intervals; throws are resampled from `--records`. Bad input is a SpecError (exit 2)."""
    from sim.errors import FightError, UncoveredThrow
    from sim.fights.engine import resolve_policy
    from sim.fights.report import summarize
    from sim.fights.resample import ResampleSource, tables_from_results
    from sim.fights.spec import load_fight

    overrides, flags = _overrides(args.overrides, args.house_rules)
    try:
        spec = load_fight(args.fight, overrides)
    except SpecError as exc:  # a bad --set / --rule is the command line's fault, not the fight file's
        key = next((k for k in overrides if exc.field == k or exc.field.startswith(k + ".")), None)
        if key is None:
            raise
        raise SpecError("command line", flags[key], f"{exc.field}: {exc.problem}") from None
    policy = resolve_policy(args.policy or spec.policy, spec.source if not args.policy else "command line")
    physics = args.engine == "physics"
    if physics and args.records:
        raise SpecError(
            "command line", "--records", "is for --engine resample (physics simulates every throw)"
        )
    if not physics and not args.records:
        raise SpecError(
            "command line",
            "--records",
            "is required: give the output folder of a `dfsim run` whose "
            "throws match the fight (or simulate every throw with --engine physics)",
        )
    n = args.fights if args.fights is not None else spec.fights
    if n < 1 or args.first < 0:
        raise SpecError("command line", "--fights", "must be at least 1 (and --first at least 0)")
    seed = spec.seed if args.seed is None else args.seed
    source: Any
    if physics:
        from sim.fights.physics_source import PhysicsSource

        notes: list[str] = []
        source = PhysicsSource(seed, spec.throws.colored_die, spec.throws.white_die)
    else:
        tables, notes = tables_from_results(
            args.records,
            args.variant or spec.throws.variant,
            white_die=spec.throws.white_die,
            colored_die=spec.throws.colored_die,
        )
        source = ResampleSource(tables, seed=seed)
    try:
        results = _played_fights(spec, source, range(args.first, args.first + n), policy, physics)
    except UncoveredThrow as exc:
        raise SpecError(args.records, "records", f"{exc} (record these throws with `dfsim run`)") from None
    except NotImplementedError as exc:
        raise SpecError(spec.source, "engine", str(exc)) from None
    except FightError as exc:
        raise SpecError(spec.source, "policy", str(exc)) from None
    head = {
        "fight": spec.name,
        "source": spec.source,
        "seed": seed,
        "first": args.first,
        "fights": n,
        "engine": args.engine,
        "records": str(args.records) if args.records else None,
        "tables": [t.describe() for t in source.used.values()] if not physics else [],
        "notes": notes,
    }
    if physics:
        head["board_moves"] = source.state.moves
    if n == 1:
        r = results[0]
        if args.json:
            print(json.dumps(head | {"result": r.to_json()}, default=str))
        else:
            print("\n".join(format_log(r.log)))
            for m in head.get("board_moves", []):
                print(
                    f"throw {m['throw']} moved the {m['slot']} die on the board {m['shift_mm']} mm: "
                    f"{m['from']} -> {m['to']}"
                )
            print(_summary_line(r))
        return 0
    summary = summarize(results)
    if args.json:
        print(json.dumps(head | {"summary": summary}, default=str))
    else:
        print(format_summary(spec, head, summary))
    return 0


def format_summary(spec, head: dict, s: dict) -> str:
    """The many-fights summary as text: outcome rates in percent with their intervals, per-fight means,
    the recorded tables the throws came from, and the notes."""

    def pct(r):
        return f"{100 * r['rate']:5.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"

    def mean(e):
        lo, hi = e.get("lo"), e.get("hi")
        return f"{e['value']:.2f}" + (f" [{lo:.2f}, {hi:.2f}]" if lo is not None else "")

    m = spec.monster
    lines = [
        f"{spec.name}: {m.label} ({spec.monster_life} life, {spec.difficulty}), "
        f"{len(spec.party.heroes)} heroes, {s['n']} fights from seed {head['seed']} (95 % intervals)",
        f"  won          {pct(s['won'])}",
        f"  lost         {pct(s['lost'])}"
        + (
            f"  ({', '.join(f'{k}: {v}' for k, v in s['lost_reasons'].items())})" if s["lost_reasons"] else ""
        ),
    ]
    if s["backed_down"]["count"]:
        lines.append(f"  backed down  {pct(s['backed_down'])}")
    if s["unfinished"]["count"]:
        lines.append(f"  unfinished   {pct(s['unfinished'])}")
    lines.append(f"  epic shot    {pct(s['epic_shot'])}")
    for k, label in (
        ("rounds", "rounds"),
        ("throws", "throws"),
        ("hero_damage", "hero damage"),
        ("white_dice_used", "white dice"),
        ("retrievals", "retrievals"),
        ("fainted", "fainted"),
        ("gold", "gold"),
    ):
        lines.append(f"  {label:<12} {mean(s[k])}  (mean per fight)")
    for t in head["tables"]:
        lines.append(
            f"  throws from {t['label']}: {t['throws']} records, hit rate {100 * t['hit_rate']:.1f}%"
        )
    if head.get("engine") == "physics":
        moves = head.get("board_moves", [])
        changed = sum(m["from"] != m["to"] for m in moves)
        lines.append(
            f"  physics in the loop: {len(moves)} resting dice moved by later throws, {changed} changed "
            "section"
        )
    lines += [f"  note: {x}" for x in head["notes"]]
    return "\n".join(lines)


def format_log(log: list[dict[str, Any]]) -> list[str]:
    """The blow-by-blow log as text, one line per event."""
    out = []
    for e in log:
        ev = e["event"]
        if ev == "start":
            extra = f" ({e['card_life']} on the card" + (
                f", room +{e['room_bonus']}" if e["room_bonus"] else ""
            )
            extra += f", {e['difficulty']})"
            out.append(
                f"{e['monster']}: {e['life']} life{extra}, {e['miss_damage']} damage on a miss, level "
                f"{e['level']}" + (" - FINAL BOSS" if e["final_boss"] else "")
            )
            out.append(
                f"  party: {', '.join(e['heroes'])}; {e['white_dice']} white dice"
                + (f"; requirements: {', '.join(e['requirements'])}" if e["requirements"] else "")
                + (f"; templates: {', '.join(e['templates'])}" if e["templates"] else "")
                + (f"; house rules: {e['house_rules']}" if e["house_rules"] else "")
            )
        elif ev == "turn":
            out.append(f"round {e['round']}, turn {e['turn']}: {e['hero']} (monster {e['monster_life']})")
        elif ev == "choose":
            w = f" with {', '.join(e['weapons'])}" if e["weapons"] else ""
            out.append(f"  throws the {e['die']} die{w}: {'+'.join(e['shots'])}, aiming for {e['aim']}")
        elif ev == "throw":
            where = (
                f" on {e['template']}"
                if e["template"]
                else (f" in {e['section']} ({e['value']})" if e["result"] == "hit" else "")
            )
            out.append(
                f"    throw {e['throw']}: {e['result'].upper()} ({e['reason']}){where}, face {e['face']}"
                + (" [icon]" if e["icon"] else "")
            )
        elif ev == "hit":
            out.append(
                f"  hit for {e['damage']}"
                + (" - INSTA-KILL" if e["insta_kill"] else "")
                + f": monster at {e['monster_life']}"
            )
        elif ev == "miss":
            out.append(
                "  miss"
                + (f", still {e['damage']} damage" if e["damage"] else "")
                + f": monster at {e['monster_life']}"
            )
        elif ev == "hero-damage":
            out.append(f"  {e['hero']} suffers {e['damage']} ({e['cause']}): {e['life']} life")
        elif ev == "defeated":
            out.append(f"DEFEATED at {e['monster_life']} life" + (" - EPIC SHOT" if e["epic_shot"] else ""))
        elif ev == "lost":
            out.append(f"LOST: {e['reason']}")
        else:
            rest = ", ".join(f"{k} {v}" for k, v in e.items() if k != "event")
            out.append(f"  {ev}: {rest}")
    return out


def _summary_line(r) -> str:
    return (
        f"{r.outcome.upper()}: {r.rounds} rounds, {r.throws} throws, hero damage {r.hero_damage}, "
        f"white dice {r.white_dice_used}, retrievals {r.retrievals}, fainted {len(r.fainted)}, "
        f"epic shot {'yes' if r.epic_shot else 'no'}, gold +{r.gold}"
    )


def cmd_monsters(args: argparse.Namespace) -> int:
    """`dfsim monsters`: one line per built-in monster (card life, miss damage, level, gold,
    requirements, ability, templates), naming the fields that are estimates."""
    from sim.fights.monster import builtin_monsters

    specs = builtin_monsters()
    if args.json:
        print(json.dumps([s.model_dump(mode="json") | {"source": s.source} for s in specs]))
        return 0
    for s in specs:
        est = f" (estimated: {', '.join(s.estimated_fields)})" if s.estimated_fields else ""
        extra = [f"level {s.level}", f"{s.miss_damage} on a miss", f"{s.reward_gold} gold"]
        if s.requirements:
            extra.append("requires " + "+".join(s.requirements))
        if s.ability:
            extra.append(s.ability)
        if s.templates:
            extra.append("templates " + ",".join(s.templates))
        if s.final_boss:
            extra.append("FINAL BOSS")
        print(f"{s.name:<16} {s.life:>3} life, {', '.join(extra)}{est}")
    return 0
