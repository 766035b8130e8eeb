"""A stand-in engine for the integrity tests: fast, deterministic, and sensitive to the prepared aim.

Run as `python -c "import integrity_engine; integrity_engine.main(argv)"` (with this folder on
PYTHONPATH) it is the `dfsim` command line with the runner's engine replaced by this one, so the
tests can drive the real CLI, worker processes and Dask without PyBullet physics.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time

import pyarrow as pa

from sim.experiments.executor import Executor


def fake_prepare(task) -> dict:
    """The 'aimed release' of a scenario: a number that depends only on its key."""
    h = int(hashlib.sha256(task.key.encode()).hexdigest()[:8], 16)
    return {"nominal": [1.5 + h / 2**32, 25.0]}


def fake_chunk(task) -> pa.Table:
    """Throw k hits when (7k + cell) % 10 < 3; x_mm carries the aim, so a wrong aim shows in the records."""
    delay = float(os.environ.get("DFSIM_FAKE_DELAY_S", "0"))
    aim = task.prepared["nominal"][0] if task.prepared else 0.0
    rows = []
    for k in range(task.start, task.stop):
        if delay:
            time.sleep(delay)
        hit = (k * 7 + task.cell) % 10 < 3
        rows.append({**task.columns, "seed": task.seed, "index": k, "result": "hit" if hit else "miss",
                     "reason": "hit" if hit else "off-board", "section": "bullseye" if hit else None,
                     "value": 10 if hit else -1, "face": "icon", "icon": True, "cocked": False,
                     "damage": 10.0 if hit else 0.0, "insta_kill": False, "x_mm": float(k) * aim, "y_mm": 0.0})
    return pa.Table.from_pylist(rows)


class InlineExecutor(Executor):
    """Runs each task at once in this process: the runner's logic without worker start-up costs."""

    name = "inline"
    workers = 1

    def submit(self, task, fn=fake_chunk) -> None:
        try:
            self._results.put((task, True, fn(task)))
        except Exception as exc:
            self._results.put((task, False, f"{type(exc).__name__}: {exc}"))


def patch_runner(setattr_fn=setattr) -> None:
    """Make sim.experiments.runner.run_experiment use this engine (and, for 'local', run inline if asked)."""
    import sim.experiments.runner as runner

    orig = runner.run_experiment
    inline = os.environ.get("DFSIM_FAKE_INLINE") == "1"

    def run_experiment(*args, **kw):
        kw.setdefault("_chunk_fn", fake_chunk)
        kw.setdefault("_prepare_fn", fake_prepare)
        if inline and kw.get("executor", "local") == "local":
            kw["executor"] = InlineExecutor()
        # report.html's replays aim each cell's thrower with this engine's made-up prepared aim: that
        # thrower's only, forgotten when its world is handed out again (sim/engine/worlds.py)
        return orig(*args, **kw)

    setattr_fn(runner, "run_experiment", run_experiment)


def main(argv: list[str]) -> None:
    from sim.cli.main import main as cli_main

    patch_runner()
    sys.exit(cli_main(argv))
