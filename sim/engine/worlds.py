"""Which world a scenario throws in: one Thrower (one PyBullet world) per scenario per thread.

A scenario is specs plus a key and builds nothing; the engine gives it a world here. Worlds are cached
per thread, not per process: a Dask worker runs tasks on several threads, and a PyBullet world must
never be stepped from two threads at once.

The cache keeps the MAX_WORLDS_PER_THREAD most recently used worlds and closes the others: a world
holds ~30 MB, and a run of many scenarios (a sensitivity analysis has a hundred, each its own
world) would otherwise keep every one of them in every worker.

A world handed out again forgets any aimed release an earlier caller gave it (`Thrower.set_nominal`: a
run's prepared aim, a replay's, a test's made-up one): each caller aims it afresh, and what one call
gave cannot be thrown by a later one. What it solved or read from disk it keeps (the solve's answer).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from sim.engine.templates import attach_templates
from sim.engine.thrower import Thrower
from sim.specs.scenario import Scenario

_LOCAL = threading.local()
MAX_WORLDS_PER_THREAD = 16


def thrower_for(scenario: Scenario) -> Thrower:
    """The calling thread's Thrower for this scenario (built once per thread, then reused), aimed by its
    own solve: an aimed release an earlier caller gave it is forgotten."""
    cache: OrderedDict[str, Thrower] | None = getattr(_LOCAL, "throwers", None)
    if cache is None:
        cache = _LOCAL.throwers = OrderedDict()
    th = cache.get(scenario.key)
    if th is None:
        th = build_thrower(scenario)
        cache[scenario.key] = th
        while len(cache) > MAX_WORLDS_PER_THREAD:
            _, old = cache.popitem(last=False)
            old.physics.close()
    else:
        cache.move_to_end(scenario.key)
        th.aim.forget_given()
    return th


def build_thrower(scenario: Scenario) -> Thrower:
    """A fresh Thrower (its own world) for a scenario, with its templates attached if it has any."""
    th = Thrower(scenario)
    if scenario.templates:
        attach_templates(th)
    return th


def clear_worlds() -> None:
    """Drop this thread's worlds (tests; long-lived processes that change scenarios often)."""
    _LOCAL.throwers = OrderedDict()
