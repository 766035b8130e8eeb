"""The throw bank: recorded throws of every scenario a game (or fight) asks for, kept once and reused.

A scenario is what decides a throw's physics and classification (a resampling table's match): die,
shots in force, skill, board, templates lying on the board, classification rules. Its throws are made
by the throw experiment's worker functions (the same physics, aimed release and records as
`dfsim run`), throw k from the scenario's seed and k alone, and kept in the bank folder as a manifest
`<key>.json` naming its records `<key>.<sha>.parquet`, content-addressed: the key is a hash of the
scenario, of what its data files hold (an edited skill, shot, board or die file is another entry) and
of the code that throws (not of a count: an entry grows, its first throws unchanged). So every game,
fight, experiment and tune that needs the scenario reuses the same throws, and two bank folders built
apart agree. The recording's seed is the scenario's alone: unchanged data, the same throws.

An entry's size is set by the precision it buys (sim.games.bank_size: its hit rate and mean damage to
a stated half-width, between a floor and a cap), or by `--bank-throws`; a table is the entry's first
throws up to that size. A pass's missing scenarios are recorded all at once on every worker,
resumably, under a lock per scenario (sim.games.bank_recorder). On load the manifest's SHA-256 of the
records is checked (a damaged entry is refused, naming the file).

The Water element dice ("water") are three dice thrown at once: the bank records the three-dice
scenario and combines each throw into one outcome as The Big Wave says (the hits' damage summed to
one hit, the misses counted in the effect `water-misses:N`, one special icon when all three hit or
all three miss).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa

from sim.engine.records import OUTCOME_READ
from sim.errors import SpecError, UncoveredThrow
from sim.experiments.throw_experiment import run_chunk as _run_chunk
from sim.fights.damage import WATER_MISSES
from sim.fights.monster import WATER, WATER_DICE, WATER_DIE
from sim.fights.resample import RecordedTable, ResampleSource, table_match
from sim.fights.throw_source import ThrowRequest
from sim.files import command_inputs
from sim.games.bank_recorder import record_prepare as _record_prepare
from sim.games.bank_size import CHUNK, DEFAULT_SIZE, BankSize, Settled, exact, settle
from sim.games.throw_cost import scenario_weight
from sim.hashing import json_hash
from sim.rules.outcome import Outcome

T = TypeVar("T")
BANK_FORMAT = 2
DEFAULT_THROWS = None  # no count asked: the precision rule (sim.games.bank_size) sizes each entry
ENV = "DFSIM_BANK"


def default_bank_dir() -> Path:
    """`$DFSIM_BANK`, else the user's cache: `$XDG_CACHE_HOME/dfsim/throw-bank` (~/.cache/...)."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dfsim" / "throw-bank"


def scenario_of(req: ThrowRequest) -> dict[str, Any]:
    """The scenario of a throw request: what its recorded throws must match. A request thrown with a
    release-noise house rule (eyes closed, off hand) is refused: the bank's throws are recorded at the
    usual noise, and serving them would answer another game without a word."""
    if req.noise_factor != 1.0:
        raise SpecError(
            "house_rules",
            "eyes_closed / off_hand",
            f"multiply the release noise (x{req.noise_factor:g}), which the throw bank's throws do not "
            "have: play such games with --engine physics",
        )
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


def scenario_key(s: dict[str, Any], data: str | None = None) -> str:
    """The content address of a scenario's entry recorded by this code: the scenario's data (`data`:
    its `scenario_data_key`, worked out when not given) and the code salt (dfsim's version, the source
    of the modules that throw and classify, PyBullet's, the machine) are part of it, so an edited skill,
    shot, board or die file, or an upgraded dfsim, records again instead of serving throws it would not
    make. The throw count is not: an entry grows (throw k depends only on the scenario's seed and k)."""
    from sim.diskcache import code_salt

    data = scenario_data_key(s) if data is None else data
    return json_hash([scenario_seed_key(s), code_salt(), data], 24, compact=True)


def scenario_experiment(s: dict[str, Any]) -> dict[str, Any]:
    """The one-cell throw experiment whose throws are the scenario's (its seed the scenario's)."""
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
    return {
        "name": f"bank-{scenario_seed_key(s)[:12]}",
        "description": scenario_text(s),
        "seed": scenario_seed(s),
        "throws": CHUNK,
        "chunk_throws": CHUNK,
        "defaults": defaults,
        "variants": [{"name": "bank"}],
    }


def resolve_scenario(experiment: dict[str, Any]) -> tuple[Any, list[Path]]:
    """A scenario's throw experiment (`scenario_experiment`) resolved (its die, shot, skill, board,
    template and material files read and validated) and the data files that were read."""
    from sim.experiments.kinds import resolve_any
    from sim.files import files_read

    with files_read() as files:
        _, exp = resolve_any(experiment)
    return exp, files


def scenario_data_key(s: dict[str, Any]) -> str:
    """The hash of the scenario's resolved data: every value of its die, shots, skill, board, templates
    and materials as loaded (the resolved scenario's key). A scenario names its files; this is what
    they hold, so an edited file makes another entry (its seed, `scenario_seed_key`, is unchanged)."""
    return str(resolve_scenario(scenario_experiment(s))[0].cells[0].key)


def scenario_seed_key(s: dict[str, Any]) -> str:
    """The hash of a scenario alone, which seeds its recording: the same throws whatever version
    records them and however many it records, as long as the code throws the same."""
    body = {"format": BANK_FORMAT, **{k: s[k] for k in sorted(s)}}
    body["shots"] = sorted(body["shots"])  # requirements combine regardless of order ...
    body["primary"] = s["shots"][0]  # ... but the first is the release
    return json_hash(body, 24, compact=True)


def outcome_arrays(s: dict[str, Any], rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per recorded throw, as the games see it (the Water dice combined): hit, and damage (0 unless a
    hit). What an entry's size is decided on."""
    if len(rows) == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    df = water_rows(rows) if s["die"] == WATER else rows
    hit = (df["result"] == "hit").to_numpy()
    return hit, np.where(hit, df["damage"].astype(float).to_numpy(), 0.0)


class ThrowBank:
    """A bank folder: `has`, `record` and `table` for scenarios (dicts from `scenario_of`).

    `throws`: the throws asked per scenario (`--bank-throws`: an entry holding fewer grows to it);
    None: the precision rule `size` decides each entry's size. Either way a table is the entry's
    first throws up to that size, so an answer does not depend on what else grew the entry.
    Recording runs on `workers` local processes, or on a Dask cluster (`executor="dask"`,
    `scheduler`, `security`: TLS as for `dfsim run`), or on an Executor given (sim.games.bank_recorder)."""

    def __init__(
        self,
        folder: str | Path | None = None,
        throws: int | None = DEFAULT_THROWS,
        workers: int | None = None,
        quiet: bool = False,
        executor: Any = "local",
        scheduler: str | None = None,
        size: BankSize = DEFAULT_SIZE,
        security: Any = None,
    ) -> None:
        self.dir = Path(folder) if folder is not None else default_bank_dir()
        if self.dir.exists() and not self.dir.is_dir():
            raise SpecError(self.dir, "bank", "is not a folder")
        self.throws = None if throws is None else int(throws)
        if self.throws is not None and self.throws < 1:
            raise SpecError("command line", "--bank-throws", "must be at least 1")
        if workers is not None and workers < 1:
            raise SpecError("command line", "--workers", "must be at least 1")
        self.workers = workers
        self.quiet = quiet
        self.executor = executor
        self.scheduler = scheduler
        self.security = security
        self.size = size
        self._tables: dict[str, RecordedTable] = {}
        self._sizes: dict[str, Settled] = {}
        # scenario (JSON) -> (its resolved experiment, the digests and paths of the files it read)
        self._resolved: dict[str, tuple[Any, tuple, list[str]]] = {}

    # the worker functions (a synthetic bank in the tests swaps them)
    chunk_fn: Callable[[Any], Any] = staticmethod(_run_chunk)  # type: ignore[assignment]
    prepare_fn: Callable[[Any], Any] = staticmethod(_record_prepare)  # type: ignore[assignment]

    # ---------------- names ----------------
    def key(self, s: dict[str, Any]) -> str:
        """The scenario's entry name (`scenario_key`, its data as the files hold them now)."""
        return scenario_key(s, str(self.resolved(s).cells[0].key))

    def text(self, s: dict[str, Any]) -> str:
        """The scenario in a few words."""
        return scenario_text(s)

    def path(self, s: dict[str, Any]) -> Path:
        """The manifest of a scenario's entry (its records file is named inside)."""
        return self.dir / f"{self.key(s)}.json"

    def rule_text(self) -> str:
        """The size rule in words (the first line of a recording)."""
        if self.throws is not None:
            return f"{self.throws:,} throws each, as asked"
        r = self.size
        costly = (
            f"; a scenario whose throw costs w bare throws (templates on the board) to w^{r.cost_exponent:g} "
            f"times that, on 1/w^{2 * r.cost_exponent:g} of the throws"
            if r.cost_exponent
            else ""
        )
        return (
            f"each until its hit rate is known to +-{100 * r.hit_half_width:g} points and its mean damage "
            f"to +-{r.damage_half_width:g} (95 %), {r.floor:,}-{r.cap:,} throws{costly}"
        )

    def rule(self, s: dict[str, Any]) -> BankSize:
        """The precision rule for this scenario: the bank's, made for its throws' cost."""
        return self.size.costed(scenario_weight(s))

    def say(self, text: str) -> None:
        """A line on stderr (unless quiet)."""
        if not self.quiet:
            print(text, file=sys.stderr, flush=True)

    # ---------------- sizes ----------------
    def decide(self, s: dict[str, Any], rows: pd.DataFrame) -> Settled:
        """Where these rows of the scenario stand: the size asked, or the precision rule's."""
        hit, damage = outcome_arrays(s, rows)
        if self.throws is not None:
            return exact(hit, damage, self.throws, self.size.confidence)
        return settle(hit, damage, self.rule(s))

    def forget(self, s: dict[str, Any]) -> None:
        """Drop what is held in memory of the scenario's entry (another process may have changed it)."""
        key = self.key(s)
        self._tables.pop(key, None)
        self._sizes.pop(key, None)

    def settled(self, s: dict[str, Any]) -> Settled | None:
        """The size the scenario's entry gives (None: no entry)."""
        key = self.key(s)
        st = self._sizes.get(key)
        if st is None:
            if not self.path(s).is_file():
                return None
            rows, _ = self.entry_rows(s)
            st = self._sizes[key] = self.decide(s, rows)
        return st

    def has(self, s: dict[str, Any]) -> bool:
        """Whether the bank holds an entry of the scenario with enough throws for its size."""
        st = self.settled(s)
        return st is not None and st.settled

    # ---------------- entries ----------------
    def manifest(self, s: dict[str, Any]) -> dict[str, Any] | None:
        """The entry's manifest (None: no entry); SpecError when it does not read."""
        p = self.path(s)
        if not p.is_file():
            return None
        try:
            meta = json.loads(p.read_text())
        except (OSError, ValueError) as exc:
            raise SpecError(p, "", f"not a readable bank entry ({exc})") from None
        if not isinstance(meta, dict) or not isinstance(meta.get("records"), str):
            raise SpecError(p, "records", "not a bank entry (delete it)")
        return meta

    def entry_rows(self, s: dict[str, Any]) -> tuple[pd.DataFrame, dict[str, Any] | None]:
        """Every recorded row of the scenario's entry (checked against its manifest) and the manifest;
        an empty frame and None when there is no entry."""
        for attempt in range(3):  # a growing entry's old records go once its new manifest is in place
            meta = self.manifest(s)
            if meta is None:
                return pd.DataFrame(), None
            p = self.dir / meta["records"]
            try:
                raw = p.read_bytes()
            except FileNotFoundError:
                if attempt < 2:
                    time.sleep(0.2)
                    continue
                raise SpecError(
                    p, "", "the records of this bank entry are missing (delete its .json)"
                ) from None
            if hashlib.sha256(raw).hexdigest() != meta.get("records_sha256"):
                raise SpecError(
                    p,
                    "records_sha256",
                    "the records do not match their bank entry (damaged: delete both files)",
                )
            return pd.read_parquet(io.BytesIO(raw)), meta
        raise AssertionError("unreachable")

    def store(
        self,
        s: dict[str, Any],
        records: pd.DataFrame,
        prepared: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Path:
        """Put a scenario's records (all its throws from throw 0) in the bank: the records file is named
        by its content and written first, the manifest replaced last (both atomically), then the records
        it replaced removed. `prepared`: the aim the throws were made with (an entry grows with it)."""
        from sim.games.bank_recorder import table_bytes, write_atomic

        key = self.key(s)
        self.dir.mkdir(parents=True, exist_ok=True)
        keep = [
            c for c in records.columns if c in OUTCOME_READ or c.startswith("die") or c in ("index", "n_dice")
        ]
        data = table_bytes(pa.Table.from_pandas(records[keep], preserve_index=False))
        digest = hashlib.sha256(data).hexdigest()
        name = f"{key}.{digest[:12]}.parquet"
        write_atomic(self.dir / name, data)
        old = None
        with contextlib.suppress(SpecError):
            old = self.manifest(s)
        hit, damage = outcome_arrays(s, records)
        rule = self.rule(s)
        body = {
            "format": BANK_FORMAT,
            "key": key,
            "scenario": s,
            "data": str(self.resolved(s).cells[0].key),  # the resolved data's hash (part of the key)
            "seed": scenario_seed(s),
            "records": name,
            "records_sha256": digest,
            "rows": len(records),
            "throws": len(records),
            "prepared": prepared,
            "precision": {
                "rule": rule.as_dict(),
                "settled": settle(hit, damage, rule).as_dict(),
            },
            **(meta or {}),
        }
        try:
            write_atomic(self.path(s), json.dumps(body, sort_keys=True, indent=1, default=str).encode())
        except BaseException:  # no manifest names the new records: they go, the entry stays as it was
            if old is None or old.get("records") != name:
                (self.dir / name).unlink(missing_ok=True)
            raise
        if old is not None and old.get("records") not in (None, name):
            (self.dir / str(old["records"])).unlink(missing_ok=True)
        self.forget(s)
        return self.dir / name

    def experiment(self, s: dict[str, Any]) -> dict[str, Any]:
        """The one-cell throw experiment whose throws are the scenario's (its seed the scenario's)."""
        return scenario_experiment(s)

    def resolved(self, s: dict[str, Any]) -> Any:
        """The scenario's throw experiment resolved, kept while none of the data files it read changes
        (a long-lived bank, the studio's, sees an edited file at the next question)."""
        name = json.dumps(s, sort_keys=True)
        held = self._resolved.get(name)
        if held is not None and held[1] == _digests(held[2]):
            return held[0]
        exp, files = resolve_scenario(self.experiment(s))
        paths = sorted({str(f) for f in files})
        self._resolved[name] = (exp, _digests(paths), paths)
        return exp

    def record(
        self,
        scenarios: Iterable[dict[str, Any]],
        stop: Callable[[], bool] | None = None,
        watch: Callable[[dict[str, Any]], None] | None = None,
    ) -> int:
        """Record (or grow) every scenario the bank lacks, all at once on the workers, with progress on
        stderr (and told to `watch`); returns how many were recorded (sim.games.bank_recorder).
        `stop()` true ends it early with Cancelled, the finished chunks kept."""
        from sim.games.bank_recorder import BankRecorder

        todo = [s for s in _unique(scenarios) if not self.has(s)]
        if not todo:
            return 0
        self.dir.mkdir(parents=True, exist_ok=True)
        with command_inputs():  # the recording's files are its own inputs, not the command's
            return BankRecorder(self).record(todo, stop, watch)

    def history(self) -> tuple[float, float]:
        """Seconds per aim solve and per bare-board throw on one worker, from the entries this bank
        holds (a first guess when it holds none): the time-left estimate before anything is back. A
        throw with templates on the board counts at its weight (sim.games.throw_cost), and the flip
        sessions its recording was expected to make at theirs."""
        from sim.games.bank_recorder import GUESS_AIM_S, GUESS_THROW_S

        aims, units, secs = [], 0.0, 0.0
        for m in self.entries()[-50:]:
            if m.get("aim_reference_throws"):
                aims.append(float(m.get("aim_seconds") or 0.0))
            if m.get("record_seconds"):
                units += int(m.get("rows") or 0) * scenario_weight(m.get("scenario") or {})
                units += float(m.get("flip_units") or 0.0)  # the flip sessions it made (expected)
                secs += float(m["record_seconds"])
        aim_s = sum(aims) / len(aims) if aims else GUESS_AIM_S
        return aim_s, (secs / units if units else GUESS_THROW_S)

    def table(self, s: dict[str, Any]) -> RecordedTable:
        """The recorded table of a scenario: its entry's first throws up to its size."""
        key = self.key(s)
        t = self._tables.get(key)
        if t is not None:
            return t
        rows, meta = self.entry_rows(s)
        if meta is None:
            raise UncoveredThrow(f"no banked throws for {scenario_text(s)}")
        st = self.decide(s, rows)
        if not st.settled:
            raise UncoveredThrow(
                f"the bank holds {len(rows)} throws of {scenario_text(s)}, {st.throws} needed"
            )
        self._sizes[key] = st
        df = rows.iloc[: st.throws]
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
        t.bank_key = key  # type: ignore[attr-defined]
        # what seeds its bootstrap copies (sim/games/bank_uncertainty.py): the scenario alone, as its
        # throws are, not the code's salt, so a code change that throws the same resamples the same
        t.replicate_key = scenario_seed_key(s)  # type: ignore[attr-defined]
        t.bank_size = st  # type: ignore[attr-defined]
        self._tables[key] = t
        return t

    def tables(self, scenarios: Iterable[dict[str, Any]]) -> list[RecordedTable]:
        """The tables of the scenarios the bank holds."""
        return [self.table(s) for s in _unique(scenarios) if self.has(s)]

    def entries(self) -> list[dict[str, Any]]:
        """Every complete entry of the bank folder (its manifest), for listing and checking."""
        out = []
        for m in sorted(self.dir.glob("*.json")) if self.dir.is_dir() else []:
            try:
                out.append(json.loads(m.read_text()))
            except (OSError, ValueError):
                continue
        return out


def scenario_seed(s: dict[str, Any]) -> int:
    """The root seed of a scenario's throws."""
    return int(scenario_seed_key(s)[:15], 16)


def _digests(paths: list[str]) -> tuple:
    """What tells a changed file: each one's content digest (None: gone). Data files are a few kB, so
    reading them costs less than a resolve, and unlike a modification time it misses no edit."""
    out: list[bytes | None] = []
    for p in paths:
        try:
            out.append(hashlib.blake2b(Path(p).read_bytes(), digest_size=16).digest())
        except OSError:
            out.append(None)
    return tuple(out)


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
                self.missing.setdefault(self.bank.key(s), s)
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
