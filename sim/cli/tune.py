"""`dfsim tune`: which value of a setting gives a target rate (sim/studies/tuner.py).

`--set PATH=LO:HI` names the tuned setting and its range; any other `--set PATH=VALUE` is a fixed
override. Without a fight file the response is a shot metric over physical throws of the scenario
options; with one (`dfsim tune FIGHT --records RESULTS_DIR`) it is the fight's win rate over fights
played with the recorded throws of a `dfsim run` folder, and the settings are the fight file's.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from sim.cli.common import (
    SEED,
    add_scenario_options,
    bank_options,
    executor_from,
    executor_given,
    executor_options,
    integer,
    pairs,
)
from sim.errors import SpecError

_NUMBER = r"[-+]?[0-9.]+(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\s*({_NUMBER})\s*:\s*({_NUMBER})\s*$")
SRC = "command line"


SHOT_BUDGET = 3000  # physical throws: about 10 ms each
FIGHT_BUDGET = 200_000  # resampled fights: about 0.1-0.2 ms each
GAME_BUDGET = 40_000  # banked games: about 2 ms each
# scenario options a fight does not take, and where its file says the same
FIGHT_INSTEAD = {
    "board": ("--board", "--set throws.board=..."),
    "dice": ("--die", "--set throws.colored_die=..."),
    "shots": ("--shot", "--set throws.shot=..."),
    "skill": ("--skill", "--set throws.skill=..."),
    "rule": ("--rule", "--set house_rules.KEY=..."),
}


def register(sub: argparse._SubParsersAction) -> None:
    """Add `dfsim tune` to the command line."""
    from sim.studies.metrics import FIGHT_METRICS, SHOT_METRICS

    # "resolve": the shared --set is declared again below, explained for tuning
    p = sub.add_parser(
        "tune",
        conflict_handler="resolve",
        help="find the value of a setting that gives a target hit or win rate, with an interval",
    )
    p.add_argument(
        "fight",
        nargs="?",
        help="a fight file or built-in fight name: tune its win rate (needs --records); "
        "without it, a shot's hit rate over physical throws",
    )
    add_scenario_options(p)
    p.set_defaults(board=None, skill=None)  # so that a fight tells an explicit --board or --skill from none
    p.add_argument(
        "--set",
        action="append",
        dest="overrides",
        metavar="PATH=LO:HI | PATH=VALUE",
        help="the tuned setting and its range (exactly one), e.g. skill.speed_sd_frac=0:1 or, for a fight, "
        "house_rules.monster_life_bonus=-6:3; or a fixed override",
    )
    p.add_argument(
        "--game",
        help="tune a game's win rate instead (a game file or built-in game name); "
        "its throws come from the throw bank (--bank)",
    )
    bank_options(p, only="with --game: ")
    p.add_argument(
        "--bank-replicates",
        type=integer(0, 1000),
        default=None,
        help="with --game: bootstrap banks behind the bank's part of the answer's interval (default 8; "
        "0: none)",
    )
    executor_options(
        p, only="with --game: ", where="where the bank is recorded: local processes or a Dask cluster"
    )
    p.add_argument(
        "--records",
        metavar="RESULTS_DIR",
        help="with a fight: the output folder of a `dfsim run` whose throws the fights resample",
    )
    p.add_argument(
        "--variant", help="with a fight: use only this variant's throws (default: the fight file's)"
    )
    p.add_argument(
        "--policy",
        help="with a fight or a game: named policy (a game's ladder: first-time, default, strong; "
        "default: the file's)",
    )
    p.add_argument("--target", type=float, required=True, help="the wanted rate, strictly between 0 and 1")
    p.add_argument(
        "--integer",
        action="store_true",
        help="the setting takes integer values (answer: the closest integer)",
    )
    p.add_argument(
        "--metric",
        choices=sorted({*SHOT_METRICS, *FIGHT_METRICS}),
        help="what counts as a success: hit (a throw, the default) or won (a fight, the default with a "
        "fight)",
    )
    p.add_argument(
        "--tolerance",
        type=float,
        help="stop once the interval lies within answer +- this (default: 1 for --integer, else 1 %% of "
        "the range)",
    )
    p.add_argument(
        "--budget",
        type=int,
        help=f"most trials in total (default {SHOT_BUDGET} throws, or {FIGHT_BUDGET} fights)",
    )
    p.add_argument(
        "--initial-n", type=int, default=64, help="trials per value at the first stage (default 64)"
    )
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (default 0.95)")
    p.add_argument("--seed", type=SEED, default=0, help="root seed: same seed, same answer (default 0)")
    p.add_argument("--out", help="write OUT/tune.json and OUT/tune.png")
    p.set_defaults(func=cmd_tune)


def split_sets(items: list[str] | None) -> tuple[str, float, float, dict[str, Any]]:
    """(path, lo, hi, fixed overrides) from the --set items: exactly one must be PATH=LO:HI."""
    tuned: list[tuple[str, re.Match[str]]] = []
    fixed: list[str] = []
    for it in items or []:
        key, eq, val = it.partition("=")
        m = _RANGE.match(val) if eq else None
        if m:
            tuned.append((key.strip(), m))
        else:
            fixed.append(it)
    if len(tuned) != 1:
        found = ", ".join(k for k, _ in tuned) or "none"
        raise SpecError(SRC, "--set", f"give exactly one tuned setting as PATH=LO:HI (found: {found})")
    ((path, m),) = tuned
    try:
        lo, hi = float(m.group(1)), float(m.group(2))
    except ValueError:
        raise SpecError(
            SRC, f"--set {path}", f"range '{m.group(0).strip()}' is not LO:HI with two numbers"
        ) from None
    return path, lo, hi, pairs(fixed, "--set")


def _shot_response(args: argparse.Namespace, path: str, fixed: dict[str, Any], tick=None, aim_progress=None):
    """The evaluate(value, n, seed) callable over physical throws, and the metric's name."""
    from sim.studies.responses import SHOT_METRICS, shot_response

    metric = args.metric or "hit"
    if metric not in SHOT_METRICS:
        raise SpecError(
            SRC,
            "--metric",
            f"'{metric}' is a fight metric: give a fight file (shot metrics: {', '.join(SHOT_METRICS)})",
        )
    for name in ("records", "variant", "policy"):
        if getattr(args, name):
            raise SpecError(
                SRC, f"--{name}", "needs a fight file (dfsim tune FIGHT --records RESULTS_DIR ...)"
            )
    recipe = {
        "board": args.board or "magma",
        "dice": args.dice or ["hero-d8"],
        "shots": args.shots or ["standard"],
        "skill": args.skill or "casual",
        "rules": pairs(args.rule, "--rule"),
        "overrides": fixed,
        "source": SRC,
    }
    from sim.specs.scenario import Scenario

    for end in split_sets(args.overrides)[1:3]:  # a bad setting is bad input now, not after a bar and an aim
        ends: dict[str, Any] = {**recipe, "overrides": {**fixed, path: end}}
        Scenario.build(**ends)
    return shot_response(recipe, path, metric, tick=tick, aim_progress=aim_progress), f"{metric} rate"


def _fight_response(args: argparse.Namespace, path: str, fixed: dict[str, Any]):
    """The fight response (a FightResponse: callable, and it knows the fight), and the metric's name."""
    from sim.studies.responses import FIGHT_METRICS, FightResponse

    metric = args.metric or "won"
    if metric not in FIGHT_METRICS:
        raise SpecError(
            SRC, "--metric", f"'{metric}' is a throw metric; a fight counts: {', '.join(FIGHT_METRICS)}"
        )
    for dest, (flag, instead) in FIGHT_INSTEAD.items():
        if getattr(args, dest):
            raise SpecError(SRC, flag, f"is not an option of a fight: the fight file says it ({instead})")
    if not args.records:
        raise SpecError(
            SRC,
            "--records",
            "is required with a fight: the output folder of a `dfsim run` whose throws "
            "match the fight (e.g. `dfsim run fight-throws`)",
        )
    response = FightResponse(
        args.fight,
        path,
        args.records,
        overrides=fixed,
        metric=metric,
        variant=args.variant,
        policy=args.policy,
    )
    if response.integer_setting and not args.integer:
        raise SpecError(SRC, f"--set {path}", "is an integer setting of the fight: add --integer")
    return response, "win rate" if metric == "won" else f"{metric} rate"


def _fight_context(response, res) -> dict[str, Any]:
    """What tune.json records about the fight: the file, the throws, the monster's life at the answer."""
    spec = response.spec_at(res.answer)
    ctx = {
        "fight": spec.name,
        "source": str(spec.source),
        "records": response.records,
        "tables": [t.describe() for t in response.used.values()],
        "notes": list(response.notes),
    }
    ends = [response.spec_at(v).monster_life for v in res.range]
    if res.integer and ends[0] != ends[1]:  # the setting moves the monster's life: say which life answers
        ctx["monster_life_at_answer"] = spec.monster_life
        ctx["monster_life_interval"] = sorted(response.spec_at(v).monster_life for v in res.interval)
    return ctx


def _counting(evaluate, bar, count: bool):
    """`evaluate` starting `bar` on its first call, and with `count`, adding each call's trials to it as
    the call returns (fights are quick; shot trials are counted throw by throw)."""

    def counted(value, n: int, seed: int) -> tuple[int, int]:
        bar.start()
        k, t = evaluate(value, n, seed)
        if count:
            bar.update(int(t))
        return k, t

    return counted


def _with_bank(response, res, replicates: int | None) -> dict[str, Any] | None:
    """The answer's interval with the bank's part (GameResponse.with_bank), its wait shown on stderr."""
    from sim.experiments.progress import Elapsed
    from sim.games.bank_uncertainty import REPLICATES

    reps = REPLICATES if replicates is None else replicates
    if reps < 2 or len(res.points) < 2:
        return None
    el = Elapsed(sys.stderr)
    el.start(f"the bank's uncertainty: the values around the answer on {reps} bootstrap banks")
    try:
        return response.with_bank(res, reps)
    finally:
        el.done()


def _no_bank_options(args: argparse.Namespace) -> None:
    """The bank's options are for --game: given without it, one line (they would change nothing)."""
    for flag, given in (
        ("--bank", args.bank),
        ("--bank-throws", args.bank_throws),
        ("--bank-replicates", args.bank_replicates),
    ):
        if given is not None:
            raise SpecError(SRC, flag, "is for --game (a game's throws come from the throw bank)")
    flag = executor_given(args)
    if flag:
        raise SpecError(SRC, flag, "says where the throw bank is recorded: it is for --game")


def cmd_tune(args: argparse.Namespace) -> int:
    """Tune the one ranged setting against the target; print (or --json) the result, save it with --out."""
    from sim.experiments.progress import WorkBar
    from sim.studies.tuner import save_result, tune

    path, lo, hi, fixed = split_sets(args.overrides)
    if args.out is not None:  # before the tuning: a bad folder should not cost the work
        from sim.files import check_output_dir

        check_output_dir(args.out, "--out")
    if args.integer:
        if lo != int(lo) or hi != int(hi):
            raise SpecError(SRC, f"--set {path}", f"--integer needs integer ends, got {lo:g}:{hi:g}")
        lo, hi = int(lo), int(hi)
    if args.game:
        if args.fight or args.records:
            raise SpecError(SRC, "--game", "tunes a game: give no fight file or --records")
        from sim.games.response import GameResponse

        executor, scheduler, security = executor_from(args)
        evaluate = GameResponse(
            args.game,
            path,
            overrides=fixed,
            bank=args.bank,
            bank_throws=args.bank_throws,
            policy=args.policy,
            workers=args.workers,
            executor=executor,
            scheduler=scheduler,
            security=security,
        )
        if evaluate.integer_setting and not args.integer:
            raise SpecError(SRC, f"--set {path}", "is an integer setting of the game: add --integer")
        metric = "win rate"
        budget = GAME_BUDGET if args.budget is None else args.budget
    elif args.fight:
        _no_bank_options(args)
        evaluate, metric = _fight_response(args, path, fixed)
        budget = FIGHT_BUDGET if args.budget is None else args.budget
    else:
        _no_bank_options(args)
        budget = SHOT_BUDGET if args.budget is None else args.budget
    # a bar of the trials against the budget (the tuner usually stops earlier: time left is at most that)
    # made when the first trial starts: the tuner still checks its range and target before that
    # (a shot's trials take seconds each: shown at once; a fight's or game's take milliseconds: shown
    # only once the tuning has taken a second, so a refusal found in the first trials stays one line)
    quick_trials = bool(args.fight or args.game)
    bar = WorkBar(
        budget,
        "trial",
        f"tuning {path} (at most {budget} trials)",
        enabled=not args.json,
        after_s=1.0 if quick_trials else 0,
        lazy=True,
    )
    if not quick_trials:  # a shot's response, counted throw by throw (a game's or fight's is made above)
        evaluate, metric = _shot_response(args, path, fixed, tick=bar.update, aim_progress=bar.aiming)
    counted = _counting(evaluate, bar, count=quick_trials)
    try:
        res = tune(
            counted,
            lo,
            hi,
            args.target,
            integer=args.integer,
            tolerance=args.tolerance,
            budget=budget,
            initial_n=args.initial_n,
            seed=args.seed,
            confidence=args.confidence,
            setting=path,
            metric=metric,
        )
    finally:
        bar.close()
    if args.fight:
        res.context = _fight_context(evaluate, res)
    if args.game:
        banked = _with_bank(evaluate, res, args.bank_replicates)
        if banked is not None:
            res.context = {**res.context, "with_bank": banked}
    if args.out:
        save_result(res, args.out)
    if args.json:
        print(json.dumps(res.to_json()))
        return 0
    print(res.summary_line())
    if res.context.get("monster_life_at_answer") is not None:
        c = res.context
        lo_life, hi_life = c["monster_life_interval"]
        print(
            f"  {c['fight']}: monster life {c['monster_life_at_answer']} [{lo_life}, {hi_life}] at the answer"
        )
    if "with_bank" in res.context:
        from sim.games.response import tune_bank_advice, with_bank_text

        w = res.context["with_bank"]
        print(f"  with the bank's own uncertainty: {with_bank_text(w, path, res.integer)}")
        advice = tune_bank_advice(w, args.bank_throws)
        if advice:
            print(f"  {advice}")
    for note in res.notes:
        print(f"  note: {note}")
    print(f"  {'value':>12} {'n':>6} {'successes':>9}  rate [{100 * res.confidence:g} % interval]")
    for pt in res.points:
        r = pt.rate
        print(f"  {pt.value:>12g} {r.n:>6} {r.count:>9}  {r.rate:.3f} [{r.lo:.3f}, {r.hi:.3f}] {pt.side}")
    if args.out:
        print(f"  wrote {args.out}/tune.json and {args.out}/tune.png")
    return 0
