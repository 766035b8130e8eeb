"""Trajectory recording: every moving body's pose at a fixed frame rate, plus the throw's contact events.

Why a separate recorder: the engine keeps one position per physics step for the requirements (no
orientation), which is far more than a viewer needs and not enough to draw a tumbling die. The
recorder is an optional hook of the throw loop (`Thrower.recorder`): it only *reads* poses, at
`fps` frames per second of simulated time (independent of the physics step), so a throw recorded
is bit for bit the throw not recorded (the viewer's tests check it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from sim.trace import ContactEvent, EventTrace

DEFAULT_FPS = 60.0
PARKED_Z_M = -1.0  # bodies parked out of the way (Physics.park) sit far below the table


@dataclass
class Trajectory:
    """One throw as frames: times (s), and per body a (frames, 7) array of x, y, z (m), qx, qy, qz, qw."""

    fps: float
    times_s: np.ndarray
    poses: dict[str, np.ndarray]
    static_poses: dict[str, np.ndarray] = field(default_factory=dict)  # bodies that cannot move: one pose
    events: list[ContactEvent] = field(default_factory=list)
    dice: list[str] = field(default_factory=list)

    @property
    def duration_s(self) -> float:
        return float(self.times_s[-1]) if len(self.times_s) else 0.0

    def pose_at(self, body: str, t: float) -> np.ndarray:
        """Pose of a body at time t (the frame at or just before t; static bodies: their one pose)."""
        if body in self.static_poses:
            return self.static_poses[body]
        k = int(np.clip(np.searchsorted(self.times_s, t, side="right") - 1, 0, len(self.times_s) - 1))
        return self.poses[body][k]

    def visible(self, body: str) -> bool:
        """False for a body parked below the table for the whole throw (an unused die or template)."""
        p = self.static_poses.get(body)
        if p is not None:
            return bool(p[2] > PARKED_Z_M)
        return bool(np.any(self.poses[body][:, 2] > PARKED_Z_M))


class TrajectoryRecorder:
    """The hook object the throw loop (sim/world/stepper.py) calls: `start` before the first step, `sample`
    after every step,
    `finish` after the last. Keeps the most recent throw in `trajectory`."""

    def __init__(self, fps: float = DEFAULT_FPS) -> None:
        if not fps > 0:
            raise ValueError("fps must be positive")
        self.fps = float(fps)
        self.trajectory: Trajectory | None = None
        self._frames = 0

    def start(self, physics, active: list[str]) -> None:
        """Begin a throw: pick the bodies that can move (thrown dice, templates, loose props), read the
        static props once, and take frame 0."""
        self._pose = physics.die_pose  # a named read-out: the recorder only reads
        self._dice = list(active)
        moving, static = [], {}
        for name in physics.names():
            if name in active:
                moving.append(name)
            elif name.startswith("die:"):
                continue  # dice not thrown stay parked
            elif physics.mass_kg(name) > 0:  # templates, loose wall pieces, the cup
                moving.append(name)
            elif name.startswith("prop:"):
                static[name] = self._read(name)
        self._bodies = list(moving)
        self._static = static
        self._t: list[float] = []
        self._rows: list[list[float]] = []
        self._frames = 0
        self.trajectory = None
        self._take(0.0)

    def _read(self, name: str) -> np.ndarray:
        p, q = self._pose(name)
        return np.array((*p, *q), dtype=float)

    def _take(self, t: float, poses: dict | None = None) -> None:
        row: list[float] = []
        for n in self._bodies:
            p, q = poses[n] if poses is not None and n in poses else self._pose(n)
            row.extend(p)
            row.extend(q)
        self._t.append(t)
        self._rows.append(row)
        self._frames += 1

    def sample(self, t: float, poses: dict | None = None) -> None:
        """After a step at time t. `poses` (name -> (position, quaternion)) stands in for the world's pose of
        bodies the throw loop moves without stepping: through a skipped free flight the dice are not in
        the world at their exact pose until the flight's end, so the loop hands those poses over."""
        # frame k is taken at the first step at or after k / fps (half a microsecond of slack for rounding)
        if t * self.fps >= self._frames - 5e-7 * self.fps:
            self._take(t, poses)

    def finish(self, t: float, trace: EventTrace) -> None:
        """End the throw: take the resting pose at t (s) and assemble `trajectory` with the throw's contact
        events."""
        if self._t[-1] < t:
            self._take(t)  # the resting pose itself, even between frames
        arr = np.asarray(self._rows, dtype=float).reshape(len(self._rows), -1)
        poses = {n: arr[:, 7 * k : 7 * k + 7].copy() for k, n in enumerate(self._bodies)}
        self.trajectory = Trajectory(
            self.fps, np.asarray(self._t), poses, dict(self._static), list(trace.events), list(self._dice)
        )


@contextlib.contextmanager
def recording(thrower, fps: float = DEFAULT_FPS) -> Iterator[TrajectoryRecorder]:
    """Attach a recorder to a thrower for the duration of a `with` block (throwers are shared per process,
    so the hook is always removed again). The recorder keeps the last throw run inside the block."""
    rec = TrajectoryRecorder(fps)
    old = thrower.recorder
    thrower.recorder = rec
    try:
        yield rec
    finally:
        thrower.recorder = old
