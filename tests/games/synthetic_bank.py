"""A throw bank whose workers make synthetic throws for each scenario (shaped like a casual standard
shot, fewer hits per extra specific throw; throw k drawn from (seed, k) alone, as the physics does), so
that tests of the bank, its recorder, the game experiments and the game notebook run in seconds:
what they test is the bank and the layers on it, not the physics (recording real throws takes about
half a minute per scenario). Everything else (the parallel job, the parts, the locks, the sizes, the
entries) is the real recorder's."""

from __future__ import annotations

import os
import queue
import time

import numpy as np
import pandas as pd
import pyarrow as pa

from sim.experiments.executor import Executor
from sim.games.throw_bank import ThrowBank

VALUES = np.array([1, 2, 3, 4, 5, 6, 10])


def hit_chance(shots) -> float:
    return 0.55 * 0.7 ** len([x for x in shots if x != "standard"])


def synthetic_rows(shots, water: bool, seed: int, start: int, stop: int) -> pd.DataFrame:
    """Throws start..stop-1 (each from (seed, k) alone)."""
    p = hit_chance(shots)
    rows = []
    for k in range(start, stop):
        u = np.random.default_rng([seed, k]).random(6)
        hit = bool(u[0] < p)
        val = int(VALUES[int(u[1] * len(VALUES))])
        face = "icon" if u[2] < 0.125 else "blank"
        row = {"index": k, "cell": 0, "result": "hit" if hit else "miss", "reason": "hit" if hit else "off-board",
               "section": f"s{val}" if hit else "", "value": val if hit else -1, "face": face,
               "icon": face == "icon", "damage": float(val) if hit else 0.0}
        if water:
            for d in (1, 2):
                h = bool(u[2 + d] < p)
                row |= {f"die{d}_result": "hit" if h else "miss", f"die{d}_value": 2 if h else -1,
                        f"die{d}_damage": 2.0 if h else 0.0}
        rows.append(row)
    return pd.DataFrame(rows)


def synthetic_chunk(task) -> pa.Table:
    """The synthetic stand-in of the throw experiment's chunk (a ChunkTask's throws)."""
    delay = float(os.environ.get("DFSIM_TEST_CHUNK_DELAY_S", "0") or 0)
    if delay:
        time.sleep(delay)
    water = len(task.inputs["dice"]) == 3
    return pa.Table.from_pandas(synthetic_rows(task.inputs["shots"], water, task.seed, task.start, task.stop),
                                preserve_index=False)


def synthetic_prepare(task) -> dict:
    """No aim to solve: a fixed release."""
    return {"prepared": {"nominal": [1.0, 30.0]}, "reference_throws": 0, "seconds": 0.0}


def synthetic(s: dict, n: int, salt: int = 0) -> pd.DataFrame:
    """An entry's first n synthetic throws (as SyntheticBank's workers make them)."""
    from sim.games.throw_bank import scenario_seed

    return synthetic_rows(s["shots"], s["die"] == "water", (scenario_seed(s) + 7919 * salt) % 2**62, 0, n)


class InlineExecutor(Executor):
    """Runs each task when submitted, in this process (the recorder's logic without worker processes)."""

    name = "inline"

    def submit(self, task, fn) -> None:
        self._results.put((task, True, fn(task)))

    def next_result(self, timeout=None):
        try:
            return super().next_result(timeout=0)
        except queue.Empty:
            raise


class SyntheticBank(ThrowBank):
    chunk_fn = staticmethod(synthetic_chunk)
    prepare_fn = staticmethod(synthetic_prepare)

    def __init__(self, folder, throws=200, salt: int = 0, executor=None, **kw):
        super().__init__(folder, throws, quiet=kw.pop("quiet", True), executor=executor or InlineExecutor(), **kw)
        self.salt = salt
        self.recorded: list[dict] = []

    def experiment(self, s):
        exp = super().experiment(s)
        exp["seed"] = (exp["seed"] + 7919 * self.salt) % 2**62  # another bank of the same scenarios
        return exp

    def record(self, scenarios, stop=None, watch=None):
        todo = [s for s in scenarios if not self.has(s)]
        self.recorded += todo
        return super().record(todo, stop, watch)


def use_synthetic_workers(monkeypatch) -> None:
    """Every ThrowBank the code under test makes records synthetic throws, in this process."""
    from sim.games.bank_recorder import BankRecorder

    monkeypatch.setattr(ThrowBank, "chunk_fn", staticmethod(synthetic_chunk))
    monkeypatch.setattr(ThrowBank, "prepare_fn", staticmethod(synthetic_prepare))
    monkeypatch.setattr(BankRecorder, "_executor", lambda self: (InlineExecutor(), []))
