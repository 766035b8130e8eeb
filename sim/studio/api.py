"""The studio's JSON API, apart from HTTP: each route takes the request's query or body and returns a
JSON-able dict, or raises `ApiError` (status and one line) / SpecError (400, "field: problem").

    GET  /api/state             games, policies, the bank, the baseline
    GET  /api/game?id=ID        a game's controls with their ranges and this file's values
    POST /api/play              {"setting": {...}, "target": 0.02, "cap": 20000} -> a job
    POST /api/baseline          {"setting": {...}} pins a baseline, {"setting": null} unpins
    POST /api/cancel            {"job": ID}
    GET  /api/job/ID            a job's state, progress and latest answer
    GET  /api/throw-options     the throw tab's shots, skills, dice and boards
    POST /api/throw             {"shots": [...], "skill", "die", "board", "throws", "seed"} -> a job
    POST /api/replay            {"job": THROW-JOB, "index": K} -> a job whose result names the page
"""

from __future__ import annotations

from typing import Any

import sim
from sim.errors import ApiError, SpecError
from sim.games.bank_uncertainty import REPLICATE_GAMES, REPLICATES
from sim.games.spec import game_from_dict
from sim.games.throw_bank import ThrowBank
from sim.specs.datafiles import read_toml, resolve
from sim.studio.controls import game_controls
from sim.studio.jobs import Jobs
from sim.studio.library import Library
from sim.studio.play import check_play, parse_stop, play_job
from sim.studio.session import Player, Setting, parse_setting, policy_names, refuse_unknown
from sim.studio.throwlab import Replays, ThrowSetting, options, parse_throw, throw_job

KEEP_THROW_JOBS = 20  # throw jobs whose throws can still be replayed


class Studio:
    """The state behind the page: the library of files, the bank, the played tallies, the jobs."""

    def __init__(
        self,
        bank: ThrowBank,
        library: Library | None = None,
        game: str = "base",
        replicates: int = REPLICATES,
    ) -> None:
        self.bank = bank
        self.library = library or Library()
        self.library.path_of("game", game)  # a game the library offers, or SpecError now
        self.first_game = game
        self.player = Player(bank, replicates)  # bootstrap banks behind the bank's part (0: none)
        self.jobs = Jobs()
        self.replays = Replays()
        self.baseline: Setting | None = None
        self.throw_settings: dict[str, ThrowSetting] = {}

    # ---- GET ----
    def state(self, query: dict[str, str]) -> dict[str, Any]:
        """What the page needs first: games, policy rungs, the bank, the baseline."""
        return {
            "version": sim.__version__,
            "games": self.library.listing("game"),
            "game": self.first_game,
            "policies": policy_names(),
            "folders": [str(f) for f in self.library.folders],
            "bank": {
                "dir": str(self.bank.dir),
                "throws": self.bank.throws if self.bank.throws is not None else "by precision",
                "entries": len(self.bank.entries()),
                "replicates": self.player.replicates,
                "replicate_games": REPLICATE_GAMES,
            },
            "baseline": self._baseline_json(),
        }

    def game(self, query: dict[str, str]) -> dict[str, Any]:
        """A game's controls with their valid ranges and this file's values."""
        refuse_unknown(query, ("id",), "")
        ident = query.get("id", self.first_game)
        path = self.library.path_of("game", ident)
        try:
            spec = game_from_dict(read_toml(resolve("game", path)), resolve("game", path))
            self.library.check_game(spec)
            spec.load_decks()
        except SpecError as exc:
            raise SpecError("request", "game", str(exc)) from None
        return {
            "id": ident,
            "name": spec.name,
            "description": spec.description,
            "policy": spec.policy,
            "seed": spec.seed,
            "controls": game_controls(spec),
        }

    def job(self, ident: str) -> dict[str, Any]:
        """A job's state, progress and latest answer (404 when unknown)."""
        j = self.jobs.get(ident)
        if j is None:
            raise ApiError(404, f"no job '{ident}'")
        return j.snapshot()

    def throw_options(self, query: dict[str, str]) -> dict[str, Any]:
        """The throw tab's choices."""
        return options(self.library)

    # ---- POST ----
    def play(self, body: Any) -> dict[str, Any]:
        """Start playing a setting (the job before it is cancelled: the user moved on)."""
        body = check_play(body)
        setting = parse_setting(body.get("setting", {}), self.library)
        rule = parse_stop(body)
        job = play_job(self.player, setting, self.baseline, rule)
        self.jobs.start("games", job, replace="play")
        return {"job": job.id}

    def pin(self, body: Any) -> dict[str, Any]:
        """Pin a setting as the baseline of paired differences, or unpin it (null)."""
        if not isinstance(body, dict):
            raise SpecError("request", "", "must be a JSON object")
        refuse_unknown(body, ("setting",), "")
        if "setting" not in body:
            raise SpecError("request", "setting", "is required (null unpins the baseline)")
        self.baseline = None if body["setting"] is None else parse_setting(body["setting"], self.library)
        return {"baseline": self._baseline_json()}

    def cancel(self, body: Any) -> dict[str, Any]:
        """Cancel a job (it stops at its next batch)."""
        if not isinstance(body, dict):
            raise SpecError("request", "", "must be a JSON object")
        refuse_unknown(body, ("job",), "")
        j = self.jobs.get(str(body.get("job")))
        if j is None:
            raise ApiError(404, f"no job '{body.get('job')}'")
        j.cancel()
        return {"job": j.id, "state": j.state}

    def throw(self, body: Any) -> dict[str, Any]:
        """Start throwing a scenario in the physics engine (the throw job before it is cancelled)."""
        setting = parse_throw(body, self.library)
        job = throw_job(setting, self.bank)
        self.throw_settings[job.id] = setting
        while len(self.throw_settings) > KEEP_THROW_JOBS:  # the replays of older throw jobs are gone
            self.throw_settings.pop(next(iter(self.throw_settings)))
        self.jobs.start("throws", job, replace="throw")
        return {"job": job.id}

    def replay(self, body: Any) -> dict[str, Any]:
        """Start making the replay page of one throw of a throw job."""
        if not isinstance(body, dict):
            raise SpecError("request", "", "must be a JSON object")
        refuse_unknown(body, ("job", "index"), "")
        setting = self.throw_settings.get(str(body.get("job")))
        if setting is None:
            raise SpecError("request", "job", f"no throw job '{body.get('job')}'")
        k = body.get("index")
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < setting.throws:
            raise SpecError("request", "index", f"must be a throw index from 0 to {setting.throws - 1}")
        job = self.replays.job(setting, k)
        self.jobs.start("throws", job)
        return {"job": job.id}

    def replay_page(self, name: str) -> str | None:
        """A replay page made earlier, by name (None when unknown)."""
        return self.replays.pages.get(name)

    def _baseline_json(self) -> dict[str, Any] | None:
        b = self.baseline
        if b is None:
            return None
        return {"game": b.game, "policy": b.policy, "seed": b.seed, "set": dict(b.overrides)}

    def close(self, wait_s: float = 10.0) -> bool:
        """Cancel every job; True when the lanes ended within `wait_s`."""
        return self.jobs.stop(wait_s)


GET_ROUTES = {"/api/state": "state", "/api/game": "game", "/api/throw-options": "throw_options"}
POST_ROUTES = {
    "/api/play": "play",
    "/api/baseline": "pin",
    "/api/cancel": "cancel",
    "/api/throw": "throw",
    "/api/replay": "replay",
}
