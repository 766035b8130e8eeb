"""The throw experiment as a kind of experiment: its worker task (a chunk of throws of one cell), the
aim solved once per run, and the summary, figures and reports of its records.

Why this shape: each chunk is a pure function of (scenario inputs, root seed, throw indices), so any
worker can run any chunk in any order and the records do not change. Each worker process keeps one
Scenario/Thrower (PyBullet world) per scenario key, built on first use and reused for every later
chunk (one client per worker, never passed between processes). The file format and its validation
are sim.experiments.spec.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from sim.engine.records import throw_row
from sim.engine.run_folder import REPORT_HTML, install_prepared, prepared_aim
from sim.engine.templates import prepared_flip_bank
from sim.engine.worlds import thrower_for
from sim.experiments.integrity import ChunkLayout, Plan
from sim.experiments.kind import Caps, Finished, RunUpstream
from sim.experiments.progress import Steps, WorkBar
from sim.experiments.results import Results
from sim.experiments.spec import Experiment, ExperimentSpec, parse_experiment, resolve_experiment
from sim.experiments.store import Store

# --------------------------------------------------------------------------------------------
# the tasks run in workers


@dataclass(frozen=True)
class ChunkTask:
    """Throws [start, stop) of one cell. Everything a worker needs travels in here (picklable)."""

    cell: int
    chunk: int
    start: int
    stop: int
    seed: int
    inputs: dict[str, Any]  # Scenario.build keyword arguments
    key: str  # expected scenario key: a worker that resolves different data refuses to throw
    columns: dict[str, Any] = field(default_factory=dict)  # constant columns added to every record
    prepared: dict[str, Any] | None = None  # per-scenario values solved once per run (see PrepareTask)
    record: tuple[str, ...] = ()  # opt-in extra record columns (ExperimentSpec.record)


@dataclass(frozen=True)
class PrepareTask:
    """Solve, once per run and scenario, what every worker would otherwise solve for itself.

    Today that is the thrower's aimed (nominal) release, a search over reference throws that costs
    seconds; solving it once and handing the same numbers to every worker saves that cost per worker
    and per cell, and guarantees that every worker (even on another machine) aims identically. A
    scenario flipping templates from a flip bank (sim/engine/flip_bank.py) also ships the bank's
    entries already made on this machine (none on an empty cache: they are made inside the throws).
    """

    cell: int
    inputs: dict[str, Any]
    key: str
    chunk: int = -1


_local = (
    threading.local()
)  # per worker thread: scenario key -> Scenario (its Thrower is cached by the engine)


def task_scenario(task: ChunkTask | PrepareTask):
    """The scenario a task throws in, built once per worker thread (the bank recorder's workers reuse it)."""
    cache = getattr(_local, "scenarios", None)
    if cache is None:
        cache = _local.scenarios = {}
    sc = cache.get(task.key)
    if sc is None:
        from sim.specs.scenario import Scenario

        sc = Scenario.build(**task.inputs)
        if sc.key != task.key:
            raise RuntimeError(
                f"worker resolved scenario {sc.key}, expected {task.key}: its data files differ from the "
                "submitting machine's (install the same dfsim version and data on every worker)"
            )
        cache[task.key] = sc
    return sc


def run_prepare(task: PrepareTask) -> dict[str, Any]:
    """The per-scenario values for PrepareTask (JSON-able, so the run folder can keep them)."""
    thrower = thrower_for(task_scenario(task))
    # a scenario whose templates are flipped from a bank: the entries this machine already holds
    return {**prepared_aim(thrower), **prepared_flip_bank(thrower)}


def run_chunk(task: ChunkTask) -> pa.Table:
    """Throw throws start..stop-1 of one cell and return their records as an Arrow table."""
    thrower = thrower_for(task_scenario(task))
    install_prepared(thrower, task.prepared)
    rows = [
        throw_row(thrower.throw(task.seed, k), task.columns, task.record)
        for k in range(task.start, task.stop)
    ]
    return pa.Table.from_pylist(rows)


# --------------------------------------------------------------------------------------------
# the kind


class AimPreparation:
    """The aimed release of every scenario (and the flip bank entries already made), solved once per
    run (PrepareTask) for all workers."""

    work = staticmethod(run_prepare)

    def task(self, experiment: Experiment, cell: int, key: str) -> PrepareTask:
        """The task solving scenario `key`'s aim from the inputs of `cell`, its first cell."""
        return PrepareTask(cell=cell, inputs=experiment.cells[cell].inputs, key=key)


class ThrowExperiments:
    """Throw experiments: cells of scenarios (variant x sweep value), each thrown `throws` times."""

    name = "throws"
    spec_type = ExperimentSpec
    unit = "throw"
    work = staticmethod(run_chunk)
    # import the engine (PyBullet, numpy, shapely: ~1.5 s) when a worker starts, in every worker at
    # once, rather than when each gets its first chunk (which, for all but one, waits for the aim)
    warm = ("sim.engine.thrower",)
    preparation = AimPreparation()

    def parse(self, data: Mapping[str, Any], source: str) -> ExperimentSpec:
        """The file validated (sim.experiments.spec)."""
        return parse_experiment(data, source)

    def resolve(self, spec: ExperimentSpec, source: str | None, caps: Caps) -> Experiment:
        """Every cell's scenario built; --max-throws caps the throws per cell."""
        return resolve_experiment(spec, source, max_throws=caps.max_throws)

    def checked(self, experiment: Experiment) -> str:
        """`dfsim check`'s words."""
        return f"experiment ({len(experiment.cells)} cells, every scenario built)"

    def plan(self, experiment: Experiment) -> Plan:
        """Chunks of `chunk_throws` up to `throws` (or the stopping rule's maximum) per cell."""
        spec = experiment.spec
        keys = tuple(c.key for c in experiment.cells)
        return Plan(spec.seed, ChunkLayout(spec.throws, experiment.max_throws, spec.chunk_throws), keys)

    def stop_rule(self, experiment: Experiment):
        """The file's [stop] rule, if any."""
        return experiment.spec.stop

    def task(
        self,
        experiment: Experiment,
        cell: int,
        chunk: int,
        start: int,
        stop: int,
        prepared: dict[str, Any] | None,
    ) -> ChunkTask:
        """A ChunkTask with the cell's constant record columns."""
        c = experiment.cells[cell]
        return ChunkTask(
            cell=cell,
            chunk=chunk,
            start=start,
            stop=stop,
            seed=experiment.spec.seed,
            inputs=c.inputs,
            key=c.key,
            prepared=prepared,
            record=tuple(experiment.spec.record or ()),
            columns={
                "cell": cell,
                "cell_name": c.name,
                "variant": c.variant,
                "sweep_value": math.nan if c.sweep_value is None else float(c.sweep_value),
                "scenario_key": c.key,
            },
        )

    def before(
        self, experiment: Experiment, out: Path, run: RunUpstream, quiet: bool
    ) -> tuple[Experiment, None]:
        """Nothing comes first."""
        return experiment, None

    def finishing_steps(self, figures: bool) -> int:
        """Summary and report, figures, report.html."""
        return 2 + int(figures)

    def finish(
        self,
        store: Store,
        experiment: Experiment,
        stopped: dict[str, str],
        figures: bool,
        steps: Steps,
        quiet: bool,
    ) -> Finished:
        """summary.json, report.md, the figures and report.html (with throws to watch)."""
        from sim.experiments.figures import draw_figures
        from sim.experiments.report import summarize, write_report

        steps.start("summary.json and report.md")
        summary = summarize(store, experiment, stopped)
        if figures:
            steps.start("figures/")
        figs = draw_figures(store, experiment, summary, steps.part) if figures else []
        write_report(store, experiment, summary, figs)
        # report.html (tables, figures, throws to watch) is presentation: the viewer writes it from the
        # finished folder. The experiments' only use of the viewer, one way (the viewer never imports
        # them); a failure there is reported and leaves the finished run as it is.
        from sim.viewer.report_html import DEFAULT_SAMPLE, write_report_html

        sample = DEFAULT_SAMPLE if figures else 0
        steps.start(
            f"{REPORT_HTML} (replaying up to {sample} throws per cell to watch)" if sample else REPORT_HTML
        )
        bar = WorkBar(0, "throw", "replaying throws for report.html", enabled=not quiet and sample > 0)
        try:
            write_report_html(store.root, sample, bar)
        finally:
            bar.close()
        return Finished(summary, figs, summary["total_throws"])

    def shown(self, results: Results) -> str:
        """One line per cell: hit rate and mean damage with their intervals; then where to look."""
        return f"{format_table(results.summary)}\n{results.where_to_look()}\n"


THROWS = ThrowExperiments()


def format_table(summary: dict) -> str:
    """A short plain-text table of the summary, one line per cell."""
    lines = [f"{'cell':<28} {'n':>7}  {'hit rate (95% CI)':<24} {'mean damage (95% CI)':<24}"]
    for v in summary["variants"]:
        h, d = v["hit_rate"], v["damage"]
        hr = f"{100 * h['rate']:.1f}% [{100 * h['lo']:.1f}, {100 * h['hi']:.1f}]" if h["n"] else "-"
        dm = f"{d['value']:.2f} [{_f(d['lo'])}, {_f(d['hi'])}]" if d["n"] else "-"
        lines.append(f"{v['name']:<28} {v['n']:>7}  {hr:<24} {dm:<24}")
    return "\n".join(lines)


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"
