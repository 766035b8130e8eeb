"""The game tab's job: play a setting in growing batches on the throw bank, publish the win rate and
its interval after every batch, stop when the interval is narrow enough or the game cap is reached,
and record the scenarios the bank lacks first, scenario by scenario, with progress."""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.errors import SpecError
from sim.games.bank_uncertainty import REPLICATE_GAMES, bank_advice
from sim.games.throw_bank import ThrowBank, default_bank_dir
from sim.studio.jobs import Job
from sim.studio.session import Player, Setting, answer, refuse_unknown

BATCHES = (25, 75, 150, 250, 500)  # games added per batch (the last repeats): a first answer soon
DEFAULT_TARGET = 0.02  # 95 % half-width at which a setting stops (2 points)
DEFAULT_CAP = 20_000
MIN_GAMES = 100  # no stop before this many games, however narrow an interval of a few games looks
MAX_CAP = 1_000_000


@dataclass(frozen=True)
class StopRule:
    """Stop at a 95 % half-width (win rate and, with a baseline, the paired difference; each with the
    bank's part when bootstrap banks are replayed) or a cap. An interval whose bank part alone is
    wider than the target is as narrow as games can make it once that part rests on all the games it
    takes (more games do not narrow it, a bigger bank does)."""

    target: float = DEFAULT_TARGET
    cap: int = DEFAULT_CAP

    def met(self, ans: dict[str, Any]) -> str:
        """Why to stop now ("" to go on)."""
        n = ans.get("n", 0)
        if n == 0 or "summary" not in ans:
            return ""
        intervals = [_with_bank(ans["summary"]["won"], ans["summary"].get("won_with_bank"), ans)]
        if "difference" in ans:
            if ans.get("baseline_n", 0) < n:
                return ""
            intervals.append(_with_bank(ans["difference"], ans["difference"].get("with_bank"), ans))
        if any(i is None for i in intervals):
            return ""  # the bank's part still being replayed for these games
        if n >= self.cap:
            return f"game cap {self.cap:,}"
        if n < MIN_GAMES:
            return ""
        halves = [half_width(i) for i in intervals if i is not None]
        if all(h <= self.target for h in halves):
            return f"95 % interval within ±{100 * self.target:g} points"
        banks = [i.get("bank_half_width") or 0.0 for i in intervals if i is not None]
        if all(
            h <= self.target or (b >= self.target and _bank_settled(i))
            for h, b, i in zip(halves, banks, intervals, strict=True)
        ):
            widest = max(banks)
            return (
                f"the bank's own part is ±{100 * widest:.1f} points, wider than ±{100 * self.target:g}: "
                "more games cannot narrow it (more throws per bank scenario can)"
            )
        return ""


def _with_bank(
    games: dict[str, Any], wb: dict[str, Any] | None, ans: dict[str, Any]
) -> dict[str, Any] | None:
    """The interval the stop rule reads: with the bank's part when bootstrap banks are replayed (None
    while that part lags behind the games), else the games' own."""
    if not ans.get("bank_replicates"):
        return games
    return wb if wb is not None and wb.get("complete") else None


def _bank_settled(i: dict[str, Any] | None) -> bool:
    """Whether the bank's part rests on every game it ever takes (more games leave it as it is)."""
    return i is not None and i.get("replayed", 0) >= REPLICATE_GAMES


def half_width(r: dict[str, Any]) -> float:
    """An interval's half-width: with the bank's part, the two parts in quadrature (not the interval
    as cut at 0 or 1), else half its width."""
    if r.get("bank_half_width") is not None and r.get("games_half_width") is not None:
        return math.hypot(r["games_half_width"], r["bank_half_width"])
    if r.get("lo") is None or r.get("hi") is None:
        return float("inf")
    return (r["hi"] - r["lo"]) / 2


def parse_stop(body: dict[str, Any]) -> StopRule:
    """`target` (a half-width, as a fraction: 0.02 is ±2 points) and `cap` (games) of a play request."""
    target = body.get("target", DEFAULT_TARGET)
    cap = body.get("cap", DEFAULT_CAP)
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0.002 <= target <= 0.5:
        raise SpecError("request", "target", f"must be a half-width from 0.002 to 0.5, got {target!r}")
    if isinstance(cap, bool) or not isinstance(cap, int) or not MIN_GAMES <= cap <= MAX_CAP:
        raise SpecError("request", "cap", f"must be a whole number of games from {MIN_GAMES} to {MAX_CAP}")
    return StopRule(float(target), int(cap))


PLAY_FIELDS = ("setting", "target", "cap")


def check_play(body: Any) -> dict[str, Any]:
    """A play request's body: an object with known fields only."""
    if not isinstance(body, dict):
        raise SpecError("request", "", "must be a JSON object")
    refuse_unknown(body, PLAY_FIELDS, "")
    return body


def record_with_progress(job: Job, bank: ThrowBank, scenarios: list[dict[str, Any]]) -> None:
    """Record the scenarios the bank lacks, all at once on the bank's workers, the page told what the
    recorder's own display says (scenarios done, aims still to solve, throws made of those planned,
    the time so far and left); a new setting stops it at once. The terminal gets one line when a
    recording starts (its scenarios, throws, aims and estimated time: the recorder's first estimate)
    and one when it ends. Every finished chunk and entry stays in the bank whatever happens next."""
    n = len(scenarios)
    t0 = time.monotonic()
    job.note(f"recording {n}")
    base = {
        "phase": "recording",
        "busy": True,
        "started": t0,  # the poll says the seconds since
        "bank": str(bank.dir),
        "throws": bank.throws if bank.throws is not None else "by precision",
    }
    job.progress = base | {"done": 0, "of": n, "scenario": ""}

    told: list[bool] = []

    def watch(state: dict[str, Any]) -> None:
        if not told:  # the recorder's first estimate: the terminal's one line
            told.append(True)
            k, aims = state["of"], state["aiming"]
            sys.stderr.write(
                f"dfsim studio: recording {k} scenario{'s' if k != 1 else ''} into {bank.dir}: about "
                f"{state['planned']:,} throws, {aims} scenario{'s' if aims != 1 else ''} to aim, "
                f"~{_clock(state['left_s'])}\n"
            )
            sys.stderr.flush()
        job.progress = base | {
            "done": state["done"],
            "of": state["of"],
            "scenario": state["last"],  # the last scenario heard of ("" before any)
            "aiming": state["aiming"],
            "thrown": state["thrown"],
            "planned": state["planned"],
            "left_s": state["left_s"],
        }

    try:
        bank.record(scenarios, stop=job.cancel_event.is_set, watch=watch)
    finally:
        took = time.monotonic() - t0
        if told:
            sys.stderr.write(f"dfsim studio: recording ended after {_clock(took)}\n")
            sys.stderr.flush()
    job.detail["recorded"] = job.detail.get("recorded", 0) + n  # over the job's passes
    job.detail["recorded_s"] = job.detail.get("recorded_s", 0.0) + took
    job.progress = {"phase": "playing", "busy": True, **recorded(job)}
    job.note(f"recorded {n}")
    job.check()


def recorded(job: Job) -> dict[str, Any]:
    """How many scenarios the job recorded into the bank, and in how long (empty if none)."""
    if not job.detail.get("recorded"):
        return {}
    return {"recorded": job.detail["recorded"], "recorded_s": round(job.detail["recorded_s"], 2)}


def estimated_cards(setting: Setting) -> list[dict[str, str]]:
    """The cards of the game's decks whose numbers are estimates (the rulebooks do not print them)."""
    out = []
    for d in setting.spec.load_decks():
        for group in ("monsters", "bosses", "dungeon", "equipment", "powers"):
            for c in getattr(d, group, []):
                if getattr(c, "estimated", ""):
                    out.append({"deck": d.name, "kind": group, "name": c.name, "estimated": c.estimated})
    return out


def play_job(player: Player, setting: Setting, baseline: Setting | None, rule: StopRule) -> Job:
    """A job playing `setting` (and its baseline on the same games) until the stop rule says enough:
    a batch of games, its answer published, then the same games replayed on the bootstrap banks and
    the answer published again with the bank's part of its interval."""
    cards = estimated_cards(setting)
    bank = player.bank
    default = default_bank_dir()
    reps = player.replicates

    def publish(job: Job) -> dict[str, Any]:
        t = player.tally(setting)
        b = player.tally(baseline) if baseline is not None else None
        ans = answer(t, b, replicates=reps)
        ans["bank_replicates"] = reps
        wb = ans.get("summary", {}).get("won_with_bank")
        if wb is not None and wb.get("complete"):  # as `dfsim game` says it under its answer
            ans["bank_advice"] = bank_advice(wb, bank.throws)
        ans["rests_on"] = {
            "bank": str(bank.dir),
            "bank_throws": bank.throws if bank.throws is not None else "by precision",
            "tables": sorted(t.tables.values(), key=lambda d: d["label"]),
            "estimated_cards": cards,
            "command": setting.command(max(t.n, 1), bank, Path(default), reps),
        }
        ans["setting"] = {
            "game": setting.game,
            "policy": setting.policy,
            "seed": setting.seed,
            "set": dict(setting.overrides),
        }
        ans["stopped"] = rule.met(ans)
        job.result = ans
        if t.n:
            job.note(f"answer n={t.n} half={half_width(ans['summary']['won']):.4f} bank={t.replayed}")
        return ans

    def batch(t_n: int, step: int, ans: dict[str, Any]) -> int:
        """Games to add: the next batch size, cut where the interval should reach the target (a
        half-width shrinks as 1/sqrt(games); the bank's part, once known, does not)."""
        size = BATCHES[min(step, len(BATCHES) - 1)]
        summary = ans.get("summary", {})
        won, wb = summary.get("won"), summary.get("won_with_bank")
        goal = rule.target
        if wb and wb.get("complete") and wb.get("bank_half_width"):
            bank_hw = wb["bank_half_width"]
            goal = (goal**2 - bank_hw**2) ** 0.5 if bank_hw < goal else 0.0
        if won and goal > 0 and t_n >= MIN_GAMES and 0 < half_width(won) < float("inf"):
            need = int(t_n * (half_width(won) / goal) ** 2) + 1 - t_n
            size = max(BATCHES[0], min(size, need))
        return size

    def work(job: Job) -> None:
        job.progress = {"phase": "playing", "busy": True}
        step = 0
        ans = publish(job)
        record = lambda scenarios: record_with_progress(job, bank, scenarios)  # noqa: E731
        while True:
            if reps and (
                player.tally(setting).replayed < player.tally(setting).bank_part(reps)
                or (
                    baseline is not None
                    and player.tally(baseline).replayed < player.tally(baseline).bank_part(reps)
                )
            ):
                job.progress = {
                    "phase": "bank",
                    "busy": True,
                    "games": player.tally(setting).n,
                    "replicates": reps,
                    "replay": player.tally(setting).bank_part(reps),
                    **recorded(job),
                }
                player.replay(setting, record, job.check)
                if baseline is not None:
                    player.replay(baseline, record, job.check)
                ans = publish(job)
            if ans["stopped"]:
                break
            job.check()
            t = player.tally(setting)
            upto = min(rule.cap, t.n + batch(t.n, step, ans))
            step += 1
            player.play(setting, upto, record)
            if baseline is not None:
                job.check()
                player.play(baseline, player.tally(setting).n, record)
            job.progress = {
                "phase": "playing",
                "busy": True,
                "games": player.tally(setting).n,
                **recorded(job),
            }
            ans = publish(job)
        job.progress = {
            "phase": "done",
            "busy": False,
            "games": ans["n"],
            "why": ans["stopped"],
            **recorded(job),
        }

    return Job("play", work, {"setting": setting.key})


def _clock(seconds: float) -> str:
    """m:ss (h:mm:ss from an hour), as the recorder's bar shows time."""
    s = int(max(0.0, seconds) + 0.999)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
