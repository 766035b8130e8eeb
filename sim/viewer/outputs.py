"""The files a person asks for beside a throw: a replay page, a GIF, an MP4.

Shared by `dfsim throw` and `dfsim replay`. Paths are checked before anything is thrown (a typo in a
folder name should not cost a simulation), the throw is recorded, and the files are written after it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from sim import files
from sim.errors import SpecError
from sim.viewer.recorder import Trajectory, TrajectoryRecorder, recording


def check_output(path: str | Path | None, flag: str) -> None:
    """A file the command will write, checked before any throw (sim.files.check_output)."""
    if path is not None:
        files.check_output(path, flag)


def check_mp4(path: str | Path | None, flag: str = "--mp4") -> None:
    """MP4 needs the optional encoder: say so before throwing."""
    if path is None:
        return
    from sim.viewer.animation import mp4_available

    if not mp4_available():
        raise SpecError("command line", flag, "needs imageio-ffmpeg: pip install 'dfsim[video]'")


def write_clips(
    thrower, result, traj: Trajectory, gif: str | Path | None = None, mp4: str | Path | None = None
) -> list[Path]:
    """Write the GIF and/or MP4 of a recorded throw; returns the files written."""
    out: list[Path] = []
    if gif is None and mp4 is None:
        return out
    from sim.viewer.animation import render_frames, write_gif, write_mp4

    frames = render_frames(thrower, result, traj)
    if gif is not None:
        out.append(write_gif(gif, frames))
    if mp4 is not None:
        out.append(write_mp4(mp4, frames))
    return out


class ThrowOutputs:
    """A replay page, GIF and MP4 of one throw: paths checked on construction (nothing thrown when one
    is bad), the throw recorded inside `recording()`, the files written by `write(result)`."""

    def __init__(
        self,
        thrower,
        replay: str | Path | None = None,
        gif: str | Path | None = None,
        mp4: str | Path | None = None,
    ) -> None:
        self.thrower = thrower
        self.replay, self.gif, self.mp4 = replay, gif, mp4
        for path, flag in ((replay, "--replay"), (gif, "--gif"), (mp4, "--mp4")):
            check_output(path, flag)
        check_mp4(mp4)
        self.recorder: TrajectoryRecorder | None = None

    @property
    def wanted(self) -> bool:
        return any(p is not None for p in (self.replay, self.gif, self.mp4))

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """Record the throw run inside the block (nothing is attached when no file is wanted)."""
        if not self.wanted:
            yield
            return
        with recording(self.thrower) as rec:
            yield
        self.recorder = rec

    def write(self, result) -> list[Path]:
        """Write the asked replay page, GIF and MP4 of the recorded throw; the paths written (none if
        nothing was recorded)."""
        if self.recorder is None or self.recorder.trajectory is None:
            return []
        traj = self.recorder.trajectory
        out: list[Path] = []
        if self.replay is not None:
            from sim.viewer.replay import write_replay

            out.append(write_replay(self.replay, [(self.thrower, result, traj)]))
        out += write_clips(self.thrower, result, traj, self.gif, self.mp4)
        return out
