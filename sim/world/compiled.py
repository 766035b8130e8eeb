"""The compiled throw loop: the throw loop's per-step work run by a PyBullet plugin, same records.

`sim/world/stepper.py` is the reference loop, in Python. Half of its time was Python: every step it
asked PyBullet for each die's pose, velocity and contact points as Python tuples and judged them in
Python. The plugin (sim/world/native/throwloop.c, built at install by setup.py) does that work in C
against Bullet's own C API: PyBullet's plugin mechanism (`loadPlugin`, `executePluginCommand`) hands
it a client connected to this very world's physics server. It returns here only where the reference
loop's own Python routines are needed, and they are called as the reference calls them:

- a die touching a body it did not touch the step before: `start_events` (sim/world/contacts.py);
- a rest window the plugin cannot judge alone: one whose displacement is within a hair of the
  threshold (the reference measures it with math.dist, which rounds exactly), or a quiet one whose
  support decides how many windows the die needs (`RestDetector.window`, sim/world/rest.py);
- the end of the throw.

Everything else (the exact free flights, their plan included (sim/world/ballistic.py), the
per-impact step, the divergence test, touched bodies and names, lift-offs, contact damping, the quiet
test of a window, the rest confirmation count) the plugin computes with
the reference's own expressions in the same order, compiled without fused multiply-adds, so the two
loops give the same records to the bit on one machine (tests/world/test_compiled.py).

The plugin and this module share one C struct (`dfsim_loop` in the C file; `_Loop` below mirrors it and
its size is checked at load). Which loop runs: `DFSIM_LOOP=python` or `compiled` (the default); when
the compiled loop cannot be loaded, the first throw says so in one line on stderr and the Python loop
runs. A throw with a kinematic prop or a recorder (the viewer) always runs the Python loop: both call
Python at every step. `StepStats.loop` says which loop ran.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.machinery
import math
import os
import sys
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from sim.specs.physics import GRAVITY, PhysicsSettings
from sim.trace import DieRest, EventTrace, Status
from sim.world.contacts import TOUCH_DISTANCE_M, start_events, touching_normals
from sim.world.physics import Physics
from sim.world.rest import RestDetector, RestTest
from sim.world.stepper import (
    FREE_STEPS_BEFORE_PLAN,
    MIN_JUMP_STEPS,
    StepStats,
    final_rests,
    flight_targets,
)
from sim.world.steprate import FLOOR_Z_M, StepRate

MAX_DICE = 8
MAX_NAMES = 64
MAX_POINTS = 256
POSTFIX = "_dfsim_throwloop"  # the plugin's entry points: initPlugin_dfsim_throwloop, ...
EV_END, EV_TOUCH, EV_WINDOW = 0, 2, 3
CMD_PROBE, CMD_BEGIN, CMD_RESUME = 1, 2, 3
SCHED_STEPS, SCHED_DT, SCHED_RESET = 0, 1, 2
STATUS: tuple[str, ...] = ("out_of_steps", "rest", "diverged")
DISP_BAND = 1e-9  # relative: a window displacement this close to the threshold is judged by the reference

_I, _D = ctypes.c_int, ctypes.c_double
_PI, _PD = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double)


class _Loop(ctypes.Structure):
    """Mirror of the C struct `dfsim_loop` (sim/world/native/throwloop.c), field for field."""

    _fields_ = [
        ("n_dice", _I),
        ("body", _I * MAX_DICE),
        ("reach", _D * MAX_DICE),
        ("max_steps", _I),
        ("ratio", _I),
        ("win", _I),
        ("skip", _I),
        ("free_before_plan", _I),
        ("dt", _D),
        ("fine_speed", _D),
        ("radius2", _D),
        ("floor_z", _D),
        ("touch", _D),
        ("max_disp", _D),
        ("max_turn", _D),
        ("spike_v2", _D),
        ("spike_w2", _D),
        ("use_support", _I),
        ("disp_band", _D),
        ("n_ids", _I),
        ("name_of_id", _PI),
        ("n_names", _I),
        ("damping", _PD),
        ("n_boxes", _I),
        ("boxes", _PD),
        ("radius", _D * MAX_DICE),
        ("r_max", _D),
        ("gravity", _D),
        ("min_jump", _I),
        ("resets", _PD),
        ("cap", _I),
        ("paths", _PD),
        ("ks", _PI),
        ("stepped_ks", _PI),
        ("lift_k", _PI),
        ("sched_kind", _PI),
        ("sched_val", _PD),
        ("k", _I),
        ("n_ks", _I),
        ("n_stepped", _I),
        ("n_sched", _I),
        ("n_resets", _I),
        ("n_path", _I * MAX_DICE),
        ("n_lift", _I * MAX_DICE),
        ("free_run", _I),
        ("plan_after", _I),
        ("run_steps", _I),
        ("coarse_now", _I),
        ("n_flight", _I),
        ("n_contact", _I),
        ("n_coarse", _I),
        ("n_rest", _I),
        ("skipped", _I),
        ("jumps", _I),
        ("updates", _I),
        ("status", _I * MAX_DICE),
        ("at", _I),
        ("die", _I),
        ("check", _I),
        ("all_still", _I),
        ("touching", _I),
        ("diverged", _I),
        ("fresh", _I),
        ("pos", (_D * 3) * MAX_DICE),
        ("q", (_D * 4) * MAX_DICE),
        ("v", (_D * 3) * MAX_DICE),
        ("w", (_D * 3) * MAX_DICE),
        ("prev_ids_n", _I * MAX_DICE),
        ("prev_ids", (_I * MAX_NAMES) * MAX_DICE),
        ("prev_n", _I * MAX_DICE),
        ("prev_names", (_I * MAX_NAMES) * MAX_DICE),
        ("damp_now", _D * MAX_DICE),
        ("has_anchor", _I * MAX_DICE),
        ("anchor_p", (_D * 3) * MAX_DICE),
        ("anchor_q", (_D * 4) * MAX_DICE),
        ("quiet_windows", _I * MAX_DICE),
        ("need", _I * MAX_DICE),
        ("ids_n", _I),
        ("now_n", _I),
        ("ids", _I * MAX_NAMES),
        ("now_names", _I * MAX_NAMES),
        ("n_cp", _I),
        ("cp_body", _I * MAX_POINTS),
        ("cp_pos", (_D * 3) * MAX_POINTS),
        ("cp_normal", (_D * 3) * MAX_POINTS),
        ("cp_dist", _D * MAX_POINTS),
        ("jump", _I),
        ("still", _I),
        ("error", _I),
    ]


def library_path() -> Path:
    """Where the install puts the built plugin: beside this module, named as an extension module."""
    here = Path(__file__).resolve().parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        p = here / f"_throwloop{suffix}"
        if p.exists():
            return p
    return here / f"_throwloop{importlib.machinery.EXTENSION_SUFFIXES[0]}"


class _Library:
    """The loaded plugin (shared with every world's plugin manager: one file, one copy in the process)."""

    def __init__(self) -> None:
        self.path = library_path()
        self.error: str | None = None
        self.state: _Loop | None = None
        if not self.path.exists():
            self.error = f"{self.path.name} was not built (reinstall with a C compiler: pip install -e .)"
            return
        try:
            dll = ctypes.CDLL(str(self.path))
            size = dll.dfsim_loop_size()
            dll.dfsim_plate_flight  # noqa: B018 (a build from before the plate flight: reinstall)
        except (OSError, AttributeError) as exc:
            self.error = f"{self.path.name} does not load ({str(exc).splitlines()[0]})"
            return
        if size != ctypes.sizeof(_Loop):
            self.error = (
                f"{self.path.name} is from another version of dfsim (state size {size}, "
                f"expected {ctypes.sizeof(_Loop)}; reinstall)"
            )
            return
        self.dll = dll
        self.state = _Loop.in_dll(dll, "dfsim_loop_state")
        s = self.state
        self.pos = np.ctypeslib.as_array(s.pos)
        self.q = np.ctypeslib.as_array(s.q)
        self.v = np.ctypeslib.as_array(s.v)
        self.w = np.ctypeslib.as_array(s.w)
        self.anchor_p = np.ctypeslib.as_array(s.anchor_p)
        self.anchor_q = np.ctypeslib.as_array(s.anchor_q)
        self.cp_body = np.ctypeslib.as_array(s.cp_body)
        self.cp_pos = np.ctypeslib.as_array(s.cp_pos)
        self.cp_normal = np.ctypeslib.as_array(s.cp_normal)
        self.cp_dist = np.ctypeslib.as_array(s.cp_dist)
        self.prev_names = np.ctypeslib.as_array(s.prev_names)
        self.buffers: tuple = ()
        self.plate_flight: Callable[[Sequence[float], np.ndarray], np.ndarray] | None = None


@functools.lru_cache(maxsize=1)
def _library() -> _Library:
    return _Library()


def unavailable() -> str | None:
    """Why the compiled loop cannot run in this process (None: it can)."""
    return _library().error


_warned = False
_forced: str | None = None


def wanted() -> str:
    """The loop asked for: `using(...)`, else $DFSIM_LOOP ("compiled" or "python"), else "compiled"."""
    return _forced or os.environ.get("DFSIM_LOOP", "compiled").strip().lower() or "compiled"


def active() -> bool:
    """Whether throws run the compiled loop now; when it was asked for but cannot load, says so once."""
    global _warned
    if wanted() == "python":
        return False
    why = unavailable()
    if why is None:
        return True
    if not _warned:
        _warned = True
        print(
            f"dfsim: the compiled throw loop is not available: {why}; running the Python loop",
            file=sys.stderr,
        )
    return False


def plate_flight() -> Callable[[Sequence[float], np.ndarray], np.ndarray] | None:
    """The compiled free flight of a flipped template (sim/world/native/plateflight.c; `fly` in
    sim/world/flight.py is the reference): constants and outline corners in, [x, v, q, t, turned] out.
    None when throws run the Python loop (`active`), so that one switch picks both."""
    if not active():
        return None
    lib = _library()
    run = lib.plate_flight
    if run is None:
        fn = lib.dll.dfsim_plate_flight
        fn.restype = _I
        fn.argtypes = [_PD, _I, _PD, _I, _PD]

        def run(consts: Sequence[float], outline: np.ndarray) -> np.ndarray:
            p = np.array(consts, dtype=float)
            out = np.zeros(12)
            pd, od, xd = (a.ctypes.data_as(_PD) for a in (p, outline, out))
            steps = fn(pd, len(p), od, len(outline), xd)
            if steps < 0:
                raise RuntimeError(f"the compiled plate flight refused its {len(p)} constants")
            return out

        lib.plate_flight = run
    return run


@contextlib.contextmanager
def using(loop: str) -> Iterator[None]:
    """Run throws with this loop ("compiled" or "python") inside the block (the bench times both)."""
    global _forced
    saved, _forced = _forced, loop
    try:
        yield
    finally:
        _forced = saved


class _World:
    """The plugin in one world, and the world's body-name tables as the plugin reads them."""

    def __init__(self, ph: Physics) -> None:
        self.execute = ph.load_plugin(str(_library().path), POSTFIX)
        self.names: dict[int, str] = {}
        self.key: tuple = ()

    def tables(self, ph: Physics, names: dict[int, str], active: list[str]) -> None:
        """Body id -> name index, and each die's contact damping per name, for the plugin (rebuilt when
        the world's bodies, the thrown dice or any contact damping change: a calibration sets the pair
        damping it fits between throws of one world)."""
        key = (tuple(active), ph.damping_revision)
        if names == self.names and key == self.key:
            return
        self.names, self.key = names, key
        order = list(dict.fromkeys(names.values()))
        index = {n: j for j, n in enumerate(order)}
        self.order = order
        ids = np.full(max(names, default=-1) + 1, -1, dtype=np.intc)
        for b, n in names.items():
            if b >= 0:
                ids[b] = index[n]
        self.ids = ids
        self.damping = np.array(
            [[ph.contact_damping(d, (n,)) for n in order] for d in active], dtype=float
        ).reshape(-1)

    def name(self, j: int) -> str:
        """The name of a name index (an unregistered body: 'body:<id>', as the reference names it)."""
        return self.order[j] if j < len(self.order) else f"body:{j - len(self.order)}"


_worlds: weakref.WeakKeyDictionary[Physics, _World] = weakref.WeakKeyDictionary()


def _world(ph: Physics) -> _World:
    w = _worlds.get(ph)
    if w is None:
        w = _worlds[ph] = _World(ph)
    return w


def _buffers(lib: _Library, cap: int) -> tuple:
    """The per-throw arrays the plugin writes (kept between throws; grown when a throw may need more)."""
    if not lib.buffers or lib.buffers[0] < cap:
        paths = np.zeros((MAX_DICE, cap, 3))
        ks = np.zeros(cap, dtype=np.intc)
        stepped = np.zeros(cap, dtype=np.intc)
        lift = np.zeros((MAX_DICE, cap), dtype=np.intc)
        kind = np.zeros(2 * cap + 8, dtype=np.intc)
        val = np.zeros(2 * cap + 8)
        resets = np.zeros((cap // MIN_JUMP_STEPS + 2, MAX_DICE, 13))  # a flight is at least MIN_JUMP_STEPS
        lib.buffers = (cap, paths, ks, stepped, lift, kind, val, resets)
    return lib.buffers


def eligible(before_step, recorder, active: list[str]) -> bool:
    """Whether a throw can run in the compiled loop: no prop moving on its own, no recorder, few dice."""
    return before_step is None and recorder is None and len(active) <= MAX_DICE


def _resets(rows: list[list[float]], bodies: list[int]) -> list[tuple]:
    """A flight's resets as the reference's schedule keeps them: (body, position, orientation, velocity,
    spin)."""
    return [(b, tuple(r[0:3]), tuple(r[3:7]), tuple(r[7:10]), tuple(r[10:13])) for b, r in zip(bodies, rows)]


def _given(
    vw: tuple[Sequence[float], Sequence[float]],
) -> Callable[[], tuple[Sequence[float], Sequence[float]]]:
    """A velocity already read, as the rest detector asks for one."""
    return lambda: vw


def _points(lib: _Library, n: int) -> list[tuple]:
    """The plugin's contact points of the die at hand, as PyBullet's tuples (the fields the loop reads)."""
    bodies = lib.cp_body[:n].tolist()
    pos = lib.cp_pos[:n].tolist()
    normal = lib.cp_normal[:n].tolist()
    dist = lib.cp_dist[:n].tolist()
    return [(0, -1, bodies[c], -1, -1, None, tuple(pos[c]), tuple(normal[c]), dist[c], 0.0) for c in range(n)]


def run(
    ph: Physics, st: PhysicsSettings, props, active: list[str]
) -> tuple[list[DieRest], EventTrace, StepStats]:
    """The throw loop of sim/world/stepper.py (`run`), its per-step work in the plugin: rests, trace,
    stats."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    lib = _library()
    L = lib.state
    world = _world(ph)
    ph.reset_clock()
    dt = ph.dt
    trace = EventTrace(paths={n: [] for n in active}, lift_offs={n: [] for n in active})
    nd = len(active)
    bodies = [ph.body(n) for n in active]
    events = trace.events
    names = ph.names_by_body()
    world.tables(ph, names, active)
    max_steps = st.max_steps
    r_max = st.world_radius_m
    touch = TOUCH_DISTANCE_M
    stats = StepStats(loop="compiled")
    rest = RestDetector(RestTest.from_settings(st), [ph.collision_points(n) for n in active])
    test = rest.test
    for n in active:
        ph.set_damping(n, 0.0)
    skip, boxes, radii = flight_targets(ph, st, active, None)
    rate = StepRate(ph.set_step, dt, st.step_hz, st.coarse_step_hz)
    ph.forget_contacts()  # the throw starts afresh (sim/world/stepper.py); nothing is reset after this

    cap, paths, ks, stepped, lift, kind, val, flights = _buffers(lib, max_steps + 1)
    L.n_dice = nd
    for i, b in enumerate(bodies):
        L.body[i] = b
        L.reach[i] = ph.bounding_radius(active[i])
    L.max_steps, L.ratio, L.win = max_steps, rate.ratio, test.window_steps
    L.skip, L.free_before_plan = int(skip), FREE_STEPS_BEFORE_PLAN
    L.dt, L.fine_speed, L.radius2, L.floor_z, L.touch = dt, st.fine_speed_mps, r_max * r_max, FLOOR_Z_M, touch
    L.max_disp, L.max_turn, L.spike_v2, L.spike_w2 = (
        test.max_disp_m,
        test.max_turn_rad,
        test.spike_v2,
        test.spike_w2,
    )
    L.use_support, L.disp_band = int(test.use_support), DISP_BAND
    L.n_ids, L.name_of_id = len(world.ids), world.ids.ctypes.data_as(_PI)
    L.n_names, L.damping = len(world.order), world.damping.ctypes.data_as(_PD)
    L.cap, L.paths, L.ks, L.stepped_ks = (
        cap,
        paths.ctypes.data_as(_PD),
        ks.ctypes.data_as(_PI),
        stepped.ctypes.data_as(_PI),
    )
    L.lift_k, L.sched_kind, L.sched_val = (
        lift.ctypes.data_as(_PI),
        kind.ctypes.data_as(_PI),
        val.ctypes.data_as(_PD),
    )
    box_array = np.array([[*lo, *hi] for lo, hi in boxes], dtype=float).reshape(-1, 6)
    L.n_boxes, L.boxes, L.resets = len(box_array), box_array.ctypes.data_as(_PD), flights.ctypes.data_as(_PD)
    for i, r in enumerate(radii):
        L.radius[i] = r
    L.r_max, L.gravity, L.min_jump = r_max, GRAVITY, MIN_JUMP_STEPS

    execute = world.execute
    code = execute([CMD_BEGIN])
    while code != EV_END:
        if code == EV_TOUCH:
            i = L.die
            v = lib.v[i].tolist()
            before = {world.name(j) for j in lib.prev_names[i, : L.prev_n[i]].tolist()}
            start_events(
                events,
                L.k * dt,
                active[i],
                _points(lib, L.n_cp),
                touch,
                names,
                before,
                math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
            )
        elif code == EV_WINDOW:
            i = L.die
            rest.anchor[i] = (
                (tuple(lib.anchor_p[i].tolist()), tuple(lib.anchor_q[i].tolist()))
                if L.has_anchor[i]
                else None
            )
            rest.quiet_windows[i], rest.need[i] = L.quiet_windows[i], L.need[i]
            vw = (tuple(lib.v[i].tolist()), tuple(lib.w[i].tolist()))
            cps = _points(lib, L.n_cp)
            L.still = int(
                rest.window(
                    i,
                    tuple(lib.pos[i].tolist()),
                    tuple(lib.q[i].tolist()),
                    L.now_n > 0,
                    _given(vw),
                    functools.partial(touching_normals, cps, touch),
                )
            )
            L.quiet_windows[i], L.need[i] = rest.quiet_windows[i], rest.need[i]
        else:
            raise RuntimeError(f"the compiled throw loop failed at step {L.k} (code {code})")
        code = execute([CMD_RESUME])

    ph.updates += L.updates
    k = L.k
    ph.time_s = k * dt
    if L.coarse_now:  # back to the contact step, as StepRate.restore
        ph.set_step(dt)
    trace.path_t = (ks[: L.n_ks].astype(float) * dt).tolist()
    for i, n in enumerate(active):
        trace.paths[n].extend(map(tuple, paths[i, : L.n_path[i]].tolist()))
        if trace.lift_offs is not None:
            trace.lift_offs[n].extend(t * dt for t in lift[i, : L.n_lift[i]].tolist())
    for kd, value in zip(kind[: L.n_sched].tolist(), val[: L.n_sched].tolist()):
        stats.schedule.append(
            ("steps", int(value))
            if kd == SCHED_STEPS
            else ("dt", value)
            if kd == SCHED_DT
            else ("reset", _resets(flights[int(value), :nd].tolist(), bodies))
        )
    stats.flight, stats.contact, stats.rest, stats.coarse = L.n_flight, L.n_contact, L.n_rest, L.n_coarse
    stats.skipped, stats.jumps = L.skipped, L.jumps
    status: list[Status] = [STATUS[L.status[i]] if L.status[i] else st.out_of_steps for i in range(nd)]  # type: ignore[misc]
    rests = final_rests(ph, active, status)
    stats.loop_s = time.perf_counter() - wall0
    stats.loop_cpu_s = time.process_time() - cpu0
    return rests, trace, stats


def probe(ph: Physics, name: str) -> tuple[tuple[float, ...], tuple[float, ...], int]:
    """One step of the world by the plugin, and what it then read of body `name`: position, velocity,
    number of contact points (the install's check that the plugin drives this very world)."""
    lib = _library()
    if lib.state is None:
        raise RuntimeError(lib.error)
    world = _world(ph)
    lib.state.body[0] = ph.body(name)
    n = world.execute([CMD_PROBE])
    ph.updates += 1
    if n < 0:
        raise RuntimeError(f"the throw loop plugin could not read {name} ({n})")
    return tuple(lib.pos[0].tolist()), tuple(lib.v[0].tolist()), n
