"""Running an experiment of any kind: plan chunks, farm them out, store them, resume, stop, summarise.

Why it is built this way: throw k's release depends only on (root seed, k), and a chunk is a pure
function of its cell and index range, so the records are the same whatever the executor, the number
of workers or the order chunks finish in. The parent process alone touches the output folder; a
stopping rule is decided on whole prefixes of chunks in throw order, so it too is deterministic.

Nothing on disk is taken on trust: on every (re)run each chunk must match the sha256 the manifest
recorded for it and hold exactly the throws its name stands for, the prepared aim must match its
hash, and whatever a worker returns is checked the same way before it is stored. What fails is
reported in one line and recomputed (sim.experiments.integrity).

What differs between kinds (the worker task, the plan, the stopping rule, what comes first, the
summary) is asked of the experiment's kind (sim.experiments.kinds); the runner never asks which kind
it holds. A kind that plays itself (a game experiment) is handed its folder and options.
"""

from __future__ import annotations

import json
import math
import queue
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from sim.engine.run_folder import MANIFEST
from sim.errors import Interrupted, SpecError, stop_signal
from sim.experiments.executor import ChunkFailed, Executor, make_executor
from sim.experiments.integrity import (
    ChunkLayout,
    Plan,
    check_records,
    non_finite_path,
    read_json_object,
    value_digest,
    verify_chunk,
)
from sim.experiments.kind import Caps, ChunkedKind, PlayedKind, PlayOptions
from sim.experiments.kinds import resolve_any
from sim.experiments.progress import RunProgress, Steps
from sim.experiments.results import Results
from sim.experiments.scheduler import scheduler_address
from sim.experiments.statistics import interval_width, rate_mask, wilson
from sim.experiments.store import (
    FIGURE_DIR,
    FIGURE_HASHES,
    REPORT_HASHES,
    STRAY_CHUNK,
    Store,
    figure_hashes,
    report_hashes,
)

MAX_NOTES = 20  # repair lines printed; the rest are counted (dfsim doctor lists them all)
OWN: Any = object()  # a worker-function hook left at its default: the kind's own function


def chunk_bounds(throws: int, max_throws: int, size: int) -> list[tuple[int, int]]:
    """Index ranges of the chunks of one cell (a list, for inspection; the runner never builds it)."""
    layout = ChunkLayout(throws, max_throws, size)
    return [layout.bounds(j) for j in range(layout.count)]


@dataclass
class _CellPlan:
    """Progress of one cell: which chunks are done and, with a stopping rule, where it stops."""

    layout: ChunkLayout
    min_throws: int
    done: dict[int, tuple[int, int]] = field(default_factory=dict)  # chunk -> (rate count, n)
    stop_at: int | None = None  # last chunk in the records, once decided
    stopped_by: str = ""
    _checked: int = 0  # chunks 0.._checked-1 are folded into _k/_n
    _k: int = 0
    _n: int = 0
    _cursor: int = 0  # chunks below it are done or running

    def decide(self, stop_rule, confidence: float) -> None:
        last = self.layout.count - 1
        if stop_rule is None:
            self.stop_at, self.stopped_by = last, "throws"
            return
        while self.stop_at is None and self._checked in self.done:
            j = self._checked
            k, n = self.done[j]
            self._k += k
            self._n += n
            self._checked += 1
            end = self.layout.bounds(j)[1]
            if (
                end >= self.min_throws
                and interval_width(wilson(self._k, self._n, confidence)) <= stop_rule.width
            ):
                self.stop_at, self.stopped_by = j, "width"
            elif j == last:
                self.stop_at, self.stopped_by = j, "max_throws"

    @property
    def limit(self) -> int:
        return self.stop_at if self.stop_at is not None else self.layout.count - 1

    @property
    def complete(self) -> bool:
        return self.stop_at is not None and all(j in self.done for j in range(self.stop_at + 1))

    @property
    def planned_throws(self) -> int:
        return self.layout.bounds(self.limit)[1]

    @property
    def throws_done(self) -> int:
        return sum(n for j, (_, n) in self.done.items() if j <= self.limit)

    def next_free(self, cell: int, in_flight: set[tuple[int, int]]) -> int | None:
        """The lowest chunk neither done nor running (None: every chunk up to the limit is)."""
        while self._cursor <= self.limit and (self._cursor in self.done or (cell, self._cursor) in in_flight):
            self._cursor += 1
        return self._cursor if self._cursor <= self.limit else None


class _Notes:
    """Repair reports: one line each on stderr (the first MAX_NOTES), all kept for Results.repairs."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, line: str) -> None:
        """Report one repair."""
        self.items.append(line)
        if len(self.items) <= MAX_NOTES:
            print(f"dfsim: {line}", file=sys.stderr)

    def close(self) -> None:
        """Say how many repairs were not printed."""
        if len(self.items) > MAX_NOTES:
            print(
                f"dfsim: ... and {len(self.items) - MAX_NOTES} more repairs (dfsim doctor lists problems)",
                file=sys.stderr,
            )


def run_experiment(
    path_or_spec: Any,
    out: str | Path | None = None,
    workers: int | None = None,
    executor: str | Executor = "local",
    scheduler: str | None = None,
    force: bool = False,
    quiet: bool = False,
    max_throws: int | None = None,
    figures: bool = True,
    security: Any = None,
    variants: Sequence[str] | None = None,
    bank: Any = None,
    _chunk_fn: Any = OWN,
    _prepare_fn: Any = OWN,
    **caps: int | None,
) -> Results:
    """Run (or resume) an experiment of any kind and return its Results.

    `path_or_spec`: an experiment file, a built-in experiment name, a parsed spec of any kind
    (ExperimentSpec, FightExperimentSpec, ...) or a plain dict of the file's content. `out` defaults
    to results/<experiment name>/. A fight experiment first runs (or resumes) the throw experiment it
    names, into the folder of that name beside `out`, unless that run is already complete and
    verifies; `max_throws` caps that experiment. `caps`: the caps its kind declares, by name
    (`max_fights=10`: fights per cell; `max_games=100`: games per variant); a cap of another kind is
    refused. A kind that plays itself (a game experiment) draws its throws from the bank folder `bank`
    and keeps no records, only summary.json, report.md and figures. `security` (Dask only): a
    distributed.security.Security, or a dict with ca_file, cert and key for TLS.
    `variants`: run only the variants matching these shell patterns (an experiment of its own).
    Bad input raises sim.errors.SpecError before anything is written (a scheduler that cannot be
    reached raises OSError, also before); Ctrl-C raises Interrupted with finished chunks kept;
    a full disk raises OSError with finished chunks kept. `_chunk_fn` / `_prepare_fn` (tests and
    benchmarks): stand-ins for the kind's worker functions; `_prepare_fn=None` skips the preparation.
    """

    t0 = time.perf_counter()
    kind, exp = resolve_any(path_or_spec, caps=Caps.of(max_throws=max_throws, **caps), variants=variants)
    out = Path(out) if out is not None else Path("results") / exp.name
    if isinstance(kind, PlayedKind):
        if workers is not None and workers < 1:
            raise SpecError("command line", "--workers", "must be at least 1")
        if scheduler is not None:
            scheduler_address(scheduler)
        played = PlayOptions(
            workers=workers,
            quiet=quiet,
            figures=figures,
            bank=bank,
            executor=executor,
            scheduler=scheduler,
            security=security,
        )
        res = kind.play(exp, out, played)
        res.kind = kind
        return res
    if not isinstance(kind, ChunkedKind):
        raise TypeError(f"experiment kind '{kind.name}' neither plays itself nor is farmed out in chunks")
    require_finite(exp)
    if isinstance(executor, str) and executor not in ("local", "dask"):
        raise SpecError("command line", "--executor", f"unknown executor '{executor}' (local or dask)")
    if workers is not None and workers < 1:
        raise SpecError("command line", "--workers", "must be at least 1")
    if scheduler is not None:
        scheduler_address(scheduler)
    Store.check(out, exp.hash, force)

    def upstream(source: str, folder: Path, cap: int | None) -> Results:
        return run_experiment(
            source,
            out=folder,
            workers=workers,
            executor=executor,
            scheduler=scheduler,
            quiet=quiet,
            figures=figures,
            max_throws=cap,
            security=security,
        )

    exp, earlier = kind.before(exp, out, upstream, quiet)
    chunk_fn = kind.work if _chunk_fn is OWN else _chunk_fn
    prep = kind.preparation
    prepare_fn = None if prep is None else prep.work if _prepare_fn is OWN else _prepare_fn
    given = executor if isinstance(executor, Executor) else None
    owned: list[Executor] = []

    def get_executor() -> Executor:
        if given is not None:
            return given
        if not owned:
            owned.append(make_executor(str(executor), workers, scheduler, security, warm=kind.warm))
        return owned[0]

    try:
        if given is None and executor == "dask" and scheduler is not None:
            get_executor()  # connect now: an unreachable scheduler must not leave a folder behind
        store = Store.prepare(out, exp, force, plan=kind.plan(exp).to_json())
        try:
            res = _run(kind, exp, store, out, get_executor, quiet, figures, chunk_fn, prepare_fn, t0)
        finally:
            store.close()
    finally:
        for ex in owned:
            ex.close()
    res.throws, res.kind = earlier, kind
    return res


def require_finite(exp: Any) -> None:
    """Refuse NaN and infinity anywhere in the experiment before anything is written (they cannot be
    stored)."""
    path = non_finite_path(exp.spec.model_dump())
    if path is None:
        try:
            json.dumps(exp.resolved(), allow_nan=False)
            return
        except ValueError:
            path = non_finite_path(exp.resolved()) or ""
    raise SpecError(exp.source, path, "must be a finite number (not NaN or infinity)")


def _run(
    kind: ChunkedKind,
    exp: Any,
    store: Store,
    out: Path,
    get_executor: Callable[[], Executor],
    quiet: bool,
    figures: bool,
    chunk_fn,
    prepare_fn,
    t0: float,
) -> Results:
    spec = exp.spec
    stop_rule = kind.stop_rule(exp)
    plan = kind.plan(exp)
    plans = [_CellPlan(plan.layout, plan.layout.first) for _ in exp.cells]
    notes = _Notes()
    bar = None
    run_throws = 0
    in_flight: set[tuple[int, int]] = set()
    try:
        reference = _verify_chunks(store, plan, plans, stop_rule, notes)
        bar = RunProgress(
            sum(p.planned_throws for p in plans), sum(p.throws_done for p in plans), quiet, kind.unit
        )
        prepared: dict[str, dict] = {}
        if prepare_fn is not None:
            prepared = _prepare(store, kind, exp, plans, get_executor, prepare_fn, notes, bar)
        for p in plans:
            p.decide(stop_rule, spec.confidence)
        bar.bar.n = sum(p.throws_done for p in plans)  # a repaired aim may have discarded chunks
        bar.set_total(sum(p.planned_throws for p in plans))
        if not all(p.complete for p in plans):
            ex = get_executor()
            limit = max(2, 2 * ex.workers)
            bar.throwing(ex.name, ex.workers, sum(1 for p in plans if not p.complete))
            while True:
                while len(in_flight) < limit:
                    task = _next_task(kind, exp, plans, in_flight, prepared)
                    if task is None:
                        break
                    ex.submit(task, chunk_fn)
                    in_flight.add((task.cell, task.chunk))
                if not in_flight:
                    break
                try:
                    task, table = ex.next_result(timeout=0.5)
                except queue.Empty:
                    continue
                in_flight.discard((task.cell, task.chunk))
                problem = check_records(
                    table,
                    task.cell,
                    task.start,
                    task.stop,
                    spec.seed,
                    exp.cells[task.cell].key,
                    reference.get(task.cell),
                )
                if problem:
                    raise ChunkFailed(
                        f"chunk {task.chunk} of cell {task.cell}: what the worker returned {problem}; "
                        "not stored"
                    )
                reference.setdefault(task.cell, table.schema)
                store.write_chunk(task.cell, task.chunk, table)
                plan_c = plans[task.cell]
                plan_c.done[task.chunk] = (_rate_count(table, stop_rule), table.num_rows)
                was = plan_c.planned_throws
                plan_c.decide(stop_rule, spec.confidence)
                bar.chunk_done(table.num_rows, counted=task.chunk <= plan_c.limit)
                if task.chunk <= plan_c.limit:
                    run_throws += table.num_rows
                if plan_c.planned_throws != was:
                    bar.set_total(sum(p.planned_throws for p in plans))
        if bar is not None:
            bar.close()
        notes.close()
        return _finish(kind, exp, store, out, plans, figures, run_throws, t0, notes, quiet)
    except KeyboardInterrupt as exc:  # Ctrl-C or a stop signal, in any phase: the folder says so
        _best_effort(lambda: store.write_manifest(exp, "interrupted"))
        if bar is not None:
            bar.close()
        notes.close()
        n_chunks = len(store.recorded_chunks())
        raise Interrupted(out, n_chunks, sum(p.throws_done for p in plans), stop_signal(exc)) from None
    except BaseException:
        _best_effort(lambda: store.write_manifest(exp, "failed"))
        raise
    finally:
        if bar is not None:
            bar.close()


def _finish(
    kind: ChunkedKind,
    exp: Any,
    store: Store,
    out: Path,
    plans: list[_CellPlan],
    figures: bool,
    run_records: int,
    t0: float,
    notes: _Notes,
    quiet: bool,
) -> Results:
    """After the last chunk: the records, then the kind's summary, figures and reports, then the
    manifest "complete" with the counts in the kind's unit (throws, fights)."""
    # speculative chunks past a stopping point are not part of the records
    for c, p in enumerate(plans):
        for j in [j for j in p.done if j > p.limit]:
            store.drop_chunk(c, j)
            del p.done[j]
    order = [(c, j) for c, p in enumerate(plans) for j in range(p.limit + 1)]
    units = kind.unit + "s"
    steps = Steps(1 + kind.finishing_steps(figures), enabled=not quiet)
    steps.start(f"records.parquet ({sum(p.planned_throws for p in plans)} {units})")
    store.finalize(order)
    stopped = {exp.cells[c].name: p.stopped_by for c, p in enumerate(plans)}
    done = kind.finish(store, exp, stopped, figures, steps, quiet)
    elapsed = time.perf_counter() - t0
    store.write_manifest(
        exp,
        "complete",
        {
            units: done.total,
            "elapsed_s": round(elapsed, 3),
            f"{units}_run": run_records,
            f"{units}_per_s": round(run_records / elapsed, 2) if run_records else None,
            "records_sha256": store.records_sha256,
            "figures": [f"{FIGURE_DIR}/{Path(f).name}" for f in done.figures],
            FIGURE_HASHES: figure_hashes(done.figures),
            REPORT_HASHES: report_hashes(store.root),
        },
    )
    return Results(
        out=out,
        summary=done.summary,
        experiment=exp,
        figures=done.figures,
        elapsed_s=elapsed,
        throws_run=run_records,
        repairs=notes.items,
    )


def _best_effort(fn: Callable[[], None]) -> None:
    """Record a failed or interrupted state if the disk still allows it (it may be the disk that failed)."""
    try:
        fn()
    except OSError:
        pass


def _rate_count(table: pa.Table, stop_rule) -> int:
    return int(rate_mask(table, stop_rule.rate).sum()) if stop_rule else 0


def _verify_chunks(
    store: Store, plan: Plan, plans: list[_CellPlan], stop_rule: Any, notes: _Notes
) -> dict[int, pa.Schema]:
    """Trust the chunks on disk that match their recorded hash and their place in the plan; report the rest.

    Returns the schema of each cell's first trusted chunk: every later chunk of that cell must agree
    with it (cells may differ: a cell with templates has tpl_* columns, one without has none).
    """
    reference: dict[int, pa.Schema] = {}
    kept = 0
    recorded = store.recorded_chunks()
    on_disk = store.done_chunks()
    for c, j in sorted(on_disk):
        path = store.chunk_path(c, j)
        if c >= len(plans) or j >= plan.layout.count:  # never part of the records: a run's name, so removed
            notes.add(f"{path}: {STRAY_CHUNK}; removing it")
            store.drop_chunk(c, j)
            continue
        start, stop = plan.layout.bounds(j)
        table, digest, problem = verify_chunk(
            path,
            store.recorded_hash(c, j),
            store.hashes_known,
            c,
            start,
            stop,
            plan.seed,
            plan.keys[c],
            reference.get(c),
        )
        if problem is not None or table is None:
            notes.add(f"{path}: {problem}; recomputing it")
            store.forget(c, j)
            continue
        reference.setdefault(c, table.schema)
        if not store.hashes_known and digest is not None:
            store.record(c, j, digest)
        plans[c].done[j] = (_rate_count(table, stop_rule), table.num_rows)
        kept += 1
    for c, j in sorted(recorded - on_disk):
        if c < len(plans) and j < plan.layout.count:
            notes.add(
                f"{store.chunk_path(c, j)}: is missing although the manifest records it; recomputing it"
            )
        store.forget(c, j)
    if not store.hashes_known:
        checks = "the range checks (cell, throw indices, seed, scenario)"
        if store.manifest_outdated:
            notes.add(
                f"{store.root / MANIFEST} {store.manifest_problem}: recorded the hashes of the {kept} "
                f"chunks that pass {checks}"
            )
        else:
            notes.add(
                f"{store.root / MANIFEST} {store.manifest_problem}: its chunk hashes are lost; rebuilt "
                f"it, keeping the {kept} chunks that pass {checks}"
            )
        store.hashes_known = True
    store.flush(force=True)
    return reference


def _prepare(
    store: Store,
    kind: ChunkedKind,
    exp: Any,
    plans: list[_CellPlan],
    get_executor: Callable[[], Executor],
    fn,
    notes: _Notes,
    bar: RunProgress,
) -> dict[str, dict]:
    """The per-scenario values (the kind's preparation), verified against the manifest or solved (once,
    in parallel).

    A value is trusted when its digest matches the one the manifest recorded, i.e. the one the
    run's chunks were thrown with. Any other is solved again; should the solution differ from the
    value the chunks were thrown with, those chunks are recomputed too.
    """
    path = store.prepared_path
    keys = list(dict.fromkeys(c.key for c in exp.cells))
    claimed, problem = read_json_object(path)
    claimed = claimed or {}
    recorded = store.prepared_digests()
    if recorded is not None:
        known = {
            k: claimed[k] for k in keys if k in claimed and recorded.get(k) == _digest_or_none(claimed[k])
        }
        expected: dict[str, str] = dict(recorded)
        if problem:
            notes.add(f"{path} {problem}; solving the aims again")
        elif path.exists() and not store.prepared_file_matches():
            notes.add(
                f"{path}: does not match its hash in the manifest; solving again the aims that do not verify"
            )
        elif recorded and not path.exists():
            notes.add(f"{path}: is missing; solving the aims again")
    else:  # hashes lost: nothing verifies, so solve every aim and compare with what the file claims
        known = {}
        expected = {k: d for k, d in ((k, _digest_or_none(v)) for k, v in claimed.items()) if d is not None}
    need = [k for k in keys if k not in known]
    if need:
        solved = _solve(get_executor(), kind, exp, need, fn, bar)
        for key, value in solved.items():
            if expected.get(key) == value_digest(value):
                continue
            cells = [c for c, cell in enumerate(exp.cells) if cell.key == key and plans[c].done]
            if not cells:
                continue
            n = sum(len(plans[c].done) for c in cells)
            notes.add(
                f"{path}: the aim of scenario {key} solved again differs from the one its chunks were thrown "
                f"with; recomputing its {n} chunks"
            )
            for c in cells:
                for j in list(plans[c].done):
                    store.drop_chunk(c, j)
                plans[c].done.clear()
        known.update(solved)
    values = {k: known[k] for k in keys}
    if need or recorded is None or set(claimed) != set(keys) or not store.prepared_file_matches():
        store.write_prepared(values)
    return values


def _digest_or_none(value: Any) -> str | None:
    try:
        return value_digest(value)
    except (TypeError, ValueError):
        return None


def _solve(
    ex: Executor, kind: ChunkedKind, exp: Any, need: list[str], fn, bar: RunProgress
) -> dict[str, dict]:
    """Solve the aims of `need` on the workers; the bar's text says how many are solved, and once one
    is, about how long the rest take (the aims run side by side, `ex.workers` at a time)."""
    t0 = time.perf_counter()

    def say(done: int) -> None:
        text = f"aiming: {done}/{len(need)} scenarios solved"
        if done:
            per = (time.perf_counter() - t0) / math.ceil(done / max(1, ex.workers))
            left = per * (math.ceil(len(need) / max(1, ex.workers)) - math.ceil(done / max(1, ex.workers)))
            text += f", ~{int(left) // 60}:{int(left) % 60:02d} left" if left > 0 else ""
        bar.describe(text)

    say(0)
    first = {k: next(c for c, cell in enumerate(exp.cells) if cell.key == k) for k in need}
    for key, c in first.items():
        ex.submit(kind.preparation.task(exp, c, key), fn)
    solved: dict[str, dict] = {}
    while len(solved) < len(need):
        try:
            task, value = ex.next_result(timeout=0.5)
        except queue.Empty:
            bar.bar.refresh()  # the elapsed time moves: not a frozen line
            continue
        if not isinstance(value, dict) or _digest_or_none(value) is None:
            raise ChunkFailed(
                f"preparing cell {task.cell}: the worker returned {type(value).__name__}, not JSON values"
            )
        solved[task.key] = value
        say(len(solved))
    bar.describe("")
    return solved


def _next_task(
    kind: ChunkedKind,
    exp: Any,
    plans: list[_CellPlan],
    in_flight: set[tuple[int, int]],
    prepared: dict[str, dict],
) -> Any:
    """The lowest chunk index not yet done or running, across cells (cells advance together), as the
    kind's task (None: nothing left to submit)."""
    best: tuple[int, int] | None = None
    for c, p in enumerate(plans):
        j = p.next_free(c, in_flight)
        if j is not None and (best is None or j < best[1]):
            best = (c, j)
    if best is None:
        return None
    c, j = best
    start, stop = plans[c].layout.bounds(j)
    return kind.task(exp, c, j, start, stop, prepared.get(exp.cells[c].key))
