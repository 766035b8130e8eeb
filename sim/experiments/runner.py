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
    PrepareTask,
    make_executor,
    run_chunk,
    run_prepare,
)
from sim.experiments.progress import RunProgress
from sim.experiments.spec import Experiment, ExperimentSpec, resolve_experiment
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
    experiment: Experiment
    figures: list[Path] = field(default_factory=list)
    elapsed_s: float = 0.0
    throws_run: int = 0  # throws computed by this call (not resumed from disk)

    @cached_property
    def records(self) -> pd.DataFrame:
        return pd.read_parquet(self.out / "records.parquet")

    @property
    def report(self) -> Path:
        return self.out / "report.md"


def run_experiment(
    path_or_spec: str | Path | ExperimentSpec | dict,
    out: str | Path | None = None,
    workers: int | None = None,
    executor: str | Executor = "local",
    scheduler: str | None = None,
    force: bool = False,
    quiet: bool = False,
    max_throws: int | None = None,
    figures: bool = True,
    _chunk_fn=run_chunk,
    _prepare_fn=run_prepare,
) -> Results:
    """Run (or resume) an experiment and return its Results.

    `path_or_spec`: an experiment file, a built-in experiment name, a parsed ExperimentSpec or a
    plain dict of the file's content. `out` defaults to results/<experiment name>/. Bad input raises
    sim.errors.SpecError before anything is written; Ctrl-C raises Interrupted with finished chunks kept.
    """

    t0 = time.perf_counter()
    exp = resolve_experiment(path_or_spec, max_throws=max_throws)
    out = Path(out) if out is not None else Path("results") / exp.name
    Store.check(out, exp.hash, force)
    if isinstance(executor, str) and executor not in ("local", "dask"):
        raise SpecError("command line", "--executor", f"unknown executor '{executor}' (local or dask)")
    if workers is not None and workers < 1:
        raise SpecError("command line", "--workers", "must be at least 1")
    store = Store.prepare(out, exp, force)
    try:
        return _run(exp, store, out, workers, executor, scheduler, quiet, figures, _chunk_fn, _prepare_fn, t0)
    finally:
        store.close()


def _run(exp, store, out, workers, executor, scheduler, quiet, figures, _chunk_fn, _prepare_fn, t0) -> Results:
    from sim.experiments.figures import draw_figures
    from sim.experiments.report import summarize, write_report

    spec = exp.spec
    plans = [_CellPlan(chunk_bounds(spec.throws, exp.max_throws, spec.chunk_throws), spec.throws) for _ in exp.cells]
    for c, j in sorted(store.done_chunks()):
        if c >= len(plans) or j >= len(plans[c].bounds):
            continue
        n = plans[c].bounds[j][1] - plans[c].bounds[j][0]
        k = int(rate_mask(store.read_chunk(c, j), spec.stop.rate).sum()) if spec.stop else 0
        plans[c].done[j] = (k, n)
    for p in plans:
        p.decide(spec.stop, spec.confidence)

    resumed = sum(p.throws_done for p in plans)
    bar = RunProgress(sum(p.planned_throws for p in plans), resumed, quiet)
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
                k = int(rate_mask(table, spec.stop.rate).sum()) if spec.stop else 0
                plan.done[task.chunk] = (k, table.num_rows)
                was = plan.planned_throws
                plan.decide(spec.stop, spec.confidence)
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
    exp: Experiment, plans: list[_CellPlan], in_flight: set[tuple[int, int]], prepared: dict[str, dict]
) -> ChunkTask | None:
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
    cell = exp.cells[c]
    start, stop = plans[c].bounds[j]
    return ChunkTask(
        cell=c, chunk=j, start=start, stop=stop, seed=exp.spec.seed, inputs=cell.inputs, key=cell.key,
        prepared=prepared.get(cell.key),
        columns={"cell": c, "cell_name": cell.name, "variant": cell.variant,
                 "sweep_value": math.nan if cell.sweep_value is None else float(cell.sweep_value),
                 "scenario_key": cell.key},
    )
