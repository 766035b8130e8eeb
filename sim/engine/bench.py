"""Throughput of the engine: the reference scene against a naive loop, measured in the same run.

Reference scene: standard shot, magma board, one hero d8, casual skill; one world reused, throws stop
at rest. Naive loop: the same throws, but the world is rebuilt for every throw and each throw runs a
fixed 5 s of simulated time (what a first attempt would do).
"""

from __future__ import annotations

import os
import platform
import time

from sim.engine.worlds import thrower_for
from sim.seeding import Draw
from sim.specs.scenario import Scenario
from sim.world.physics import Physics


def run_bench(throws: int = 300, naive_throws: int = 10, seed: int = 2024) -> dict:
    """Throws per second of the reused reference world vs a world rebuilt per throw that steps a fixed 5 s
    (same releases for both); rates, speed-up and setup time (s) as a dict."""
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual")
    t0 = time.perf_counter()
    th = thrower_for(sc)
    th.nominal()
    setup_s = time.perf_counter() - t0
    releases = [th.release_for(Draw.for_throw(seed, k)) for k in range(max(throws, naive_throws))]

    t0 = time.perf_counter()
    steps = 0
    for k in range(throws):
        res = th.throw_releases(releases[k])
        steps += len(res.trace.path_t)
    ref_s = time.perf_counter() - t0

    fixed_steps = int(5.0 * sc.physics.step_hz)
    t0 = time.perf_counter()
    for k in range(naive_throws):
        ph = Physics(sc.physics, sc.materials)
        ph.add_table(sc.board.table_material, cutout=sc.board.surface)
        ph.add_board(sc.board)
        ph.add_die(sc.dice[0], "die:0")
        ph.finalize_materials()
        r = releases[k][0]
        ph.set_state("die:0", r.position_m, r.orientation_xyzw, r.velocity_mps, r.spin_radps)
        for _ in range(fixed_steps):
            ph.step()
            ph.contacts("die:0")
        ph.close()
    naive_s = time.perf_counter() - t0

    ref_rate = throws / ref_s
    naive_rate = naive_throws / naive_s
    return {
        "scene": "standard shot, magma board, hero-d8, casual skill",
        "throws": throws,
        "throws_per_s": round(ref_rate, 2),
        "mean_steps_per_throw": round(steps / throws, 1),
        "steps_per_s": round(steps / ref_s, 1),
        "naive_throws": naive_throws,
        "naive_throws_per_s": round(naive_rate, 3),
        "speedup_vs_naive": round(ref_rate / naive_rate, 2),
        "setup_s": round(setup_s, 3),
        "step_hz": sc.physics.step_hz,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
