"""The throw loop: step a world from the release to rest, recording contact events and the path.

Adaptive, and deterministic: every choice depends on the releases and the scene only, never on wall
time. While no die can touch anything (sim/world/ballistic.py: its bounding sphere is clear of every
other body's bounding box along its exact parabola) the dice are moved along their closed-form free
flight, one contact step short of the first possible contact; everywhere else the world is stepped at
`step_hz`, the contact step. Path samples of a skipped flight are the exact parabola at the same
1/step_hz times, so path predicates (firewall, fire ring, ...) see what they always saw.

Rest: sim/world/rest.py (the project's one rest detector), fed each die's pose at every window end.
Contacts are read through sim/world/contacts.py; the per-impact step and the divergence test are
sim/world/steprate.py's, shared with the template landing (sim/world/flip.py).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import numpy as np

from sim.specs.physics import GRAVITY, PhysicsSettings
from sim.trace import DieRest, EventTrace, Status
from sim.world.ballistic import contact_windows, position_at, quat_after
from sim.world.contacts import TOUCH_DISTANCE_M, body_name, start_events, touched_ids, touching_normals
from sim.world.physics import Physics
from sim.world.rest import RestDetector, RestTest
from sim.world.steprate import StepRate, fastest_point_speed, inside_world

FREE_STEPS_BEFORE_PLAN = 3  # steps a die must be free before a flight is planned (skips contact flicker)
MIN_JUMP_STEPS = 4  # shorter flights are stepped


@dataclass
class StepStats:
    """Where the steps of one throw went."""

    flight: int = 0  # stepped while no die touched anything
    contact: int = 0  # stepped while some die touched something, before the rest confirmation
    rest: int = 0  # the final quiet windows that confirmed rest
    skipped: int = 0  # replaced by exact free flight
    jumps: int = 0
    coarse: int = 0  # of the stepped ones, at the coarse step
    loop_s: float = 0.0  # wall time of the loop (for the bench only: no choice depends on it)
    loop_cpu_s: float = 0.0  # CPU time of this process in the loop (likewise)
    rest_cpu_s: float = 0.0  # ... of it in the rest detector (sim/world/rest.py)
    loop: str = "python"  # which loop ran: this file's ("python") or sim/world/compiled.py's ("compiled")
    schedule: list = field(
        default_factory=list, repr=False
    )  # ("steps", n) / ("reset", states) / ("dt", s): bare replay

    @property
    def stepped(self) -> int:
        return self.flight + self.contact + self.rest


def _leave_window(p, v, r_max: float, t_max: float) -> list[tuple[float, float]]:
    """The time from which a die in free flight is further than r_max from the z axis."""
    a = v[0] * v[0] + v[1] * v[1]
    if a == 0.0:
        return []
    b = 2.0 * (p[0] * v[0] + p[1] * v[1])
    c = p[0] * p[0] + p[1] * p[1] - r_max * r_max
    disc = b * b - 4 * a * c
    if disc < 0:
        return []
    t_out = (-b + math.sqrt(disc)) / (2 * a)
    return [(max(t_out, 0.0), t_max)] if t_out < t_max else []


def flight_plan(states, radii, boxes, r_max: float, horizon: float, dt: float) -> tuple[int, float | None]:
    """How many steps of free flight the dice (states: position, velocity, orientation, spin) can skip
    from now: none inside a contact window (stepped through), else up to one full step before the first
    possible touch or the world's edge (sim/world/ballistic.py); and when the first window ends (s
    from now; None: no window before `horizon`)."""
    windows = contact_windows([(sd[0], sd[1]) for sd in states], radii, boxes, GRAVITY, horizon)
    for sd in states:
        windows = windows + _leave_window(sd[0], sd[1], r_max, horizon)
    windows.sort()
    if windows and windows[0][0] <= 0.0:
        n_skip = 0  # inside a window: step through it
    else:
        t_first = windows[0][0] if windows else horizon
        n_skip = int(t_first / dt) - 1  # land at least one full step before the first possible touch
    return n_skip, (windows[0][1] if windows else None)


def flight_targets(
    ph: Physics, st: PhysicsSettings, active: list[str], before_step
) -> tuple[bool, list, list[float]]:
    """Whether flights may be skipped (only with dice whose free spin is constant and no prop moving on
    its own), and if so the boxes a die may reach and the dice's bounding radii with the margin."""
    if not (st.flight == "analytic" and before_step is None and all(ph.isotropic(n) for n in active)):
        return False, [], []
    # every body some die can touch (a body no die collides with, e.g. the prism templates rest on,
    # must not change the schedule: a throw that never nears a template is the same throw)
    act = set(active)
    boxes = ph.aabbs([n for n in ph.names() if n not in act and any(ph.collides(d, n) for d in active)])
    return True, boxes, [ph.bounding_radius(n) + st.flight_margin_mm * 1e-3 for n in active]


def final_rests(ph: Physics, active: list[str], status: list[Status]) -> list[DieRest]:
    """The end of a throw: damping off, and each die's rest as the world holds it now."""
    for n in active:
        ph.set_damping(n, 0.0)
    rests = []
    for i, n in enumerate(active):
        p_end, q_end = ph.die_pose(n)
        on = ph.touching(n) if status[i] != "diverged" else frozenset()
        rests.append(
            DieRest(
                n, tuple(float(x) for x in p_end), tuple(float(x) for x in q_end), on, status[i], ph.time_s
            )
        )
    return rests


def fly(
    states, n_skip: int, dt: float, bodies, paths, reset_pose, reset_vel, rec, k: int, active: list[str]
) -> list:
    """Move the dice `n_skip` steps along their exact free flight: the path samples of the skipped steps
    appended, each body reset to the flight's end, the recorder (if any) shown the exact pose at every
    skipped step's time; returns the resets (body, position, orientation, velocity, spin) for the
    schedule."""
    ts = np.arange(1, n_skip + 1) * dt
    tau = float(ts[-1])
    resets = []
    flights = []
    for i, (p, v, q, w) in enumerate(states):
        pts = position_at(p, v, GRAVITY, ts)
        flights.append(pts)
        paths[i].extend(map(tuple, pts.tolist()))
        pos = tuple(pts[-1].tolist())
        vel = (v[0], v[1], v[2] - GRAVITY * tau)
        qn = quat_after(q, w, tau)
        reset_pose(bodies[i], pos, qn)
        reset_vel(bodies[i], vel, w)
        resets.append((bodies[i], pos, qn, vel, w))
    if rec is not None:  # viewer hook: the exact pose at every skipped step's time
        for j in range(n_skip):
            rec.sample(
                (k + j + 1) * dt,
                {
                    active[i]: (tuple(flights[i][j].tolist()), quat_after(sd[2], sd[3], float(ts[j])))
                    for i, sd in enumerate(states)
                },
            )
    return resets


def run(
    ph: Physics, st: PhysicsSettings, props, active: list[str], recorder=None
) -> tuple[list[DieRest], EventTrace, StepStats]:
    """Step the world until every active die rests (or diverges, or the time cap): rests, trace, stats.

    `recorder` (the viewer's trajectory recorder, or None) is a read-only observer: `start(physics,
    dice)` before the first step, `sample(t, poses)` after every step, `finish(t, trace)` after the
    last. It reads poses from the world; through a skipped flight it is called at every skipped step's
    time with the dice's exact poses (`poses`: name -> (position, quaternion)), as the world holds them
    only at the flight's end. It never changes the world, so a recorded throw is the throw not recorded.

    This is the reference implementation: sim/world/compiled.py runs the same loop with its per-step
    work in a PyBullet plugin, checked against this one (sim/world/loop.py picks which runs)."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    fast = ph.fast_calls()
    step, get_pose, get_vel, get_contacts = fast.step, fast.pose, fast.velocity, fast.contacts
    reset_pose, reset_vel = fast.reset_pose, fast.reset_velocity
    ph.reset_clock()
    dt = ph.dt
    trace = EventTrace(paths={n: [] for n in active}, lift_offs={n: [] for n in active})
    lift_offs = [trace.lift_offs[n] for n in active] if trace.lift_offs is not None else []
    nd = len(active)
    bodies = [ph.body(n) for n in active]
    paths = [trace.paths[n] for n in active]
    events = trace.events
    names = ph.names_by_body()
    empty: frozenset[str] = frozenset()
    prev: list[AbstractSet[str]] = [empty] * nd
    empty_ids: frozenset[int] = frozenset()
    prev_ids: list[AbstractSet[int]] = [empty_ids] * nd  # PyBullet ids of the bodies touched at the last step
    # the step budget (sim/specs/physics.py): a throw ends void after max_steps (stepped or skipped), never
    # hangs
    status: list[Status] = [st.out_of_steps] * nd
    max_steps = st.max_steps
    r_max = st.world_radius_m
    r2 = r_max * r_max
    touch = TOUCH_DISTANCE_M
    stats = StepStats()

    # ---- rest test (sim/world/rest.py)
    rest = RestDetector(RestTest.from_settings(st), [ph.collision_points(n) for n in active])
    win = rest.test.window_steps

    damping = [0.0] * nd
    for n in active:
        ph.set_damping(n, 0.0)

    # ---- flight skipping: only with dice whose free spin is constant and no prop moving on its own
    before_step = props.before_step if props.kinematic else None
    skip, boxes, radii = flight_targets(ph, st, active, before_step)
    free_run = 0
    plan_after = 0
    run_steps = 0  # steps since the last schedule entry

    # ---- per-impact step (sim/world/steprate.py): `ratio` contact steps make one coarse step
    rate = StepRate(ph.set_step, dt, st.step_hz, st.coarse_step_hz)
    ratio = rate.ratio
    fine_speed = st.fine_speed_mps
    reach = [ph.bounding_radius(n) for n in active]  # the fastest point of a die: |v| + |w| x reach
    coarse_now = False
    ks: list[int] = []  # the step (in contact steps) of every path sample
    stepped_ks: list[int] = []  # ... of every step taken

    # ---- the throw starts afresh: kinematic props at their t = 0 pose, then no broadphase pair or cached
    # contact of any free body carried over from before the throw (Physics.forget_contacts); nothing may
    # be reset between this and the first step
    if before_step is not None:
        before_step(0.0)
    ph.forget_contacts()
    ks_append, stepped_ks_append = ks.append, stepped_ks.append
    n_flight = n_contact = n_coarse = 0  # StepStats counters, kept in locals in the loop
    cpu_clock, rest_cpu = time.process_time, 0.0
    contact_damping, set_damping = ph.contact_damping, ph.set_damping

    rec = recorder  # viewer hook
    if rec is not None:
        rec.start(ph, active)
    k = 0
    diverged = False
    while k < max_steps:
        if skip and free_run >= FREE_STEPS_BEFORE_PLAN and k >= plan_after:
            states = []
            for b in bodies:
                p, q = get_pose(b)
                v, w = get_vel(b)
                states.append((p, v, q, w))
            n_skip, window_end = flight_plan(states, radii, boxes, r_max, (max_steps - k) * dt, dt)
            if window_end is not None:
                plan_after = k + int(window_end / dt) + 1
            if n_skip >= MIN_JUMP_STEPS:
                resets = fly(states, n_skip, dt, bodies, paths, reset_pose, reset_vel, rec, k, active)
                if run_steps:
                    stats.schedule.append(("steps", run_steps))
                    run_steps = 0
                stats.schedule.append(("reset", resets))
                ks.extend(range(k + 1, k + n_skip + 1))
                k += n_skip
                stats.skipped += n_skip
                stats.jumps += 1
                continue
        if before_step is not None and k:
            before_step(k * dt)
        # per-impact step: the contact step while any die moves fast (an impact, a hard bounce), the
        # coarse one otherwise (rolling out, settling, rest confirmation); a coarse step starts only on
        # the coarse grid, so rest windows still end on their steps
        if ratio > 1:
            coarse = k % ratio == 0 and k + ratio <= max_steps and k % win + ratio <= win
            if coarse:
                for i in range(nd):
                    v, w = get_vel(bodies[i])
                    if fastest_point_speed(v, w, reach[i]) > fine_speed:
                        coarse = False
                        break
            if coarse != coarse_now:
                if run_steps:
                    stats.schedule.append(("steps", run_steps))
                    run_steps = 0
                rate.switch(coarse)
                stats.schedule.append(("dt", rate.dt))
                coarse_now = coarse
        step()
        k += ratio if coarse_now else 1
        n_coarse += coarse_now
        ks_append(k)
        stepped_ks_append(k)
        run_steps += 1
        t = k * dt
        if rec is not None:  # viewer hook
            rec.sample(t)
        check = k % win == 0
        all_still = check
        touching = False
        for i in range(nd):
            b = bodies[i]
            pos, q = get_pose(b)
            paths[i].append(pos)
            if not inside_world(pos, r2):  # also catches NaN
                status[i] = "diverged"
                diverged = True
                continue
            before = prev[i]
            cps = get_contacts(b)
            ids = touched_ids(cps, touch) if cps else empty_ids
            now: AbstractSet[str]
            if ids == prev_ids[i]:
                now = before  # the very bodies of the step before: no event, nothing to update
            elif ids:
                prev_ids[i] = ids
                # the bodies touched now; a body not touched the step before starts a contact event
                # (`start_events`)
                now = {body_name(names, j) for j in ids}
                if not now <= before:
                    v, _w = get_vel(b)
                    start_events(
                        events,
                        t,
                        active[i],
                        cps,
                        touch,
                        names,
                        before,
                        math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
                    )
            else:
                prev_ids[i] = ids
                now = empty
            if ids:
                touching = True
            if now is not before and now != before:
                if not now:
                    lift_offs[i].append(t)  # the die left every surface (a bounce starts here)
                dmp = contact_damping(active[i], now)
                if dmp != damping[i]:
                    set_damping(active[i], dmp)
                    damping[i] = dmp
                prev[i] = now
            if check:
                c_rest = cpu_clock()
                still = rest.window(
                    i,
                    pos,
                    q,
                    bool(now),
                    functools.partial(get_vel, b),
                    functools.partial(touching_normals, cps, touch),
                )
                rest_cpu += cpu_clock() - c_rest
                all_still = all_still and still
        if touching:
            n_contact += 1
            free_run = 0
            plan_after = 0
        else:
            n_flight += 1
            free_run += 1
        if diverged:
            break
        if all_still:
            status = ["rest" for _ in range(nd)]
            since = k - max(rest.quiet_windows) * win
            confirm = min(sum(1 for x in stepped_ks if x > since), n_contact)
            stats.rest, n_contact = confirm, n_contact - confirm
            break
    stats.flight, stats.contact, stats.coarse, stats.rest_cpu_s = n_flight, n_contact, n_coarse, rest_cpu
    if run_steps:
        stats.schedule.append(("steps", run_steps))
    ph.time_s = k * dt
    rate.restore()
    trace.path_t = (np.asarray(ks, dtype=float) * dt).tolist()
    if rec is not None:  # viewer hook
        rec.finish(ph.time_s, trace)
    rests = final_rests(ph, active, status)
    stats.loop_s = time.perf_counter() - wall0
    stats.loop_cpu_s = time.process_time() - cpu0
    return rests, trace, stats


def replay(ph: Physics, stats: StepStats, read: tuple[str, ...] = ()) -> None:
    """Redo a throw's engine work only (same steps, same resets), for timing the Python share; with
    `read`, also read those bodies' pose and contact points after every step, as the loop must (the
    floor of the loop's Python share)."""
    fast = ph.fast_calls()
    step, reset_pose, reset_vel = fast.step, fast.reset_pose, fast.reset_velocity
    pose, contacts = fast.pose, fast.contacts
    bodies = [ph.body(n) for n in read]
    for kind, arg in stats.schedule:
        if kind == "steps":
            if bodies:
                for _ in range(arg):
                    step()
                    for b in bodies:
                        pose(b)
                        contacts(b)
                continue
            for _ in range(arg):
                step()
        elif kind == "dt":
            ph.set_step(arg)
        else:
            for b, pos, q, v, w in arg:
                reset_pose(b, pos, q)
                reset_vel(b, v, w)
    ph.set_step(ph.dt)  # back to the contact step, as the loop ends (the next throw starts there)
