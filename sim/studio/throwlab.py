"""The throw tab: one scenario (shots, skill, die, board) thrown in the physics engine a few hundred
times in the background, the hit rate with its Wilson interval and the outcome mix as they come in, the
landing map, the bank's entry of the same scenario when it has one, and any throw replayed in the 3-D
viewer (the same throw, bit for bit: throw k of a seed depends only on (seed, k))."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from sim.errors import SpecError
from sim.experiments.statistics import rates_from_counts, wilson
from sim.games.throw_bank import ThrowBank
from sim.specs.datafiles import builtin_names
from sim.studio.jobs import Job
from sim.studio.library import Library
from sim.studio.session import refuse_unknown

THROW_FIELDS = ("shots", "skill", "die", "board", "throws", "seed")
MAX_SHOTS = 3
MAX_THROWS = 2000
MAX_PAGES = 16  # replay pages kept in memory


@dataclass(frozen=True)
class ThrowSetting:
    """A throw scenario the tab asked for."""

    shots: tuple[str, ...]  # ids (built-in names or folder files)
    shot_paths: tuple[str, ...]
    skill: str
    die: str
    board: str
    throws: int
    seed: int

    def scenario(self) -> Any:
        """The physics scenario (loaded and checked like a data file)."""
        from sim.specs.scenario import Scenario

        return Scenario.build(
            board=self.board, dice=[self.die], shots=list(self.shot_paths), skill=self.skill, source="request"
        )

    def bank_scenario(self) -> dict[str, Any]:
        """The bank's scenario of these throws (no template, no house rule)."""
        return {
            "die": self.die,
            "shots": list(self.shot_paths),
            "skill": self.skill,
            "board": self.board,
            "templates": [],
            "rules": {},
        }


def options(library: Library) -> dict[str, Any]:
    """What the throw tab offers: shots (built-in and the folders'), skills, dice, boards."""
    return {
        "shots": library.listing("shot"),
        "skills": builtin_names("skill"),
        "dice": builtin_names("die"),
        "boards": builtin_names("board"),
        "max_shots": MAX_SHOTS,
        "max_throws": MAX_THROWS,
    }


def parse_throw(body: Any, library: Library) -> ThrowSetting:
    """A throw request checked field by field (one line naming the field on the first problem)."""
    if not isinstance(body, dict):
        raise SpecError("request", "", "must be a JSON object")
    refuse_unknown(body, THROW_FIELDS, "")
    shots = body.get("shots", ["standard"])
    if not isinstance(shots, list) or not 1 <= len(shots) <= MAX_SHOTS:
        raise SpecError("request", "shots", f"must be a list of 1 to {MAX_SHOTS} shots")
    paths = tuple(library.path_of("shot", s) for s in shots)
    picks = {}
    for field, kind, default in (
        ("skill", "skill", "casual"),
        ("die", "die", "hero-d8"),
        ("board", "board", "magma"),
    ):
        v = body.get(field, default)
        if not isinstance(v, str) or v not in builtin_names(kind):
            raise SpecError("request", field, f"must be one of {', '.join(builtin_names(kind))}, got {v!r}")
        picks[field] = v
    n = body.get("throws", 200)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_THROWS:
        raise SpecError("request", "throws", f"must be a whole number from 1 to {MAX_THROWS}, got {n!r}")
    seed = body.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 2**63 - 1:
        raise SpecError("request", "seed", f"must be a whole number from 0 to 2**63-1, got {seed!r}")
    s = ThrowSetting(tuple(shots), paths, picks["skill"], picks["die"], picks["board"], int(n), int(seed))
    s.scenario()  # every file loads and the combination is valid, before any job starts
    return s


def throw_job(setting: ThrowSetting, bank: ThrowBank) -> Job:
    """Throw the scenario `throws` times (after solving its aim once, with progress)."""

    def work(job: Job) -> None:
        from sim.engine.worlds import thrower_for
        from sim.viewer.scene import board_json

        sc = setting.scenario()
        t0 = time.monotonic()
        entry = None
        bs = setting.bank_scenario()
        if bank.has(bs):
            entry = bank.table(bs).describe()
        job.progress = {"phase": "building the world", "busy": True}
        th = thrower_for(sc)

        def aiming(done: int, total: int) -> None:
            job.progress = {"phase": "aiming", "busy": True, "done": done, "of": total}
            job.check()

        th.nominal(progress=aiming)
        counts: Counter = Counter()
        points: list[list[Any]] = []
        hits = 0
        base = {"board": board_json(sc.board), "bank": entry, "scenario": sc.key, "seed": setting.seed}
        t1 = time.monotonic()
        for k in range(setting.throws):
            job.check()
            res = th.throw(setting.seed, k)
            o = res.outcome
            counts[o.reason] += 1
            hits += o.result == "hit"
            x, y = o.position_mm[:2] if o.position_mm else (None, None)
            points.append([k, x, y, o.result, o.reason, o.value])
            job.progress = {"phase": "throwing", "busy": True, "done": k + 1, "of": setting.throws}
            job.progress["started"] = t1  # the poll adds seconds so far and left
            if (k + 1) % 10 == 0 or k + 1 == setting.throws:
                job.result = base | {
                    "n": k + 1,
                    "hit": wilson(hits, k + 1).as_dict(),
                    "mix": {r: v.as_dict() for r, v in rates_from_counts(dict(counts), k + 1).items()},
                    "points": list(points),
                    "elapsed_s": round(time.monotonic() - t0, 2),
                }
        job.progress = {"phase": "done", "busy": False, "done": setting.throws, "of": setting.throws}

    return Job("throw", work)


class Replays:
    """Replay pages made on request (kept in memory, the last `MAX_PAGES`)."""

    def __init__(self) -> None:
        self.pages: dict[str, str] = {}

    def job(self, setting: ThrowSetting, index: int) -> Job:
        """A job that throws throw `index` again with a recorder and keeps its replay page."""

        def work(job: Job) -> None:
            from sim.engine.worlds import thrower_for
            from sim.viewer.replay import record_throw, replay_html

            job.progress = {"phase": "replaying", "busy": True}
            th = thrower_for(setting.scenario())
            res, traj = record_throw(th, setting.seed, index)
            name = f"{job.id}.html"
            self.pages[name] = replay_html([(th, res, traj)])
            while len(self.pages) > MAX_PAGES:
                self.pages.pop(next(iter(self.pages)))
            job.result = {
                "url": f"/replay/{name}",
                "result": res.outcome.result,
                "reason": res.outcome.reason,
            }

        return Job("replay", work)
