"""Throughput of the engine on the reference scene, measured side by side in one run.

Reference scene: standard shot, magma board, one hero d8, casual skill; one world reused, throws stop
at rest. Three loops on the same releases:
- the engine as configured (default: adaptive flight, contact step `step_hz`, support rest test), in
  the compiled throw loop (sim/world/compiled.py) when it loads, and then again in the Python loop
  (sim/world/stepper.py) chunk by chunk with it: both loops' rates and engine shares side by side;
- uniform stepping at `uniform_step_hz` (default 480 Hz) with the windowed rest test (the loop
  before adaptive stepping), interleaved with the first in chunks so load changes on a shared
  machine hit both alike;
- a naive loop: the world rebuilt for every throw and a fixed 5 s of simulated time.
After each chunk, a bare replay of the engine's exact steps and resets (no reads, no bookkeeping)
gives the share of the loop's CPU time spent in the engine vs in Python, and a replay that also reads
the die's pose and contact points at every step gives the part of the Python share that is those
read-outs alone. Rates are given per wall second and per CPU second of this
process (throws per second per core, which holds on a machine shared with other jobs).
"""

from __future__ import annotations

import contextlib
import os
import platform
import time
from collections.abc import Callable

from sim.engine.worlds import build_thrower, thrower_for
from sim.seeding import Draw
from sim.specs.scenario import Scenario
from sim.world import compiled
from sim.world.physics import Physics
from sim.world.stepper import replay

CHUNK = 25


def _timed_loop(th, releases, acc: dict, loop: str | None = None) -> list:
    """Throw each release (with `loop`: in that throw loop, "compiled" or "python"); add wall time of
    whole throws and of the stepping loop to acc; return stats."""
    stats, hits, loop_s = [], 0, 0.0
    t0, c0 = time.perf_counter(), time.process_time()
    with compiled.using(loop) if loop else contextlib.nullcontext():
        for rel in releases:
            res = th.throw_releases(rel)
            hits += res.outcome.result == "hit"
            stats.append(th.last_stats)
            loop_s += th.last_stats.loop_s
    acc["throw_s"] = acc.get("throw_s", 0.0) + time.perf_counter() - t0
    acc["cpu_s"] = acc.get("cpu_s", 0.0) + time.process_time() - c0
    acc["loop_s"] = acc.get("loop_s", 0.0) + loop_s
    acc["hits"] = acc.get("hits", 0) + hits
    return stats


def _bare_replay(th, releases, stats, read: tuple[str, ...] = ()) -> tuple[float, float]:
    """(wall s, CPU s) of replaying these throws' steps and resets (with `read`: and the read-outs)."""
    ph = th.physics
    t0, c0 = time.perf_counter(), time.process_time()
    for rel, st in zip(releases, stats):
        r = rel[0]
        ph.set_state("die:0", r.position_m, r.orientation_xyzw, r.velocity_mps, r.spin_radps)
        ph.forget_contacts()  # as the throw loop starts (sim/world/stepper.py)
        replay(ph, st, read)
    return time.perf_counter() - t0, time.process_time() - c0


def run_bench(
    throws: int = 300,
    naive_throws: int = 10,
    seed: int = 2024,
    physics: dict | None = None,
    uniform_step_hz: float = 480.0,
    tick: Callable[[int], None] | None = None,
    aim_progress: Callable[[int, int], None] | None = None,
) -> dict:
    """Throws per second of the reference scene, adaptive vs uniform stepping (at `uniform_step_hz`) and vs
    a naive loop, on the same releases in one run; steps per throw by phase and the engine vs Python
    share of the time."""
    sc = Scenario.build(board="magma", dice=["hero-d8"], shots=["standard"], skill="casual", physics=physics)
    t0 = time.perf_counter()
    th = thrower_for(sc)
    th.nominal(progress=aim_progress)
    setup_s = time.perf_counter() - t0
    uni = build_thrower(
        sc.with_physics(
            step_hz=uniform_step_hz, coarse_step_hz=uniform_step_hz, flight="step", rest="windows"
        )
    )
    releases = [th.release_for(Draw.for_throw(seed, k)) for k in range(max(throws, naive_throws))]

    adaptive: dict[str, float] = {}
    uniform: dict[str, float] = {}
    python: dict[str, float] = {}  # the same engine in the Python throw loop (sim/world/stepper.py)
    a_stats, u_stats, p_stats = [], [], []
    both = compiled.active()  # the engine as configured runs the compiled loop: time the Python one too
    bare_s = bare_cpu = reads_cpu = 0.0
    for c in range(0, throws, CHUNK):
        chunk = releases[c : min(throws, c + CHUNK)]
        chunk_stats = _timed_loop(th, chunk, adaptive)
        a_stats += chunk_stats
        if both:
            p_stats += _timed_loop(th, chunk, python, "python")
        u_stats += _timed_loop(uni, chunk, uniform)
        # the engine's share, right after the chunk it replays (so load changes hit both alike): its
        # exact steps and resets bare, then again with the pose and contact read-outs of every step
        wall, cpu = _bare_replay(th, chunk, chunk_stats)
        bare_s, bare_cpu = bare_s + wall, bare_cpu + cpu
        reads_cpu += _bare_replay(th, chunk, chunk_stats, read=("die:0",))[1]
        if tick is not None:  # between chunks: outside every timed stretch
            tick(len(chunk))
    uni.physics.close()

    fixed_steps = int(5.0 * sc.physics.step_hz)
    naive_s = 0.0
    for k in range(naive_throws):
        t0 = time.perf_counter()  # each naive throw timed alone: the progress tick between is not timed
        ph = Physics(sc.physics, sc.materials)
        ph.add_table(sc.board.table_material, board=sc.board)
        ph.add_board(sc.board)
        ph.add_die(sc.dice[0], "die:0")
        ph.finalize_materials()
        r = releases[k][0]
        ph.set_state("die:0", r.position_m, r.orientation_xyzw, r.velocity_mps, r.spin_radps)
        for _ in range(fixed_steps):
            ph.step()
            ph.contacts("die:0")
        ph.close()
        naive_s += time.perf_counter() - t0
        if tick is not None:
            tick(1)

    def per_throw(stats, key):
        return round(sum(getattr(s, key) for s in stats) / len(stats), 1)

    rate = throws / adaptive["throw_s"]
    uni_rate = throws / uniform["throw_s"]
    naive_rate = naive_throws / naive_s
    stepped = sum(s.stepped for s in a_stats)
    loop_cpu = sum(s.loop_cpu_s for s in a_stats)
    ref_stats = p_stats or a_stats  # the Python loop's throws
    ref_loop_cpu = sum(s.loop_cpu_s for s in ref_stats)
    loops = {
        "loop": a_stats[0].loop if a_stats else "python",
        "compiled_loop_unavailable": compiled.unavailable(),
    }
    if both:
        p_loop_cpu = ref_loop_cpu
        loops.update(
            {
                # the Python loop on the same releases, chunk by chunk with the compiled one
                "python_loop_throws_per_cpu_s": round(throws / python["cpu_s"], 2),
                "compiled_loop_throws_per_cpu_s": round(throws / adaptive["cpu_s"], 2),
                "compiled_speedup_cpu": round(python["cpu_s"] / adaptive["cpu_s"], 2),
                "compiled_loop_speedup_cpu": round(p_loop_cpu / loop_cpu, 2),  # the stepping loops alone
                "python_loop_engine_share_of_loop": round(bare_cpu / p_loop_cpu, 3),
                "python_loop_engine_share_of_throw": round(bare_cpu / python["cpu_s"], 3),
                "same_outcomes": [s.schedule for s in p_stats] == [s.schedule for s in a_stats]
                and python["hits"] == adaptive["hits"],
            }
        )
    return loops | {
        "scene": "standard shot, magma board, hero-d8, casual skill",
        "throws": throws,
        "throws_per_s": round(rate, 2),
        "uniform_throws_per_s": round(uni_rate, 2),
        "speedup_vs_uniform": round(rate / uni_rate, 2),
        # per CPU-second of this process: throws per second per core, whatever else the machine runs
        "throws_per_cpu_s": round(throws / adaptive["cpu_s"], 2),
        "uniform_throws_per_cpu_s": round(throws / uniform["cpu_s"], 2),
        "speedup_vs_uniform_cpu": round(uniform["cpu_s"] / adaptive["cpu_s"], 2),
        "uniform_step_hz": uniform_step_hz,
        "hit_rate": round(adaptive["hits"] / throws, 3),
        "uniform_hit_rate": round(uniform["hits"] / throws, 3),
        "steps_per_throw": {
            "flight": per_throw(a_stats, "flight"),
            "contact": per_throw(a_stats, "contact"),
            "rest_confirmation": per_throw(a_stats, "rest"),
            "skipped_flight": per_throw(a_stats, "skipped"),
            "jumps": per_throw(a_stats, "jumps"),
            "coarse_of_stepped": per_throw(a_stats, "coarse"),
        },
        "uniform_steps_per_throw": {
            "flight": per_throw(u_stats, "flight"),
            "contact": per_throw(u_stats, "contact"),
            "rest_confirmation": per_throw(u_stats, "rest"),
        },
        "mean_steps_per_throw": round(stepped / throws, 1),
        "us_per_step_engine": round(bare_s / stepped * 1e6, 2),
        "us_per_step_loop": round(adaptive["loop_s"] / stepped * 1e6, 2),
        # shares of the stepping loop's CPU time (bare replays interleaved with the loop by chunk);
        # "_wall": the older wall-time split, noisier on a shared machine
        "engine_share_of_loop": round(bare_cpu / loop_cpu, 3),
        "python_share_of_loop": round(1 - bare_cpu / loop_cpu, 3),
        "python_share_of_loop_wall": round(1 - bare_s / adaptive["loop_s"], 3),
        # of the Python share: PyBullet's pose and contact-point read-outs alone (a floor while every
        # step is read), and the rest detector (sim/world/rest.py)
        # (of the Python loop's: the compiled loop reads in C and judges most windows there)
        "readout_share_of_loop": round((reads_cpu - bare_cpu) / ref_loop_cpu, 3),
        "rest_detection_share_of_loop": round(sum(s.rest_cpu_s for s in ref_stats) / ref_loop_cpu, 4),
        "rest_confirmation_share_of_steps": round(sum(s.rest for s in a_stats) / stepped, 3),
        "engine_share_of_throw": round(bare_cpu / adaptive["cpu_s"], 3),
        "naive_throws": naive_throws,
        "naive_throws_per_s": round(naive_rate, 3),
        "speedup_vs_naive": round(rate / naive_rate, 2),
        "setup_s": round(setup_s, 3),
        "step_hz": sc.physics.step_hz,
        "coarse_step_hz": sc.physics.coarse_step_hz,
        "fine_speed_mps": sc.physics.fine_speed_mps,
        "flight": sc.physics.flight,
        "rest": sc.physics.rest,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
