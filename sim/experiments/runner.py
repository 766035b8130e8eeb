"""Running an experiment: plan chunks, farm them out, store them, resume, stop, summarise.

Why it is built this way: throw k's release depends only on (root seed, k), and a chunk is a pure
function of its cell and index range, so the records are the same whatever the executor, the number
of workers or the order chunks finish in. The parent process alone touches the output folder; a
stopping rule is decided on whole prefixes of chunks in throw order, so it too is deterministic.
"""

from __future__ import annotations

import json
import math
import queue
import sys
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from sim.errors import SpecError
from sim.experiments.executor import (
    ChunkFailed,
    ChunkTask,
    Executor,
    FightChunkTask,
    PrepareTask,
    make_executor,
    run_chunk,
    run_fight_chunk,
    run_prepare,
)
from sim.experiments.fight_spec import FightExperiment, FightExperimentSpec, resolve_any, throws_folder
from sim.experiments.progress import RunProgress
from sim.experiments.spec import Experiment, ExperimentSpec
from sim.experiments.statistics import interval_width, rate_mask, wilson
from sim.experiments.store import Store, write_json


class Interrupted(Exception):
    """The run was stopped (Ctrl-C) with finished chunks kept on disk."""

    def __init__(self, out: Path, chunks: int, throws: int) -> None:
        super().__init__(
            f"interrupted: kept {chunks} finished chunks ({throws} throws) in {out}; "
            "run the same command again to resume"
        )
        self.out = out


def chunk_bounds(throws: int, max_throws: int, size: int) -> list[tuple[int, int]]:
    """Index ranges of the chunks of one cell: `throws` split by size, then on to max_throws.

    The boundary at `throws` is always a chunk end, so a stopping rule is first checked there.
    """
    out = [(s, min(s + size, throws)) for s in range(0, throws, size)]
    out += [(s, min(s + size, max_throws)) for s in range(throws, max_throws, size)]
    return out


@dataclass
class _CellPlan:
    """Progress of one cell: which chunks are done and, with a stopping rule, where it stops."""

    bounds: list[tuple[int, int]]
    min_throws: int
    done: dict[int, tuple[int, int]] = field(default_factory=dict)  # chunk -> (rate count, n)
    stop_at: int | None = None  # last chunk in the records, once decided
    stopped_by: str = ""
    _checked: int = 0  # chunks 0.._checked-1 are folded into _k/_n
    _k: int = 0
    _n: int = 0

    def decide(self, stop_rule, confidence: float) -> None:
        last = len(self.bounds) - 1
        if stop_rule is None:
            self.stop_at, self.stopped_by = last, "throws"
            return
        while self.stop_at is None and self._checked in self.done:
            j = self._checked
            k, n = self.done[j]
            self._k += k
            self._n += n
            self._checked += 1
            end = self.bounds[j][1]
            if end >= self.min_throws and interval_width(wilson(self._k, self._n, confidence)) <= stop_rule.width:
                self.stop_at, self.stopped_by = j, "width"
            elif j == last:
                self.stop_at, self.stopped_by = j, "max_throws"

    @property
    def limit(self) -> int:
        return self.stop_at if self.stop_at is not None else len(self.bounds) - 1

    @property
    def complete(self) -> bool:
        return self.stop_at is not None and all(j in self.done for j in range(self.stop_at + 1))

    @property
    def planned_throws(self) -> int:
        return self.bounds[self.limit][1]

    @property
    def throws_done(self) -> int:
        return sum(self.bounds[j][1] - self.bounds[j][0] for j in self.done if j <= self.limit)


@dataclass
class Results:
    """What a run leaves: the output folder, the summary, and the records (loaded on first use)."""

    out: Path
    summary: dict[str, Any]
    experiment: Experiment | FightExperiment
    figures: list[Path] = field(default_factory=list)
    elapsed_s: float = 0.0
    throws_run: int = 0  # throws (of a fight experiment: fights) computed by this call (not resumed from disk)
    throws: Results | None = None  # a fight experiment's throw experiment, when this call ran or reopened it

    @cached_property
    def records(self) -> pd.DataFrame:
        return pd.read_parquet(self.out / "records.parquet")

    @property
    def report(self) -> Path:
        return self.out / "report.md"


def run_experiment(
    path_or_spec: str | Path | ExperimentSpec | FightExperimentSpec | dict,
    out: str | Path | None = None,
    workers: int | None = None,
    executor: str | Executor = "local",
    scheduler: str | None = None,
    force: bool = False,
    quiet: bool = False,
    max_throws: int | None = None,
    figures: bool = True,
    max_fights: int | None = None,
    _chunk_fn=run_chunk,
    _prepare_fn=run_prepare,
) -> Results:
    """Run (or resume) an experiment and return its Results.

    `path_or_spec`: an experiment file, a built-in experiment name, a parsed ExperimentSpec (or
    FightExperimentSpec) or a plain dict of the file's content. `out` defaults to
    results/<experiment name>/. A fight experiment first runs (or resumes) the throw experiment it
    names, into the folder of that name beside `out`, unless that run is already complete;
    `max_throws` caps that experiment, `max_fights` the fights per cell. Bad input raises
    sim.errors.SpecError before anything is written; Ctrl-C raises Interrupted with finished chunks kept.
    """

    t0 = time.perf_counter()
    exp = resolve_any(path_or_spec, max_throws=max_throws, max_fights=max_fights)
    out = Path(out) if out is not None else Path("results") / exp.name
    Store.check(out, exp.hash, force)
    if isinstance(executor, str) and executor not in ("local", "dask"):
        raise SpecError("command line", "--executor", f"unknown executor '{executor}' (local or dask)")
    if workers is not None and workers < 1:
        raise SpecError("command line", "--workers", "must be at least 1")
    throws = None
    if isinstance(exp, FightExperiment):
        if exp.throws_dir is None:
            tdir = throws_folder(exp, out)
            Store.check(tdir, exp.throws_hash, False)
            throws = _throws_results(exp, tdir, workers, executor, scheduler, quiet, figures)
            exp = exp.with_throws_dir(tdir)
        if _chunk_fn is run_chunk:
            _chunk_fn = run_fight_chunk
        _prepare_fn = None
    store = Store.prepare(out, exp, force)
    try:
        res = _run(exp, store, out, workers, executor, scheduler, quiet, figures, _chunk_fn, _prepare_fn, t0)
    finally:
        store.close()
    res.throws = throws
    return res


def _throws_results(exp: FightExperiment, out: Path, workers, executor, scheduler, quiet, figures) -> Results:
    """The throw experiment a fight experiment draws from: reopened when complete, else run or resumed."""
    texp = exp.throws_experiment
    manifest = out / "manifest.json"
    if manifest.is_file():
        try:
            m = json.loads(manifest.read_text())
        except (OSError, ValueError):
            m = {}
        if m.get("experiment_hash") == texp.hash and m.get("state") == "complete" and (out / "summary.json").is_file():
            return Results(out=out, summary=json.loads((out / "summary.json").read_text()), experiment=texp)
    if not quiet:
        print(f"recording the throws first: {texp.name} -> {out}", file=sys.stderr)
    return run_experiment(texp.source, out=out, workers=workers, executor=executor, scheduler=scheduler,
                          quiet=quiet, figures=figures, max_throws=exp.throws_cap)


def _run(exp, store, out, workers, executor, scheduler, quiet, figures, _chunk_fn, _prepare_fn, t0) -> Results:
    fights = isinstance(exp, FightExperiment)
    spec = exp.spec
    if fights:
        first = most = exp.fights
        size, stop_rule = spec.chunk_fights, None
    else:
        first, most, size, stop_rule = spec.throws, exp.max_throws, spec.chunk_throws, spec.stop
    plans = [_CellPlan(chunk_bounds(first, most, size), first) for _ in exp.cells]
    for c, j in sorted(store.done_chunks()):
        if c >= len(plans) or j >= len(plans[c].bounds):
            continue
        n = plans[c].bounds[j][1] - plans[c].bounds[j][0]
        k = int(rate_mask(store.read_chunk(c, j), stop_rule.rate).sum()) if stop_rule else 0
        plans[c].done[j] = (k, n)
    for p in plans:
        p.decide(stop_rule, spec.confidence)

    resumed = sum(p.throws_done for p in plans)
    bar = RunProgress(sum(p.planned_throws for p in plans), resumed, quiet, "fight" if fights else "throw")
    run_throws = 0
    in_flight: set[tuple[int, int]] = set()
    ex: Executor | None = None
    try:
        if not all(p.complete for p in plans):
            ex = executor if isinstance(executor, Executor) else make_executor(executor, workers, scheduler)
            limit = max(2, 2 * ex.workers)
            bar.throwing(ex.name, ex.workers)
            prepared = _prepare(ex, exp, plans, store, bar, _prepare_fn) if _prepare_fn is not None else {}
            while True:
                while len(in_flight) < limit:
                    task = _next_task(exp, plans, in_flight, prepared)
                    if task is None:
                        break
                    ex.submit(task, _chunk_fn)
                    in_flight.add((task.cell, task.chunk))
                if not in_flight:
                    break
                try:
                    task, table = ex.next_result(timeout=0.5)
                except queue.Empty:
                    continue
                in_flight.discard((task.cell, task.chunk))
                if table.num_rows != task.stop - task.start:
                    raise ChunkFailed(f"chunk {task.chunk} of cell {task.cell} returned {table.num_rows} records")
                store.write_chunk(task.cell, task.chunk, table)
                plan = plans[task.cell]
                k = int(rate_mask(table, stop_rule.rate).sum()) if stop_rule else 0
                plan.done[task.chunk] = (k, table.num_rows)
                was = plan.planned_throws
                plan.decide(stop_rule, spec.confidence)
                bar.chunk_done(table.num_rows, counted=task.chunk <= plan.limit)
                if task.chunk <= plan.limit:
                    run_throws += table.num_rows
                if plan.planned_throws != was:
                    bar.set_total(sum(p.planned_throws for p in plans))
    except KeyboardInterrupt:
        if ex is not None and ex is not executor:
            ex.close()
            ex = None
        bar.close()
        store.write_manifest(exp, "interrupted")
        n_chunks = len(store.done_chunks())
        raise Interrupted(out, n_chunks, sum(p.throws_done for p in plans)) from None
    except BaseException:
        store.write_manifest(exp, "failed")
        raise
    finally:
        if ex is not None and ex is not executor:
            ex.close()
        bar.close()

    # speculative chunks past a stopping point are not part of the records
    for c, p in enumerate(plans):
        for j in list(p.done):
            if j > p.limit:
                store.chunk_path(c, j).unlink(missing_ok=True)
    order = [(c, j) for c, p in enumerate(plans) for j in range(p.limit + 1)]
    store.finalize(order)
    if fights:
        return _finish_fights(exp, store, out, figures, run_throws, t0)
    from sim.experiments.figures import draw_figures
    from sim.experiments.report import summarize, write_report

    stopped = {exp.cells[c].name: p.stopped_by for c, p in enumerate(plans)}
    summary = summarize(store, exp, stopped)
    figs = draw_figures(store, exp, summary) if figures else []
    write_report(store, exp, summary, figs)
    # report.html (tables, figures, throws to watch) is presentation: the viewer writes it from the
    # finished folder. The runner's only use of the viewer, one way (the viewer never imports the
    # runner); a failure there is reported and leaves the finished run as it is.
    from sim.viewer.report_html import DEFAULT_SAMPLE, write_report_html

    write_report_html(store.root, DEFAULT_SAMPLE if figures else 0)
    elapsed = time.perf_counter() - t0
    store.write_manifest(
        exp, "complete",
        {"throws": summary["total_throws"], "elapsed_s": round(elapsed, 3),
         "throws_run": run_throws, "throws_per_s": round(run_throws / elapsed, 2) if run_throws else None},
    )
    return Results(out=out, summary=summary, experiment=exp, figures=figs, elapsed_s=elapsed, throws_run=run_throws)


def _finish_fights(exp: FightExperiment, store: Store, out: Path, figures: bool, run_fights: int, t0: float) -> Results:
    from sim.experiments.fight_figures import draw_fight_figures
    from sim.experiments.fight_report import summarize_fights, write_fight_report

    summary = summarize_fights(store, exp)
    figs = draw_fight_figures(store, exp, summary) if figures else []
    write_fight_report(store, exp, summary, figs)
    elapsed = time.perf_counter() - t0
    store.write_manifest(
        exp, "complete",
        {"fights": summary["total_fights"], "elapsed_s": round(elapsed, 3),
         "fights_run": run_fights, "fights_per_s": round(run_fights / elapsed, 2) if run_fights else None},
    )
    return Results(out=out, summary=summary, experiment=exp, figures=figs, elapsed_s=elapsed, throws_run=run_fights)


def _prepare(ex: Executor, exp: Experiment, plans: list[_CellPlan], store: Store, bar, fn) -> dict[str, dict]:
    """Solve the per-scenario values (PrepareTask) once per run, in parallel; kept in prepared.json."""
    path = store.root / "prepared.json"
    known: dict[str, dict] = json.loads(path.read_text()) if path.is_file() else {}
    need: dict[str, int] = {}
    for c, (cell, plan) in enumerate(zip(exp.cells, plans, strict=True)):
        if not plan.complete and cell.key not in known and cell.key not in need:
            need[cell.key] = c
    if not need:
        return known
    bar.describe(f"aiming ({len(need)} scenarios)")
    for key, c in need.items():
        ex.submit(PrepareTask(cell=c, inputs=exp.cells[c].inputs, key=key), fn)
    for _ in range(len(need)):
        while True:
            try:
                task, value = ex.next_result(timeout=0.5)
                break
            except queue.Empty:
                continue
        known[task.key] = value
    write_json(path, known)
    bar.describe("")
    return known


def _next_task(
    exp: Experiment | FightExperiment, plans: list[_CellPlan], in_flight: set[tuple[int, int]],
    prepared: dict[str, dict]
) -> ChunkTask | FightChunkTask | None:
    """The lowest chunk index not yet done or running, across cells (cells advance together)."""
    best: tuple[int, int] | None = None
    for c, p in enumerate(plans):
        for j in range(p.limit + 1):
            if j not in p.done and (c, j) not in in_flight:
                if best is None or j < best[1]:
                    best = (c, j)
                break
    if best is None:
        return None
    c, j = best
    start, stop = plans[c].bounds[j]
    if isinstance(exp, FightExperiment):
        fc = exp.cells[c]
        return FightChunkTask(
            cell=c, chunk=j, start=start, stop=stop, seed=exp.spec.seed, fight=exp.fight_path,
            overrides=fc.overrides, key=fc.key, throws_dir=str(exp.throws_dir), throws_hash=exp.throws_hash,
            columns={"cell": c, "cell_name": fc.name, "variant": fc.variant})
    cell = exp.cells[c]
    return ChunkTask(
        cell=c, chunk=j, start=start, stop=stop, seed=exp.spec.seed, inputs=cell.inputs, key=cell.key,
        prepared=prepared.get(cell.key), record=tuple(exp.spec.record or ()),
        columns={"cell": c, "cell_name": cell.name, "variant": cell.variant,
                 "sweep_value": math.nan if cell.sweep_value is None else float(cell.sweep_value),
                 "scenario_key": cell.key},
    )
