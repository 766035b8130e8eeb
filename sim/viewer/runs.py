"""Replaying throws of a finished run, bit for bit, from its output folder.

A run folder keeps everything a throw needs: `experiment.resolved.json` (every cell's Scenario.build
inputs and scenario key), `prepared.json` (the aimed release solved for the run) and, in
`records.parquet`, the exact release of every throw (`rel_*` columns: position in mm on the 1 nm
grid the engine uses, so it converts back to the very same floats) next to its outcome. A replay
rebuilds the cell's scenario and throws the stored release with `Thrower.replay(releases, seed,
index)` - the world in the throw's own per-throw state, as `Thrower.throw` prepares it (props jittered
by the throw's prop stream, templates flipped or laid as in that throw) - with a recorder attached,
and checks that the outcome equals the record in every outcome column; any difference raises
ReplayMismatch (the data files changed since the run, or the engine is not deterministic: both worth
knowing loudly).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from sim.engine.records import OUTCOME_COLUMNS, RELEASE_COLUMNS, release_from_record
from sim.errors import SpecError
from sim.files import results_folder
from sim.provenance import run_reproducibility
from sim.seeding import Draw
from sim.viewer.recorder import DEFAULT_FPS, Trajectory, recording


class ReplayMismatch(RuntimeError):
    """A replayed throw did not end as its record says."""


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        fa, fb = float(a), float(b)
        return fa == fb or (math.isnan(fa) and math.isnan(fb))
    return a == b


def _plain(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else v


def compare_outcome(replayed: dict[str, Any], rec: dict[str, Any]) -> list[str]:
    """Outcome columns that differ, as 'column: recorded X, replayed Y' lines (empty: identical). Besides
    OUTCOME_COLUMNS, every further column of the replayed record (templates' tpl_*, partial_as_*) counts."""
    out = []
    more = sorted(k for k in replayed if k not in OUTCOME_COLUMNS and k not in RELEASE_COLUMNS and k not in ("seed", "index"))
    for c in (*OUTCOME_COLUMNS, *more):
        if c not in rec:
            continue
        a, b = _plain(rec[c]), _plain(replayed.get(c))
        if not _same(a, b):
            out.append(f"{c}: recorded {a!r}, replayed {b!r}")
    return out


def replay_record(thrower, rec: dict[str, Any], fps: float = DEFAULT_FPS, check: bool = True):
    """Replay one record's stored release in `thrower` with a recorder: (ThrowResult, Trajectory).
    Raises ReplayMismatch when `check` and the outcome differs from the record."""
    seed, index = int(rec["seed"]), int(rec["index"])
    releases = [release_from_record(rec)]
    n_dice = int(rec.get("n_dice", 1) or 1)
    if n_dice > 1:
        # only die 0's release is stored; the others follow from the same draw (checked against die 0)
        drawn = thrower.release_for(Draw.for_throw(seed, index))
        if drawn[0] != releases[0]:
            raise ReplayMismatch(f"throw {index}: the draw of seed {seed} no longer gives the stored release of die 0")
        releases = [releases[0], *drawn[1:n_dice]]
    with recording(thrower, fps) as rec_hook:
        res = thrower.replay(releases, seed, index)  # in the throw's own state, as `throw` would
    if check:
        diff = compare_outcome(res.record(), rec)
        if diff:
            raise ReplayMismatch(f"throw {index} (seed {seed}) replayed differently from its record:\n  " + "\n  ".join(diff))
    return res, rec_hook.trajectory


@dataclass
class RunFolder:
    """The output folder of `dfsim run`, opened for replays."""

    root: Path
    resolved: dict[str, Any]
    prepared: dict[str, Any]

    @classmethod
    def open(cls, root: str | Path) -> RunFolder:
        """Open a finished run folder; SpecError if it is not one or its records are not assembled yet."""
        root = results_folder(root)
        try:
            resolved = json.loads((root / "experiment.resolved.json").read_text())
        except FileNotFoundError:
            raise SpecError(root, "", "not a dfsim run folder (experiment.resolved.json missing)") from None
        if not (root / "records.parquet").is_file():
            raise SpecError(root, "", "the run has no records.parquet yet (unfinished run: run it again to finish)")
        p = root / "prepared.json"
        prepared = json.loads(p.read_text()) if p.is_file() else {}
        return cls(root, resolved, prepared)

    def reproducibility(self) -> str:
        """What a replay here can promise of this run's records (made where, with which packages)."""
        try:
            manifest = json.loads((self.root / "manifest.json").read_text())
        except (OSError, ValueError):
            manifest = None
        return run_reproducibility(manifest.get("machines") if isinstance(manifest, dict) else None)

    @property
    def cells(self) -> list[dict[str, Any]]:
        return self.resolved["cells"]

    def cell(self, name: str | int) -> dict[str, Any]:
        """A cell of the run by name or number; SpecError listing the cells if there is none."""
        for c in self.cells:
            if c["name"] == name or str(c["index"]) == str(name):
                return c
        names = ", ".join(c["name"] for c in self.cells)
        raise SpecError(self.root, "--cell", f"no cell '{name}' in this run (cells: {names})")

    def thrower(self, cell: dict[str, Any]):
        """The cell's thrower, rebuilt from its resolved inputs, aimed as in the run."""
        from sim.engine.worlds import thrower_for
        from sim.specs.scenario import Scenario

        sc = Scenario.build(**cell["inputs"], source=str(self.root / "experiment.resolved.json"))
        if sc.key != cell["scenario_key"]:
            raise SpecError(self.root, f"cells.{cell['index']}",
                            f"the data files changed since the run: cell '{cell['name']}' now resolves to scenario "
                            f"{sc.key}, the run threw {cell['scenario_key']}")
        th = thrower_for(sc)
        prep = self.prepared.get(cell["scenario_key"])
        if prep and "nominal" in prep:
            speed, elevation = (float(x) for x in prep["nominal"])
            th.set_nominal((speed, elevation))
        return th

    def record(self, cell: dict[str, Any], index: int) -> dict[str, Any]:
        """The stored record of throw `index` of a cell, as plain values; SpecError if the cell has no such
        throw."""
        table = pq.read_table(self.root / "records.parquet",
                              filters=[("cell", "=", int(cell["index"])), ("index", "=", int(index))])
        if table.num_rows == 0:
            raise SpecError(self.root, "--index", f"cell '{cell['name']}' has no throw {index}")
        return {k: v[0] for k, v in table.to_pydict().items()}

    def replay(self, cell_name: str | int, index: int, fps: float = DEFAULT_FPS, check: bool = True) -> tuple[Any, Any, Trajectory]:
        """(thrower, ThrowResult, Trajectory) of throw `index` of a cell, checked against its record
        (ReplayMismatch) unless `check` is False."""
        cell = self.cell(cell_name)
        rec = self.record(cell, index)
        th = self.thrower(cell)
        res, traj = replay_record(th, rec, fps, check=check)
        return th, res, traj
