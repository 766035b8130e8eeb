"""The throw bank: recorded throws of every scenario a game (or fight) asks for, kept once and reused.

A scenario is what decides a throw's physics and classification (a resampling table's match): die,
shots in force, skill, board, templates lying on the board, classification rules. Its throws are
recorded by the experiment runner (a one-cell throw experiment, so the physics, the aimed release,
the records and their checks are the runner's) and kept in the bank folder as
`<key>.parquet` + `<key>.json`, content-addressed: the key is a hash of the scenario and of how it was
recorded (throws, seed derived from the scenario, record format). So every game, fight, experiment
and tune that needs the scenario reuses the same throws, and two bank folders built apart agree.

Safe under concurrent runs: a scenario is recorded into a private temporary folder inside the bank,
its files written under temporary names and renamed into place (the `.json` last: a key without its
`.json` is not there); two runs recording the same scenario write the same bytes. On load the `.json`'s
SHA-256 of the records is checked (a damaged entry is refused, naming the file).

The Water element dice ("water") are three dice thrown at once: the bank records the three-dice
scenario and combines each throw into one outcome as The Big Wave says (the hits' damage summed to
one hit, the misses counted in the effect `water-misses:N`, one special icon when all three hit or
all three miss).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from sim.engine.records import OUTCOME_READ
from sim.engine.run_folder import RECORDS
from sim.errors import SpecError, UncoveredThrow
from sim.fights.damage import WATER_MISSES
from sim.fights.monster import WATER, WATER_DICE, WATER_DIE
from sim.fights.resample import RecordedTable, ResampleSource, table_match
from sim.fights.throw_source import ThrowRequest
from sim.files import command_inputs
from sim.hashing import json_hash
from sim.rules.outcome import Outcome

T = TypeVar("T")
BANK_FORMAT = 1
DEFAULT_THROWS = 2000
ENV = "DFSIM_BANK"


def default_bank_dir() -> Path:
    """`$DFSIM_BANK`, else the user's cache: `$XDG_CACHE_HOME/dfsim/throw-bank` (~/.cache/...)."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dfsim" / "throw-bank"


def scenario_of(req: ThrowRequest) -> dict[str, Any]:
    """The scenario of a throw request: what its recorded throws must match."""
    return {
        "die": req.die,
        "shots": list(req.shots),
        "skill": req.skill,
        "board": req.board,
        "templates": sorted(req.templates),
        "rules": {k: v for k, v in req.rules},
    }


def scenario_text(s: dict[str, Any]) -> str:
    """A scenario in a few words (progress lines, table labels)."""
    t = f"{s['die']} {'+'.join(s['shots'])} {s['skill']}"
    if s["templates"]:
        t += " on " + "+".join(s["templates"])
    if s["rules"]:
        t += " rules " + ",".join(f"{k}={v}" for k, v in sorted(s["rules"].items()))
    return t


def scenario_key(s: dict[str, Any], throws: int) -> str:
    """The content address of a scenario recorded with `throws` throws by this code: the code salt
    (dfsim's version, the source of the modules that throw and classify, PyBullet's, the machine) is
    part of it, so an upgraded dfsim records again instead of serving throws it would not make."""
    from sim.diskcache import code_salt

    return json_hash([scenario_seed_key(s, throws), code_salt()], 24, compact=True)


def scenario_seed_key(s: dict[str, Any], throws: int) -> str:
    """The hash of a scenario and its throw count alone, which seeds its recording: the same throws
    whatever version records them, as long as the code throws the same."""
    body = {"format": BANK_FORMAT, "throws": int(throws), **{k: s[k] for k in sorted(s)}}
    body["shots"] = sorted(body["shots"])  # requirements combine regardless of order ...
    body["primary"] = s["shots"][0]  # ... but the first is the release
    return json_hash(body, 24, compact=True)


class ThrowBank:
    """A bank folder: `has`, `record` and `tables` for scenarios (dicts from `scenario_of`)."""

    def __init__(
        self,
        folder: str | Path | None = None,
        throws: int = DEFAULT_THROWS,
        workers: int | None = None,
        quiet: bool = False,
    ) -> None:
        self.dir = Path(folder) if folder is not None else default_bank_dir()
        if self.dir.exists() and not self.dir.is_dir():
            raise SpecError(self.dir, "bank", "is not a folder")
        self.throws = int(throws)
        if self.throws < 1:
            raise SpecError("command line", "--bank-throws", "must be at least 1")
        self.workers = workers
        self.quiet = quiet
        self._tables: dict[str, RecordedTable] = {}

    def path(self, s: dict[str, Any]) -> Path:
        """The records file of a scenario's entry."""
        return self.dir / f"{scenario_key(s, self.throws)}.parquet"

    def has(self, s: dict[str, Any]) -> bool:
        """Whether the bank holds a complete entry of the scenario (its `.json` is written last)."""
        p = self.path(s)
        return p.with_suffix(".json").is_file() and p.is_file()

    def record(self, scenarios: Iterable[dict[str, Any]]) -> int:
        """Record every scenario not yet in the bank (progress on stderr); returns how many were recorded."""
        todo = [s for s in _unique(scenarios) if not self.has(s)]
        if not todo:
            return 0
        self.dir.mkdir(parents=True, exist_ok=True)
        self._say(
            f"recording {len(todo)} scenario{'s' if len(todo) != 1 else ''} x {self.throws:,} throws into "
            f"{self.dir}"
        )
        for i, s in enumerate(todo, 1):
            if self.has(s):  # another run recorded it meanwhile
                continue
            self._say(f"  [{i}/{len(todo)}] {scenario_text(s)}")
            self._record_one(s)
        return len(todo)

    def _say(self, text: str) -> None:
        if not self.quiet:
            print(text, file=sys.stderr, flush=True)

    def _record_one(self, s: dict[str, Any]) -> None:
        from sim.experiments.runner import run_experiment

        key = scenario_key(s, self.throws)
        dice = [WATER_DIE] * WATER_DICE if s["die"] == WATER else [s["die"]]
        defaults: dict[str, Any] = {
            "board": s["board"],
            "dice": dice,
            "skill": s["skill"],
            "shots": list(s["shots"]),
        }
        if s["rules"]:
            defaults["rules"] = dict(s["rules"])
        if s["templates"]:
            defaults["templates"] = [{"name": t, "flip": True} for t in s["templates"]]
        exp = {
            "name": f"bank-{key[:12]}",
            "description": scenario_text(s),
            "seed": int(scenario_seed_key(s, self.throws)[:15], 16),
            "throws": self.throws,
            "chunk_throws": max(1, min(100, self.throws)),
            "defaults": defaults,
            "variants": [{"name": "bank"}],
        }
        tmp = Path(tempfile.mkdtemp(prefix=f".rec-{key[:8]}-", dir=self.dir))
        try:
            # a recording of its own: the files it reads are its inputs, not the command's (a removed
            # temporary folder's inode may come back as this run's manifest)
            with command_inputs():
                run_experiment(exp, out=tmp / "run", workers=self.workers, quiet=self.quiet, figures=False)
            self.store(s, pd.read_parquet(tmp / "run" / RECORDS), tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def store(self, s: dict[str, Any], records: pd.DataFrame, tmp: Path | None = None) -> Path:
        """Put a scenario's records in the bank: written under temporary names (in `tmp`, a folder
        inside the bank, or the bank itself) and renamed into place, the `.json` last."""
        key = scenario_key(s, self.throws)
        self.dir.mkdir(parents=True, exist_ok=True)
        where = tmp if tmp is not None else self.dir
        keep = [
            c for c in records.columns if c in OUTCOME_READ or c.startswith("die") or c in ("index", "n_dice")
        ]
        part = where / f".{key}.{os.getpid()}.parquet"
        records[keep].to_parquet(part, index=False)
        digest = hashlib.sha256(part.read_bytes()).hexdigest()
        meta = where / f".{key}.{os.getpid()}.json"
        meta.write_text(
            json.dumps(
                {
                    "format": BANK_FORMAT,
                    "key": key,
                    "scenario": s,
                    "throws": self.throws,
                    "records_sha256": digest,
                    "rows": len(records),
                },
                sort_keys=True,
                indent=1,
            )
        )
        os.replace(part, self.dir / f"{key}.parquet")
        os.replace(meta, self.dir / f"{key}.json")
        return self.dir / f"{key}.parquet"

    def table(self, s: dict[str, Any]) -> RecordedTable:
        """The recorded table of a scenario in the bank (checked against its `.json`)."""
        key = scenario_key(s, self.throws)
        t = self._tables.get(key)
        if t is not None:
            return t
        p = self.dir / f"{key}.parquet"
        meta_p = p.with_suffix(".json")
        try:
            meta = json.loads(meta_p.read_text())
            raw = p.read_bytes()
        except (OSError, ValueError) as exc:
            raise SpecError(meta_p, "", f"not a readable bank entry ({exc})") from None
        if hashlib.sha256(raw).hexdigest() != meta.get("records_sha256"):
            raise SpecError(
                p, "records_sha256", "the records do not match their bank entry (damaged: delete both files)"
            )
        df = pd.read_parquet(p)
        if s["die"] == WATER:
            df = water_rows(df)
        t = RecordedTable(df, label=f"bank:{scenario_text(s)}")
        t.match = table_match(
            die=s["die"],
            shots=s["shots"],
            skill=s["skill"],
            board=s["board"],
            templates=s["templates"],
            rules=s["rules"],
            noise=1.0,
        )
        self._tables[key] = t
        return t

    def tables(self, scenarios: Iterable[dict[str, Any]]) -> list[RecordedTable]:
        """The tables of the scenarios the bank holds."""
        return [self.table(s) for s in _unique(scenarios) if self.has(s)]

    def entries(self) -> list[dict[str, Any]]:
        """Every complete entry of the bank folder (its `.json`), for listing and checking."""
        out = []
        for m in sorted(self.dir.glob("*.json")) if self.dir.is_dir() else []:
            try:
                out.append(json.loads(m.read_text()))
            except (OSError, ValueError):
                continue
        return out


def _unique(scenarios: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for s in scenarios:
        seen.setdefault(json.dumps(s, sort_keys=True), s)
    return list(seen.values())


def water_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Records of the three Water dice (die 0 in the plain columns, dice 1 and 2 in `die1_*`, `die2_*`)
    as one combined row per throw: "The hero adds up the damage from all of the water element dice
    that hit [...] Next, the hero adds up the damage from all of the water element dice that missed
    [...] if either all three dice count as a hit or all three dice count as a miss, then collectively
    they produce one special icon." A throw with a void die is void."""
    rows = []
    for r in df.to_dict("records"):
        dice = [(r["result"], r.get("value"), r["damage"], r.get("section"))]
        for k in range(1, WATER_DICE):
            dice.append(
                (
                    r.get(f"die{k}_result"),
                    r.get(f"die{k}_value"),
                    r.get(f"die{k}_damage"),
                    r.get(f"die{k}_section"),
                )
            )
        results = [d[0] for d in dice]
        if any(x not in ("hit", "miss") for x in results):
            rows.append({"result": "void", "reason": "water-void", "damage": 0.0})
            continue
        hits = [d for d in dice if d[0] == "hit"]
        misses = len(dice) - len(hits)
        effects = [f"{WATER_MISSES}{misses}"] if misses else []
        if not hits or not misses:
            effects.append("collective-icon")
        value = int(sum(int(d[1]) for d in hits if d[1] is not None and d[1] == d[1] and int(d[1]) >= 0))
        rows.append(
            {
                "result": "hit" if hits else "miss",
                "reason": "hit" if hits else "water-all-missed",
                "section": hits[0][3] if hits else "",
                "value": value if hits else -1,
                "damage": float(sum(float(d[2]) for d in hits)),
                "face": "",
                "icon": False,
                "effects": ";".join(effects),
            }
        )
    return pd.DataFrame(rows)


class BankSource(ResampleSource):
    """A resampling throw source over a bank: a request's table is its scenario's entry (exact match,
    no search). With `discover`, a scenario missing from the bank is noted in `missing` and the throw
    counts as a miss (that pass is only a search for scenarios: `play` replays once they are recorded);
    without it, a missing scenario raises `UncoveredThrow`."""

    def __init__(
        self, bank: ThrowBank, seed: int = 0, discover: bool = False, alias: dict[str, str] | None = None
    ) -> None:
        self.bank = bank
        self.alias = alias or {}  # die -> die whose throws answer for it (the same body)
        self.tables = []
        self.seed = int(seed)
        self.discover = discover
        self.missing: dict[str, dict[str, Any]] = {}
        self._choice: dict[tuple, Any] = {}
        self.used: dict[str, RecordedTable] = {}
        self._block = -1
        self._blk: list[list[float]] = []
        self._over_fight = -1
        self._over: list[float] = []
        self._over_gen = None

    def table_for(self, req: ThrowRequest) -> RecordedTable | None:  # type: ignore[override]
        """The entry of the request's scenario (None when discovering and the bank lacks it)."""
        key = (req.die, req.shots, req.skill, req.board, req.templates, req.rules)
        t = self._choice.get(key)
        if t is None:
            s = scenario_of(req)
            s["die"] = self.alias.get(s["die"], s["die"])
            if not self.bank.has(s):
                if not self.discover:
                    raise UncoveredThrow(f"no banked throws for {scenario_text(s)}")
                self.missing.setdefault(scenario_key(s, self.bank.throws), s)
                return None
            t = self._choice[key] = self.bank.table(s)
            self.used.setdefault(t.label, t)
        return t

    def throw(self, request: ThrowRequest) -> Outcome:
        """Row int(u * n) of the scenario's entry, u = u(seed, fight, throw) as in ResampleSource."""
        t = self.table_for(request)
        if t is None:
            return DISCOVERY_MISS
        return t.outcomes[int(self.uniform(request.fight, request.throw) * t.n)]


DISCOVERY_MISS = Outcome(result="miss", reason="not-banked")
MAX_PASSES = 12  # record-and-replay passes before giving up


def die_alias(colored_die: str, white_die: str) -> dict[str, str]:
    """{white: colored} when the white die's file differs from the colored die's only in name and colour
    (the box's white d8 is the hero d8's body: its throws are the same), else {}."""
    from sim.fights.resample import same_body

    return {white_die: colored_die} if white_die != colored_die and same_body(white_die, colored_die) else {}


def play(
    run: Callable[[BankSource], T], bank: ThrowBank, seed: int, alias: dict[str, str] | None = None
) -> tuple[T, BankSource]:
    """`run(source)` on the bank until no throw needs a scenario the bank lacks: each pass records the
    scenarios the last one met, and the returned result is of a pass whose every throw was banked
    (so it is exactly what the recorded throws give). `alias` (`die_alias`) lets one die's throws
    answer for another of the same body."""
    for _ in range(MAX_PASSES):
        src = BankSource(bank, seed, discover=True, alias=alias)
        out = run(src)
        if not src.missing:
            return out, src
        bank.record(src.missing.values())
    raise SpecError(bank.dir, "bank", f"still meeting new throw scenarios after {MAX_PASSES} passes")


__all__ = ["ThrowBank", "BankSource", "play", "scenario_of", "scenario_key", "default_bank_dir", "water_rows"]
