"""Recording a pass's missing bank scenarios as one parallel job, resumable, with one progress display.

Why one job: a game meets tens of scenarios, each an aimed-release solve (seconds to a minute on one
core) and then hundreds of throws. Recorded one after another, the aims ran on one core while the
others waited. Here every scenario's aim is handed to the workers at once, and the chunks of every
scenario whose aim is known are spread over the workers as they free up (so a large scenario's
chunks run side by side too). The executor is the runner's (local processes or a Dask cluster).

Why it resumes: every finished chunk is written at once, under a temporary name renamed into place,
into `.parts/<key>/` of the bank, and so is a solved aim (`aim.json`); a recording stopped by Ctrl-C,
a crash or kill -9 loses only the chunks then being thrown: the next run picks up every file it
finds. An entry is only put in the bank once its size is settled (sim.games.bank_size), and the
parts are removed after.

Why it is safe beside another recorder: a scenario is recorded under an exclusive lock on
`.locks/<key>.lock` (an OS file lock, released by the kernel when its holder dies, even by kill -9).
A recorder finding a scenario locked records the others first, then waits for it, saying so, and
records it itself if the holder died without finishing it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import queue
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sim.errors import Cancelled, ChunkFailed
from sim.games.bank_size import CHUNK, Settled
from sim.games.throw_cost import flip_session_weight, fresh_flips, scenario_weight

if TYPE_CHECKING:
    from sim.experiments.executor import Executor

PARTS = ".parts"
LOCKS = ".locks"
AIM_FILE = "aim.json"
# first guesses of the time left, before this bank has any history: an aim solve of the base game's
# casual shots (24.6 s over its 7 solves) and one bare-board throw of a casual die (5.4 ms), on a worker
# of a quiet 2-core machine (benchmarks/first_answer.py's breakdown); templates cost more
GUESS_AIM_S = 3.5
GUESS_THROW_S = 0.0055


def aim_group(inputs: dict[str, Any]) -> str:
    """The aimed release a scenario throws, as a key: scenarios with the same one (dice of one body,
    flipped templates or none: sim/specs/scenario.py `board_aim_key`) solve it once between them."""
    from sim.specs.scenario import Scenario

    return _aim_group_of(Scenario.build(**inputs))


def _aim_group_of(sc: Any) -> str:
    return str(sc.aim_key if any(t.aim for t in sc.templates) else sc.board_aim_key)


def flip_units(jobs: list[tuple[tuple[str, int, int] | None, dict[str, Any], int]]) -> list[float]:
    """The flip sessions `throws` more throws of each (its flip bank as `flips_on_disk` gives it, bank
    scenario dict, throws) will make, in bare-throw units: scenarios flipping from one flip bank share
    its entries (and those this machine holds already are made), so a bank's expected new entries
    (`fresh_flips`) are spread over its scenarios by their throws. A flip is a fixed cost of a
    template set's first throws on a machine, which the throw weights leave out
    (sim/games/throw_cost.py)."""
    out = [0.0] * len(jobs)
    groups: dict[str, tuple[int, int, float, list[tuple[int, int]]]] = {}
    for i, (held, s, throws) in enumerate(jobs):
        if held is None or throws <= 0:
            continue
        stem, size, have = held
        g = groups.setdefault(stem, (size, have, flip_session_weight(s.get("templates") or ()), []))
        g[3].append((i, throws))
    for size, have, weight_, members in groups.values():
        total = sum(n for _, n in members)
        units = fresh_flips(total, size, have) * weight_
        for i, n in members:
            out[i] = units * n / total
    return out


def _scenario(j: _Job) -> Any:
    """A job's Scenario, built once (a few ms; tens with templates)."""
    if j.scenario is None:
        from sim.specs.scenario import Scenario

        j.scenario = Scenario.build(**j.exp.cells[0].inputs)
    return j.scenario


# --------------------------------------------------------------------------------------------
# worker functions (top level: picklable by reference)


def record_prepare(task: Any) -> dict[str, Any]:
    """The scenario's aimed release (and flip-bank entries) as the runner prepares it, with how many
    reference throws the solve made (0: the aim came from this machine's cache) and its seconds."""
    from sim.engine.run_folder import prepared_aim
    from sim.engine.templates import prepared_flip_bank
    from sim.engine.worlds import thrower_for
    from sim.experiments.throw_experiment import task_scenario

    t0 = time.perf_counter()
    thrower = thrower_for(task_scenario(task))
    made = [0]

    def seen(done: int, at_most: int) -> None:
        made[0] = max(made[0], int(done))

    prepared = {**prepared_aim(thrower, progress=seen), **prepared_flip_bank(thrower)}
    return {"prepared": prepared, "reference_throws": made[0], "seconds": time.perf_counter() - t0}


def timed(fn: Any, task: Any) -> tuple[pa.Table, float]:
    """`fn(task)` and the seconds it took on the worker (the time-left estimate's evidence)."""
    t0 = time.perf_counter()
    table = fn(task)
    return table, time.perf_counter() - t0


# --------------------------------------------------------------------------------------------
# files


def write_atomic(path: Path, data: bytes) -> None:
    """Write under a temporary name in the same folder, flush to disk, rename into place; a write that
    fails (a full disk, a file-size limit) leaves no temporary file and names `path` in its OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            raise OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path)) from exc
        raise


def table_bytes(table: pa.Table) -> bytes:
    """A table as parquet bytes."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


class ScenarioLock:
    """An exclusive OS lock on one scenario of a bank (released on close, or by the kernel when the
    process dies)."""

    def __init__(self, folder: Path, key: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.fh = open(folder / f"{key}.lock", "a+")  # noqa: SIM115 - held until release

    def acquire(self, block: bool) -> bool:
        """Take the lock; False when another process holds it and `block` is off."""
        import fcntl

        try:
            fcntl.flock(self.fh.fileno(), fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
            return True
        except BlockingIOError:
            return False

    def release(self) -> None:
        """Let the lock go."""
        self.fh.close()


# --------------------------------------------------------------------------------------------
# the job


@dataclass
class _Job:
    """One scenario being recorded: its entry so far, its parts, its aim, where its size stands."""

    s: dict[str, Any]
    key: str
    text: str
    exp: Any  # a one-cell throw experiment of the scenario
    lock: ScenarioLock
    parts_dir: Path
    base: pd.DataFrame  # the entry's rows already in the bank (growing), else empty
    prepared: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # aim reference throws and seconds, seconds
    parts: dict[int, tuple[int, pa.Table]] = field(default_factory=dict)  # start -> (stop, table)
    running: dict[int, int] = field(default_factory=dict)  # start -> stop of chunks in flight
    aiming: bool = False
    scenario: Any = None  # its Scenario, built once in this process (`_scenario`)
    unit_weight: float = 1.0  # a throw in bare-throw units, this recording's flips spread over its throws
    target: int = 0
    state: Settled | None = None
    done: bool = False  # its size is settled (its entry is being, or has been, stored)
    stored: bool = False  # its entry is in the bank and its lock let go

    @property
    def contiguous(self) -> int:
        """Rows recorded without a gap from throw 0 (the entry's, then the parts')."""
        end = len(self.base)
        while end in self.parts:
            end = self.parts[end][0]
        return end

    def next_chunk(self) -> tuple[int, int] | None:
        """The lowest range below the target neither recorded nor running."""
        pos = len(self.base)
        while pos < self.target:
            if pos in self.parts:
                pos = self.parts[pos][0]
            elif pos in self.running:
                pos = self.running[pos]
            else:
                return pos, min(self.target, (pos // CHUNK + 1) * CHUNK)
        return None


class BankRecorder:
    """Records scenarios into a ThrowBank (see the module docstring)."""

    def __init__(self, bank: Any) -> None:
        self.bank = bank
        self.parts_root = bank.dir / PARTS
        self.locks = bank.dir / LOCKS

    # ---------------- public ----------------
    def record(
        self,
        scenarios: list[dict[str, Any]],
        stop: Callable[[], bool] | None = None,
        watch: Callable[[dict[str, Any]], None] | None = None,
    ) -> int:
        """Record (or grow) every scenario given until its size is settled; returns how many. `stop()`
        true (asked at least every half second) ends the recording with Cancelled, every finished
        chunk kept for the next recording (the studio's user moved on). `watch(state)` is told what
        the progress display shows, whenever it changes (the studio's page shows it)."""
        jobs, waiting = [], []
        try:
            for s in scenarios:
                lock = ScenarioLock(self.locks, self.bank.key(s))
                if not lock.acquire(block=False):
                    lock.release()
                    waiting.append(s)
                    continue
                self.bank.forget(s)
                if self.bank.has(s):  # another recorder finished it meanwhile
                    lock.release()
                    continue
                jobs.append(self._job(s, lock))
            if jobs:
                self._run(jobs, stop, watch)
        finally:
            for j in jobs:
                if not j.stored:
                    j.lock.release()
        n = len(jobs)
        for s in waiting:
            lock = ScenarioLock(self.locks, self.bank.key(s))
            self.bank.say(f"waiting for another dfsim recording {self.bank.text(s)} into {self.bank.dir}")
            lock.acquire(block=True)
            lock.release()
            self.bank.forget(s)
            if not self.bank.has(s):  # its recorder stopped before the end: carry on from its parts
                n += self.record([s], stop, watch)
        return n

    # ---------------- setting up ----------------
    def _job(self, s: dict[str, Any], lock: ScenarioLock) -> _Job:
        bank = self.bank
        key = bank.key(s)
        base, meta = bank.entry_rows(s)
        exp = bank.resolved(s)  # the very data the key was made of
        job = _Job(s, key, bank.text(s), exp, lock, self.parts_root / key, base)
        if meta:
            job.prepared = meta.get("prepared")
            job.meta = {k: meta.get(k, 0) for k in ("aim_reference_throws", "aim_seconds", "record_seconds")}
        aim = self._read_aim(job.parts_dir)
        if job.prepared is None and aim is not None:
            job.prepared, job.meta = aim["prepared"], aim["meta"]
        self._read_parts(job)
        self._advance(job)
        return job

    def _read_aim(self, folder: Path) -> dict[str, Any] | None:
        try:
            aim = json.loads((folder / AIM_FILE).read_text())
            return aim if isinstance(aim, dict) and isinstance(aim.get("prepared"), dict) else None
        except (OSError, ValueError):
            return None

    def _read_parts(self, job: _Job) -> None:
        """The parts a stopped recording left (a part that does not read, or holds other throws than its
        name says, is removed: it is thrown again)."""
        if not job.parts_dir.is_dir():
            return
        for p in sorted(job.parts_dir.glob("*.parquet")):
            if p.name.startswith("."):
                continue
            try:
                start, stop = (int(x) for x in p.stem.split("-"))
                table = pq.read_table(p)
                idx = table.column("index").to_pylist() if "index" in table.column_names else None
                if table.num_rows != stop - start or (idx is not None and idx != list(range(start, stop))):
                    raise ValueError("not the throws its name says")
            except (OSError, ValueError, pa.ArrowException):
                p.unlink(missing_ok=True)
                continue
            if start >= len(job.base):
                job.parts[start] = (stop, table)

    # ---------------- the loop ----------------
    def _run(
        self,
        jobs: list[_Job],
        should_stop: Callable[[], bool] | None = None,
        watch: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """Record the jobs; a worker that died or failed, or a write the disk refused, stops the
        recording in one line naming the bank folder (ChunkFailed, OSError; exit status 1), with what
        is finished kept: every entry stored whole, every finished chunk in its part file."""
        try:
            self._throw(jobs, should_stop, watch)
        except ChunkFailed as exc:
            raise ChunkFailed(
                f"{self.bank.dir}: recording stopped: {exc.reason}; {self._kept(jobs)}", exc.task, exc.reason
            ) from None
        except OSError as exc:
            problem = exc.strerror or str(exc) or type(exc).__name__
            if exc.filename is not None:
                name = Path(str(exc.filename))
                where = name.relative_to(self.bank.dir) if name.is_relative_to(self.bank.dir) else name
                problem += f" writing {where}"
            raise OSError(
                exc.errno, f"recording stopped: {problem}; {self._kept(jobs)}", str(self.bank.dir)
            ) from None

    def _kept(self, jobs: list[_Job]) -> str:
        """What a stopped recording keeps, and what to do."""
        stored = sum(j.stored for j in jobs)
        chunks = sum(len(j.parts) for j in jobs if not j.stored)
        rest = " of the others" if stored else ""
        return (
            f"{stored} of {len(jobs)} scenarios stored, {chunks} finished chunks{rest} kept: "
            "run the same command again to carry on"
        )

    def _throw(
        self,
        jobs: list[_Job],
        should_stop: Callable[[], bool] | None,
        watch: Callable[[dict[str, Any]], None] | None,
    ) -> None:
        bank = self.bank
        for j in jobs:
            j.aiming = j.prepared is None
        for j in [j for j in jobs if j.done]:
            self._finish(j)
        live = [j for j in jobs if not j.done]
        if not live:
            return
        todo = [max(0, j.target - j.contiguous) for j in live]
        todo_throws = sum(todo)
        # each throw at its template set's weight, and the flip sessions the recording will make
        from sim.engine.templates import flips_on_disk

        held = [flips_on_disk(_scenario(j)) for j in live]  # read once: a stat per entry of each bank
        flips = flip_units([(h, j.s, n) for h, j, n in zip(held, live, todo, strict=True)])
        for j, n, f in zip(live, todo, flips, strict=True):
            j.unit_weight = scenario_weight(j.s) + (f / n if n else 0.0)
            j.meta["flip_units"] = j.meta.get("flip_units", 0.0) + f  # bank.history's per-unit time
        todo_units = sum(n * j.unit_weight for j, n in zip(live, todo, strict=True))
        aim_s, throw_s = bank.history()
        ex, owned = self._executor()
        workers = max(1, ex.workers)
        aims = sum(j.aiming for j in live)
        # scenarios sharing an aimed release solve it once (the others read it from the cache)
        solves = len({_aim_group_of(_scenario(j)) for j in live if j.aiming})
        guess = (solves * aim_s + todo_units * throw_s) / workers
        upto = ""
        if bank.throws is None:  # sized by precision: the rule may take each entry up to its widest
            widest = [max(n, bank.rule(j.s).widest() - j.contiguous) for j, n in zip(live, todo, strict=True)]
            wide_flips = flip_units([(h, j.s, n) for h, j, n in zip(held, live, widest, strict=True)])
            if sum(widest) > todo_throws:
                worst_units = sum(n * scenario_weight(j.s) for j, n in zip(live, widest, strict=True))
                worst = (solves * aim_s + (worst_units + sum(wide_flips)) * throw_s) / workers
                upto = (
                    f" (up to {sum(widest):,} throws, ~{_clock(worst)}, "
                    "if each needs the rule's widest)"
                )
        bank.say(
            f"recording {len(live)} scenario{'s' if len(live) != 1 else ''} into {bank.dir} "
            f"({bank.rule_text()}): up to {solves} aim solve{'s' if solves != 1 else ''}"
            f"{f' for {aims} scenarios' if aims != solves else ''} and about "
            f"{todo_throws:,} throws to start, ~{_clock(guess)} on {ex.name} x{workers}{upto}"
        )
        # the bar counts scenarios still aiming: each at its share of the solves, until aims come back
        per_aim = aim_s * solves / aims if aims else aim_s
        bar = _Bar(len(live), todo_throws, bank.quiet, per_aim, throw_s, workers, aims, watch, todo_units)
        limit = max(2, 2 * workers)
        pending: dict[int, tuple[Any, _Job]] = {}  # id(task) -> (task, its scenario)
        stopping = False
        # one scenario of each aimed release solves it; the others of its group are sent once it is
        # back, and read it from the cache (sent together, two workers would solve one release twice)
        followers: dict[str, list[_Job]] = {}
        for j in live:
            if j.aiming:
                followers.setdefault(_aim_group_of(_scenario(j)), []).append(j)

        def send_prepare(j: _Job) -> None:
            t = self._prepare_task(j)
            pending[id(t)] = (t, j)
            ex.submit(t, bank.prepare_fn)

        try:
            for group in followers.values():
                send_prepare(group.pop(0))
            while not all(j.done for j in live):
                stopping = stopping or (should_stop is not None and should_stop())
                # stopped: an executor of our own is closed at once (its running chunks abandoned);
                # one given is shared, so the chunks in flight are collected (and kept) first
                if stopping and (owned or not pending):
                    raise Cancelled
                while not stopping and len(pending) < limit:
                    nxt = self._next(live)
                    if nxt is None:
                        break
                    j, start, stop = nxt
                    j.running[start] = stop
                    t = self._chunk_task(j, start, stop)
                    pending[id(t)] = (t, j)
                    ex.submit(t, functools.partial(timed, bank.chunk_fn))
                try:
                    task, value = ex.next_result(timeout=0.5)
                except queue.Empty:
                    bar.tick()
                    continue
                except ChunkFailed as exc:
                    if exc.task is not None and id(exc.task) not in pending:
                        continue  # see below
                    raise
                if id(task) not in pending:  # a task of an earlier recording that stopped, on an executor
                    continue  # given to the bank (it outlives each recording): not this one's
                _, j = pending.pop(id(task))
                if task.chunk < 0:
                    self._aimed(j, value)
                    bar.aimed(float(value.get("seconds", 0.0)), j.text)
                    for follower in followers.pop(_aim_group_of(_scenario(j)), []):
                        send_prepare(follower)
                else:
                    table, secs = value
                    stop = j.running.pop(task.start)
                    if table.num_rows != stop - task.start:
                        raise RuntimeError(
                            f"a worker returned {table.num_rows} throws for {stop - task.start}"
                        )
                    write_atomic(j.parts_dir / f"{task.start:08d}-{stop:08d}.parquet", table_bytes(table))
                    j.parts[task.start] = (stop, table)
                    j.meta["record_seconds"] = j.meta.get("record_seconds", 0.0) + secs
                    bar.chunk(table.num_rows, secs, j.text, j.unit_weight)
                    was = j.target
                    self._advance(j)
                    if j.done:
                        self._finish(j)
                        bar.scenario_done()
                    elif j.target != was:
                        bar.more(j.target - was, scenario_weight(j.s))
        except KeyboardInterrupt:
            kept = sum(len(j.parts) for j in live if not j.stored)
            bar.close()
            bank.say(
                f"dfsim: recording interrupted; {sum(j.stored for j in live)} scenarios stored, {kept} "
                f"chunks of the others kept in {self.parts_root}: run the command again to carry on"
            )
            raise
        finally:
            bar.close()
            for ex_ in owned:
                ex_.close()

    def _executor(self) -> tuple[Executor, list[Executor]]:
        from sim.experiments.executor import Executor, make_executor

        given = self.bank.executor
        if isinstance(given, Executor):
            return given, []
        bank = self.bank
        security = getattr(bank, "security", None)
        ex = make_executor(str(given), bank.workers, bank.scheduler, security, warm=("sim.engine.thrower",))
        return ex, [ex]

    def _next(self, live: list[_Job]) -> tuple[_Job, int, int] | None:
        """The lowest chunk across the scenarios whose aim is known (scenarios advance together)."""
        best = None
        for j in live:
            if j.done or j.prepared is None:
                continue
            r = j.next_chunk()
            if r is not None and (best is None or r[0] < best[1]):
                best = (j, *r)
        return best

    def _prepare_task(self, j: _Job) -> Any:
        from sim.experiments.throw_experiment import PrepareTask

        return PrepareTask(cell=0, inputs=j.exp.cells[0].inputs, key=j.exp.cells[0].key)

    def _chunk_task(self, j: _Job, start: int, stop: int) -> Any:
        from sim.experiments.throw_experiment import ThrowExperiments

        return ThrowExperiments().task(j.exp, 0, start // CHUNK, start, stop, j.prepared)

    def _aimed(self, j: _Job, value: dict[str, Any]) -> None:
        j.prepared = value["prepared"]
        j.meta["aim_reference_throws"] = int(value.get("reference_throws", 0))
        j.meta["aim_seconds"] = float(value.get("seconds", 0.0))
        j.aiming = False
        write_atomic(j.parts_dir / AIM_FILE, json.dumps({"prepared": j.prepared, "meta": j.meta}).encode())

    def _rows(self, j: _Job) -> pd.DataFrame:
        frames = [j.base] if len(j.base) else []
        end = len(j.base)
        while end in j.parts:
            stop, table = j.parts[end]
            frames.append(table.to_pandas())
            end = stop
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def _advance(self, j: _Job) -> None:
        """Decide the size on the rows so far: settled (done) or the next checkpoint (target). Below the
        checkpoint nothing can change (the rule reads whole prefixes up to its checkpoints), so the
        rows are only gathered again once it is reached: not once per chunk, which grew as the square
        of a large entry's chunks."""
        if j.state is not None and not j.state.settled and j.contiguous < j.state.throws:
            return
        rows = self._rows(j)
        j.state = self.bank.decide(j.s, rows)
        if j.state.settled:
            j.target, j.done = j.contiguous, True
        else:
            j.target = j.state.throws

    def _finish(self, j: _Job) -> None:
        """Store the entry (all rows recorded), drop the parts, let the lock go."""
        import shutil

        assert j.state is not None and j.state.settled
        rows = self._rows(j)
        self.bank.store(j.s, rows, prepared=j.prepared, meta={**j.meta, "size": j.state.as_dict()})
        shutil.rmtree(j.parts_dir, ignore_errors=True)
        j.lock.release()
        j.done = j.stored = True


class _Bar:
    """One progress display for the job: scenarios done, throws, the scenario last heard of, time left
    (aims still to solve and throws still to make, at the rates measured so far; throws counted in
    bare-board units, each at its template set's weight, since the cheap scenarios often come back
    first)."""

    def __init__(
        self,
        scenarios: int,
        throws: int,
        quiet: bool,
        aim_s: float,
        throw_s: float,
        workers: int,
        aims: int,
        watch: Callable[[dict[str, Any]], None] | None = None,
        units: float | None = None,
    ) -> None:
        from tqdm.auto import tqdm

        self.watch = watch
        self.thrown, self.planned = 0, throws  # counted here: a disabled (quiet) tqdm counts nothing
        self.units_done, self.units_planned = 0.0, float(throws if units is None else units)
        self.scenarios, self.done = scenarios, 0
        self.aim_s, self.throw_s, self.workers, self.aims_left = aim_s, throw_s, workers, aims
        self.aim_seen: list[float] = []
        self.throw_seen: list[tuple[float, float]] = []  # (bare-board units, seconds)
        self.last = ""
        self.bar = tqdm(
            total=throws,
            unit="throw",
            disable=quiet,
            file=sys.stderr,
            dynamic_ncols=True,
            bar_format="{desc}{percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} throws [{elapsed}{postfix}]",
        )
        self.closed = False
        self._show()

    def _left(self) -> float:
        aim = sum(self.aim_seen) / len(self.aim_seen) if self.aim_seen else self.aim_s
        n = sum(k for k, _ in self.throw_seen)
        per = sum(s for _, s in self.throw_seen) / n if n else self.throw_s
        return (self.aims_left * aim + max(0.0, self.units_planned - self.units_done) * per) / self.workers

    def _show(self) -> None:
        aiming = f", aiming {self.aims_left}" if self.aims_left else ""
        self.bar.set_description_str(f"{self.done}/{self.scenarios} scenarios{aiming} ", refresh=False)
        self.bar.set_postfix_str(
            f"{self.last}, ~{_clock(self._left())} left" if self.last else f"~{_clock(self._left())} left",
            refresh=False,
        )
        self.bar.refresh()
        if self.watch is not None:
            self.watch(self.state())

    def state(self) -> dict[str, Any]:
        """What the display shows, as data: scenarios done of all, aims still to solve, throws made of
        those planned (a scenario short of its precision adds more), the last heard of, seconds left."""
        return {
            "done": self.done,
            "of": self.scenarios,
            "aiming": self.aims_left,
            "thrown": self.thrown,
            "planned": self.planned,
            "last": self.last,
            "left_s": round(self._left(), 1),
        }

    def tick(self) -> None:
        """Half a second passed with nothing back: the elapsed time moves."""
        self.bar.refresh()

    def aimed(self, seconds: float, text: str) -> None:
        """A scenario's aim is solved."""
        self.aims_left = max(0, self.aims_left - 1)
        if seconds > 1.0:  # a solve, not a cached aim
            self.aim_seen.append(seconds)
        self.last = f"aimed {text}"
        self._show()

    def chunk(self, throws: int, seconds: float, text: str, weight: float = 1.0) -> None:
        """A chunk of `throws` came back, each costing `weight` bare-board throws."""
        self.throw_seen.append((throws * weight, seconds))
        self.thrown += throws
        self.units_done += throws * weight
        self.bar.update(throws)
        self.last = text
        self._show()

    def more(self, throws: int, weight: float = 1.0) -> None:
        """A scenario needs more throws than planned (its precision not yet reached)."""
        self.planned += throws
        self.units_planned += throws * weight
        self.bar.total = self.planned
        self._show()

    def scenario_done(self) -> None:
        """A scenario's entry is in the bank."""
        self.done += 1
        self._show()

    def close(self) -> None:
        """Leave the last state on the screen."""
        if not self.closed:
            self.closed = True
            self.bar.close()


def _clock(seconds: float) -> str:
    s = int(math.ceil(max(0.0, seconds)))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


__all__ = ["BankRecorder", "record_prepare", "timed", "write_atomic", "ScenarioLock"]
