"""The game tab's job: play a setting in growing batches on the throw bank, publish the win rate and
its interval after every batch, stop when the interval is narrow enough or the game cap is reached,
and record the scenarios the bank lacks first, scenario by scenario, with progress."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.errors import SpecError
from sim.games.throw_bank import ThrowBank, default_bank_dir, scenario_text
from sim.studio.jobs import Job
from sim.studio.session import Player, Setting, answer, refuse_unknown

BATCHES = (25, 75, 150, 250, 500)  # games added per batch (the last repeats): a first answer soon
DEFAULT_TARGET = 0.02  # 95 % half-width at which a setting stops (2 points)
DEFAULT_CAP = 20_000
MIN_GAMES = 100  # no stop before this many games, however narrow an interval of a few games looks
MAX_CAP = 1_000_000
WATCH_S = 0.2  # how often the page's recording progress looks at the bank


@dataclass(frozen=True)
class StopRule:
    """Stop at a 95 % half-width (win rate and, with a baseline, the paired difference) or a cap."""

    target: float = DEFAULT_TARGET
    cap: int = DEFAULT_CAP

    def met(self, ans: dict[str, Any]) -> str:
        """Why to stop now ("" to go on)."""
        n = ans.get("n", 0)
        if n >= self.cap:
            return f"game cap {self.cap:,}"
        if n < MIN_GAMES or "summary" not in ans:
            return ""
        halves = [_half(ans["summary"]["won"])]
        if "difference" in ans:
            if ans.get("baseline_n", 0) < n:
                return ""
            halves.append(_half(ans["difference"]))
        if all(h <= self.target for h in halves):
            return f"95 % interval within ±{100 * self.target:g} points"
        return ""


def _half(r: dict[str, Any]) -> float:
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
    """Record the scenarios the bank lacks, all at once on the bank's workers, while a watcher thread
    says on the page how many are done, which one is next and the time so far and left. Every finished
    entry stays in the bank whatever happens next."""
    n = len(scenarios)
    t0 = time.monotonic()
    job.note(f"recording {n}")
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(WATCH_S):
            done = [s for s in scenarios if bank.has(s)]
            left = [s for s in scenarios if not bank.has(s)]
            job.progress = {
                "phase": "recording",
                "busy": True,
                "done": len(done),
                "of": n,
                "scenario": scenario_text(left[0]) if left else "",
                "throws": bank.throws if bank.throws is not None else "by precision",
                "started": t0,  # the poll says the seconds since, and the time left at this pace
                "bank": str(bank.dir),
            }

    job.progress = {
        "phase": "recording",
        "busy": True,
        "done": 0,
        "of": n,
        "started": t0,
        "scenario": scenario_text(scenarios[0]),
        "bank": str(bank.dir),
        "throws": bank.throws if bank.throws is not None else "by precision",
    }
    watcher = threading.Thread(target=watch, name="studio-bank-watch", daemon=True)
    watcher.start()
    try:
        bank.record(scenarios)
    finally:
        finished.set()
        watcher.join()
    job.detail["recorded"] = job.detail.get("recorded", 0) + n  # over the job's passes
    job.detail["recorded_s"] = job.detail.get("recorded_s", 0.0) + time.monotonic() - t0
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
    """A job playing `setting` (and its baseline on the same games) until the stop rule says enough."""
    cards = estimated_cards(setting)
    bank = player.bank
    default = default_bank_dir()

    def publish(job: Job) -> dict[str, Any]:
        t = player.tally(setting)
        b = player.tally(baseline) if baseline is not None else None
        ans = answer(t, b)
        ans["rests_on"] = {
            "bank": str(bank.dir),
            "bank_throws": bank.throws if bank.throws is not None else "by precision",
            "tables": sorted(t.tables.values(), key=lambda d: d["label"]),
            "estimated_cards": cards,
            "command": setting.command(max(t.n, 1), bank, Path(default)),
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
            job.note(f"answer n={t.n} half={_half(ans['summary']['won']):.4f}")
        return ans

    def work(job: Job) -> None:
        job.progress = {"phase": "playing", "busy": True}
        step = 0
        ans = publish(job)
        record = lambda scenarios: record_with_progress(job, bank, scenarios)  # noqa: E731
        while not ans["stopped"]:
            job.check()
            t = player.tally(setting)
            size = BATCHES[min(step, len(BATCHES) - 1)]
            step += 1
            won = ans.get("summary", {}).get("won")
            if won and t.n >= MIN_GAMES and 0 < _half(won) < float("inf"):
                # a half-width shrinks as 1/sqrt(games): stop the batch about where the target falls
                need = int(t.n * (_half(won) / rule.target) ** 2) + 1 - t.n
                size = max(BATCHES[0], min(size, need))
            upto = min(rule.cap, t.n + size)
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
