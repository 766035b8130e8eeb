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

import math
from typing import Any

from sim.engine.records import OUTCOME_COLUMNS, RELEASE_COLUMNS, release_from_record
from sim.engine.run_folder import RunFolder
from sim.errors import ReplayMismatch
from sim.seeding import Draw
from sim.viewer.recorder import DEFAULT_FPS, Trajectory, recording


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
    more = sorted(
        k
        for k in replayed
        if k not in OUTCOME_COLUMNS and k not in RELEASE_COLUMNS and k not in ("seed", "index")
    )
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
            raise ReplayMismatch(
                f"throw {index}: the draw of seed {seed} no longer gives the stored release of die 0"
            )
        releases = [releases[0], *drawn[1:n_dice]]
    with recording(thrower, fps) as rec_hook:
        res = thrower.replay(releases, seed, index)  # in the throw's own state, as `throw` would
    if check:
        diff = compare_outcome(res.record(), rec)
        if diff:
            raise ReplayMismatch(
                f"throw {index} (seed {seed}) replayed differently from its record:\n  " + "\n  ".join(diff)
            )
    return res, rec_hook.trajectory


def replay_throw(
    run: RunFolder, cell_name: str | int, index: int, fps: float = DEFAULT_FPS, check: bool = True
) -> tuple[Any, Any, Trajectory]:
    """(thrower, ThrowResult, Trajectory) of throw `index` of a cell of a run folder, checked against its
    record (ReplayMismatch) unless `check` is False."""
    cell = run.cell(cell_name)
    rec = run.record(cell, index)
    th = run.thrower(cell)
    res, traj = replay_record(th, rec, fps, check=check)
    return th, res, traj
