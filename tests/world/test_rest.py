"""The one rest detector (sim/world/rest.py): support classes, quiet windows, and settle built on it."""

import math

from sim.specs.scenario import Scenario
from sim.world.rest import FLAT_STABLE, FLAT_UNSTABLE, OTHER, RestDetector, RestTest, support


def test_support_classes():
    pts = Scenario.build(dice=["d6"], shots=["roll"]).dice[0].collision_points_m
    up = (0.0, 0.0, 1.0)
    flat = (0.0, 0.0, 0.0, 1.0)  # a face down
    a = math.radians(45.0) / 2
    edge = (math.sin(a), 0.0, 0.0, math.cos(a))  # an edge down
    assert support((0.0, 0.0, 0.008), flat, pts, [up, up], 5e-4) == FLAT_STABLE
    assert support((0.0, 0.0, 0.011), edge, pts, [up, up], 5e-4) == FLAT_UNSTABLE
    assert support((0.0, 0.0, 0.008), flat, pts, [up, (0.0, -1.0, 0.0)], 5e-4) == OTHER  # leaning on a wall
    tilt = (0.0, math.sin(math.radians(2.0)), math.cos(math.radians(2.0)))
    assert support((0.0, 0.0, 0.008), flat, pts, [up, tilt], 5e-4) == OTHER  # on a hole's rim
    assert support((0.0, 0.0, 0.008), flat, pts, [], 5e-4) == OTHER


D6 = Scenario.build(dice=["d6"], shots=["roll"])
UP = (0.0, 0.0, 1.0)
FLAT = (0.0, 0.0, 0.0, 1.0)


def _windows_until_rest(det, poses, touching=True, normals=(UP, UP), speed=(0.0, 0.0, 0.0)):
    """Feed one pose per window; the window count at which the detector first says rest, or None."""
    for k, pos in enumerate(poses, 1):
        if det.window(0, pos, FLAT, touching, lambda: (speed, (0.0, 0.0, 0.0)), lambda: list(normals)):
            return k
    return None


def test_detector_counts_quiet_windows_by_support():
    st = D6.physics
    test = RestTest.from_settings(st)
    assert test.window_steps == round(st.rest_window_s * st.step_hz)
    pts = D6.dice[0].collision_points_m
    still = [(0.0, 0.0, 0.008)] * 40
    # flat and stable: the first window only anchors, two quiet windows after it
    assert _windows_until_rest(RestDetector(test, [pts]), still) == 3
    # leaning on a wall: windows filling 2 x rest_hold_s
    lean = _windows_until_rest(RestDetector(test, [pts]), still, normals=(UP, (0.0, -1.0, 0.0)))
    assert lean == 1 + test.need_other and test.need_other * test.window_steps / st.step_hz >= 2 * st.rest_hold_s - 1e-9
    # no known shape: treated as leaning
    assert _windows_until_rest(RestDetector(test, [None]), still) == 1 + test.need_other
    # not touching anything, creeping by more than rest_speed x window, or a spike at the window end: never
    assert _windows_until_rest(RestDetector(test, [pts]), still, touching=False) is None
    creep = [(k * 1.5 * test.max_disp_m, 0.0, 0.008) for k in range(40)]
    assert _windows_until_rest(RestDetector(test, [pts]), creep) is None
    assert _windows_until_rest(RestDetector(test, [pts]), still, speed=(6 * st.rest_speed_mps, 0.0, 0.0)) is None
    # the older windowed test: two quiet windows of rest_hold_s for any body
    old = RestTest.from_settings(st.model_copy(update={"rest": "windows"}))
    assert old.window_steps == round(st.rest_hold_s * st.step_hz)
    assert _windows_until_rest(RestDetector(old, [pts]), still, normals=(UP, (0.0, -1.0, 0.0))) == 3


def test_settle_uses_the_rest_detector():
    """Physics.settle (laid templates) stops a body lying still on the table within a few windows, and
    reports False for one still falling at the cap."""
    from sim.engine.worlds import build_thrower

    th = build_thrower(D6)
    try:
        ph = th.physics
        die = D6.dice[0]
        pts = die.collision_points_m
        ph.set_state("die:0", (0.3, 0.3, -pts[:, 2].min() + 1e-4), FLAT)
        t0 = ph.time_s
        assert ph.settle(["die:0"], max_time_s=1.0)
        test = RestTest.from_settings(D6.physics)
        assert ph.time_s - t0 <= 4 * test.window_steps * ph.dt + 1e-9
        ph.set_state("die:0", (0.3, 0.3, 3.0), FLAT)
        assert not ph.settle(["die:0"], max_time_s=0.2)
    finally:
        th.physics.close()


def test_support_is_judged_from_the_second_quiet_window_and_the_latest_one_counts():
    """The detector skips the support test at a body's first quiet window (no count can reach any need,
    2 or more, yet): what decides is the support at the window being counted. A die leaning on a wall
    at its first quiet window and lying flat from the second rests at the second; flat then leaning
    waits as long as a leaning die must; the support is asked for only from the second quiet window on."""
    test = RestTest.from_settings(D6.physics)
    pts = D6.dice[0].collision_points_m
    wall = (UP, (0.0, -1.0, 0.0))
    still = (0.0, 0.0, 0.008)

    def run(normals_per_window):
        det, asked = RestDetector(test, [pts]), []
        for k, normals in enumerate(normals_per_window, 1):
            if det.window(0, still, FLAT, True, lambda: ((0.0,) * 3, (0.0,) * 3),
                          lambda n=normals, k=k: asked.append(k) or list(n)):
                return k, asked
        return None, asked

    # window 1 only anchors; window n is quiet window n - 1
    assert run([(UP, UP), wall, (UP, UP), (UP, UP)]) == (3, [3])  # the wall at quiet window 1 is never asked
    n = test.need_other
    leaning = [(UP, UP), (UP, UP)] + [wall] * n  # flat at quiet window 1, then leaning
    assert n > 2 and run(leaning) == (1 + n, list(range(3, 2 + n)))  # it waits as long as leaning asks
