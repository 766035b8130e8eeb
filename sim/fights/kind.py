"""The fight experiment as a kind of experiment: its worker task (a chunk of fights of one variant),
the throw experiment run before it, and the summary, figures and report of its records.

Why this shape: the fight engine is pure and the resampling source draws throw k of fight f from
(seed, f, k) alone, so a chunk of fights is a pure function of (cell, fight range) like a chunk of
throws, and the runner, executors and store carry it unchanged. The file format, its validation
and the coverage check are sim.fights.experiment.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from sim.engine.run_folder import MANIFEST, SUMMARY
from sim.experiments.integrity import ChunkLayout, Plan, read_json_object
from sim.experiments.kind import Caps, Finished, RunUpstream
from sim.experiments.progress import Steps
from sim.experiments.results import Results
from sim.experiments.store import Store
from sim.fights.experiment import (
    FightExperiment,
    FightExperimentSpec,
    fight_key,
    parse_fight_experiment,
    resolve_fight_experiment,
    throws_folder,
)
from sim.fights.records import fight_row

# --------------------------------------------------------------------------------------------
# the task run in workers


@dataclass(frozen=True)
class FightChunkTask:
    """Fights [start, stop) of one cell of a fight experiment (picklable, like a chunk of throws).

    The worker rebuilds the fight from its file and overrides and loads the throw records from
    `throws_dir` (a Dask worker needs that folder at the same path), both cached per worker."""

    cell: int
    chunk: int
    start: int
    stop: int
    seed: int
    fight: str  # the fight file
    overrides: dict[str, Any]
    key: str  # expected hash of the resolved fight
    throws_dir: str
    throws_hash: str
    columns: dict[str, Any] = field(default_factory=dict)


_local = threading.local()  # per worker thread: (fight, throws, seed) -> (fight spec, throw source)


def _fight_setup(task: FightChunkTask):
    cache = getattr(_local, "fights", None)
    if cache is None:
        cache = _local.fights = {}
    key = (task.key, task.throws_dir, task.throws_hash, task.seed)
    hit = cache.get(key)
    if hit is None:
        from sim.fights.resample import ResampleSource, tables_from_results
        from sim.fights.spec import load_fight

        spec = load_fight(task.fight, task.overrides)
        if fight_key(spec) != task.key:
            raise RuntimeError(
                f"worker resolved fight {task.fight} differently from the submitting machine "
                "(install the same dfsim version and data on every worker)"
            )
        manifest = json.loads((Path(task.throws_dir) / MANIFEST).read_text())
        if manifest.get("experiment_hash") != task.throws_hash:
            raise RuntimeError(
                f"the throw records in {task.throws_dir} are not the ones the run was planned with"
            )
        tables, _ = tables_from_results(task.throws_dir, None, spec.throws.white_die, spec.throws.colored_die)
        if len(cache) > 16:
            cache.clear()
        hit = cache[key] = (spec, ResampleSource(tables, seed=task.seed))
    return hit


def run_fight_chunk(task: FightChunkTask) -> pa.Table:
    """Play fights start..stop-1 of one cell; one record per fight (fight i uses streams (seed, i))."""
    from sim.fights.engine import run_fight

    spec, source = _fight_setup(task)
    rows = [
        fight_row(run_fight(spec, source, fight=i, log=False), task.columns, task.seed, i)
        for i in range(task.start, task.stop)
    ]
    return pa.Table.from_pylist(rows)


# --------------------------------------------------------------------------------------------
# the kind


class FightExperiments:
    """Fight experiments: one fight file per variant, played `fights` times on resampled throws."""

    name = "fights"
    spec_type = FightExperimentSpec
    unit = "fight"
    work = staticmethod(run_fight_chunk)
    warm = ("sim.fights.engine", "sim.fights.resample")
    preparation = None

    def parse(self, data: Mapping[str, Any], source: str) -> FightExperimentSpec:
        """The file validated (sim.fights.experiment)."""
        return parse_fight_experiment(data, source)

    def resolve(self, spec: FightExperimentSpec, source: str | None, caps: Caps) -> FightExperiment:
        """Every variant's fight built and covered by the throws; --max-throws caps the throw experiment,
        --max-fights the fights per variant."""
        return resolve_fight_experiment(spec, source, caps.max_throws, caps.get("max_fights"))

    def checked(self, experiment: FightExperiment) -> str:
        """`dfsim check`'s words."""
        return (
            f"fight experiment ({len(experiment.cells)} variants, every fight built, covered by the "
            f"throws of '{experiment.throws_name}')"
        )

    def plan(self, experiment: FightExperiment) -> Plan:
        """Chunks of `chunk_fights` up to `fights` per variant (no stopping rule)."""
        keys = tuple(c.key for c in experiment.cells)
        layout = ChunkLayout(experiment.fights, experiment.fights, experiment.spec.chunk_fights)
        return Plan(experiment.spec.seed, layout, keys)

    def stop_rule(self, experiment: FightExperiment) -> None:
        """Fights run to their count."""
        return None

    def task(
        self,
        experiment: FightExperiment,
        cell: int,
        chunk: int,
        start: int,
        stop: int,
        prepared: dict[str, Any] | None,
    ) -> FightChunkTask:
        """A FightChunkTask naming the fight file, the variant's overrides and the throw records."""
        fc = experiment.cells[cell]
        return FightChunkTask(
            cell=cell,
            chunk=chunk,
            start=start,
            stop=stop,
            seed=experiment.spec.seed,
            fight=experiment.fight_path,
            overrides=fc.overrides,
            key=fc.key,
            throws_dir=str(experiment.throws_dir),
            throws_hash=experiment.throws_hash,
            columns={"cell": cell, "cell_name": fc.name, "variant": fc.variant},
        )

    def before(
        self, experiment: FightExperiment, out: Path, run: RunUpstream, quiet: bool
    ) -> tuple[FightExperiment, Results | None]:
        """The throw experiment the fights draw from, when `throws_from` names one: reopened when its
        run beside `out` is complete and verifies, else run (or resumed, repairing what does not verify)."""
        if experiment.throws_dir is not None:
            return experiment, None
        tdir = throws_folder(experiment, out)
        Store.check(tdir, experiment.throws_hash, False)
        return experiment.with_throws_dir(tdir), _throws_results(experiment, tdir, run, quiet)

    def finishing_steps(self, figures: bool) -> int:
        """Summary and report, figures."""
        return 1 + int(figures)

    def finish(
        self,
        store: Store,
        experiment: FightExperiment,
        stopped: dict[str, str],
        figures: bool,
        steps: Steps,
        quiet: bool,
    ) -> Finished:
        """summary.json, report.md and the figures."""
        from sim.fights.figures import draw_fight_figures
        from sim.fights.report import summarize_fights, write_fight_report

        steps.start("summary.json and report.md")
        summary = summarize_fights(store, experiment)
        if figures:
            steps.start("figures/")
        figs = draw_fight_figures(store, experiment, summary, steps.part) if figures else []
        write_fight_report(store, experiment, summary, figs)
        return Finished(summary, figs, summary["total_fights"])

    def shown(self, results: Results) -> str:
        """One line per variant: win rate and the paired effect; then where to look."""
        return f"{format_fight_table(results.summary)}\n{results.where_to_look()}\n"


FIGHTS = FightExperiments()


def _throws_results(exp: FightExperiment, out: Path, run: RunUpstream, quiet: bool) -> Results:
    from sim.experiments.checkup import examine

    texp = exp.throws_experiment
    manifest, _ = read_json_object(out / MANIFEST)
    if (
        manifest
        and manifest.get("experiment_hash") == texp.hash
        and manifest.get("state") == "complete"
        and examine(out).healthy
    ):
        summary, _ = read_json_object(out / SUMMARY)
        return Results(out=out, summary=summary or {}, experiment=texp)
    if not quiet:
        print(f"recording the throws first: {texp.name} -> {out}", file=sys.stderr)
    return run(texp.source, out, exp.throws_cap)


def format_fight_table(summary: dict) -> str:
    """A fight experiment's summary, one line per variant: win rate and the paired effect."""
    diffs = {d["name"]: d for d in summary["differences"]}
    base = summary["experiment"]["baseline"]
    lines = [
        f"{'variant':<26} {'life':>4} {'n':>6}  {'won (95% CI)':<22} {'vs ' + base + ' (points)':<26} "
        f"{'throws':>6} {'damage':>6}"
    ]
    for v in summary["variants"]:
        w = v["won"]
        won = f"{100 * w['rate']:.1f}% [{100 * w['lo']:.1f}, {100 * w['hi']:.1f}]" if v["n"] else "-"
        d = diffs.get(v["name"])
        eff = (
            f"{100 * d['won']['value']:+.1f} [{100 * d['won']['lo']:+.1f}, {100 * d['won']['hi']:+.1f}]"
            if d and d["won"]["value"] is not None
            else ""
        )
        lines.append(
            f"{v['name']:<26} {v['monster_life']!s:>4} {v['n']:>6}  {won:<22} {eff:<26} "
            f"{v['throws']['value']:>6.1f} {v['hero_damage']['value']:>6.1f}"
        )
    return "\n".join(lines)
