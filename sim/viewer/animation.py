"""A throw as a short animated GIF or MP4, drawn headless with matplotlib's 3-D axes.

For posting a throw where a page cannot go (chat, issue trackers, slides). The picture is simpler
than the replay page's - flat-shaded polygons, no shadows - but drawn from the same scene data: the
board's visible regions with their values, holes left open, props, templates, the die (icon faces in
gold) and its path. The camera follows the die: each frame shows the square around it and the
board's centre, so the die is in sight from the first frame and large at rest. A throw plays in real
time at 20 frames per second; one longer than `max_s` is sped up to fit, and the last frame (the die
at rest, the outcome) is held for a second and a half.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from mpl_toolkits.mplot3d.art3d import Line3DCollection, Poly3DCollection
from shapely.geometry import Polygon

from sim.errors import SpecError
from sim.specs.die import quat_to_matrix
from sim.viewer.recorder import Trajectory
from sim.viewer.scene import scene_json

SIZE_PX = (560, 416)  # both multiples of 16: MP4 encoders need no rescaling
GIF_FPS = 20
MAX_S = 4.0
HOLD_S = 1.5
FOLLOW_MM = 110  # the margin around the followed die
CENTRE_MM = 60  # ... and around the board's centre, kept in the frame
DPI = 80


def _triangles(polys: list[dict[str, Any]], z: float) -> list[np.ndarray]:
    """Flat triangles (mm) covering page polygons with holes (matplotlib cannot fill holed polygons in
    3-D)."""
    out = []
    for p in polys:
        poly = Polygon(p["ext"], p["holes"])
        if not poly.is_valid:
            poly = poly.buffer(0)
        for tri in shapely.constrained_delaunay_triangles(poly).geoms:
            xy = np.asarray(tri.exterior.coords)[:3]
            out.append(np.c_[xy, np.full(3, z)])
    return out


def _pose(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return a[:3], quat_to_matrix(a[3:7])


class _Frame:
    """One figure, drawn once; per frame only the moving bodies and the path change."""

    def __init__(self, thrower, traj: Trajectory, result, size_px=SIZE_PX) -> None:
        self.traj = traj
        self.scene = scene_json(thrower)
        self.result = result
        w, h = size_px
        # a Figure with its own Agg canvas: no pyplot, so the caller's matplotlib backend is left alone
        self.fig = Figure(figsize=(w / DPI, h / DPI), dpi=DPI)
        FigureCanvasAgg(self.fig)
        ax = self.ax = self.fig.add_axes((0, 0, 1, 0.93), projection="3d", computed_zorder=False)  # type: Any
        ax.set_proj_type("ortho")
        ax.set_axis_off()
        ax.set_facecolor("#dfe6ec")
        self.fig.patch.set_facecolor("#dfe6ec")
        die_xy = (
            np.concatenate([traj.poses[d][:, :2] * 1e3 for d in traj.dice]) if traj.dice else np.zeros((1, 2))
        )
        r = (self.scene["board"] or {}).get("radius_mm", 300.0)
        x0, x1 = min(die_xy[:, 0].min(), -r) - 40, max(die_xy[:, 0].max(), r) + 40
        y0, y1 = min(die_xy[:, 1].min(), -r) - 40, max(die_xy[:, 1].max(), r) + 40
        span = max(x1 - x0, y1 - y0)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        self.lim = (cx - span / 2, cx + span / 2, cy - span / 2, cy + span / 2)
        ax.set_xlim(self.lim[0], self.lim[1])
        ax.set_ylim(self.lim[2], self.lim[3])
        ztop = max(
            span * 0.3, max(float(traj.poses[d][:, 2].max()) * 1e3 for d in traj.dice) if traj.dice else 0.0
        )
        ax.set_zlim(0, ztop)
        self.ztop = ztop
        ax.set_box_aspect((1, 1, ztop / span), zoom=1.45)
        ax.view_init(elev=24, azim=-128)  # from the thrower's right, a little behind: the arc shows
        self._static()
        self.moving: list[Any] = []

    def follow(self, die_mm: np.ndarray) -> None:
        """Frame the die: the view is the square around the die (FOLLOW_MM of margin) and the board's
        centre, so the die is large at rest and the board stays in sight while it flies; it moves with
        the die frame by frame (orthographic, so nothing outside the square is distorted)."""
        cx, cy = 0.0, 0.0  # the board frame's origin: the board's centre
        x0, x1 = min(die_mm[0] - FOLLOW_MM, cx - CENTRE_MM), max(die_mm[0] + FOLLOW_MM, cx + CENTRE_MM)
        y0, y1 = min(die_mm[1] - FOLLOW_MM, cy - CENTRE_MM), max(die_mm[1] + FOLLOW_MM, cy + CENTRE_MM)
        span = max(x1 - x0, y1 - y0)
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        ax = self.ax
        ax.set_xlim(mx - span / 2, mx + span / 2)
        ax.set_ylim(my - span / 2, my + span / 2)
        ztop = max(span * 0.3, float(die_mm[2]) + FOLLOW_MM / 2)
        ax.set_zlim(0, ztop)
        ax.set_box_aspect((1, 1, ztop / span), zoom=1.45)

    def _static(self) -> None:
        ax, sc = self.ax, self.scene
        x0, x1, y0, y1 = self.lim
        table = Poly3DCollection(
            [np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]])],
            facecolor=sc["table"]["colour"],
            edgecolor="none",
            zorder=0,
        )
        ax.add_collection3d(table)
        b = sc["board"]
        if b is not None:
            t = b["thickness_mm"]
            ax.add_collection3d(
                Poly3DCollection(_triangles(b["surface"], t), facecolor="#f4efe6", edgecolor="none", zorder=1)
            )
            for reg in b["regions"]:
                tris = _triangles(reg["polys"], t)
                if tris:
                    ax.add_collection3d(
                        Poly3DCollection(tris, facecolor=reg["colour"], edgecolor="none", zorder=1)
                    )
                segs = [
                    np.c_[np.asarray(p["ext"] + p["ext"][:1]), np.full(len(p["ext"]) + 1, t)]
                    for p in reg["polys"]
                ]
                ax.add_collection3d(Line3DCollection(segs, colors="#7a5c3e", linewidths=0.4, zorder=1.1))
                text = str(reg["value"]) if reg["kind"] == "section" else ""
                for x, y, s in reg["labels"] if text else []:
                    ax.text(
                        x,
                        y,
                        t,
                        text,
                        fontsize=max(5, min(11, s / 4)),
                        ha="center",
                        va="center",
                        color="#3b2a1a",
                        fontweight="bold",
                        zorder=1.2,
                    )
        for name, spec in sc["bodies"].items():
            if spec["kind"] == "prop" and name in self.traj.static_poses and self.traj.visible(name):
                pos, rot = _pose(self.traj.static_poses[name])
                ax.add_collection3d(self._mesh(spec, pos * 1e3, rot, zorder=2.5))

    def _mesh(self, spec, pos_mm, rot, zorder):
        v = np.asarray(spec["mesh"]["v"], float).reshape(-1, 3) @ rot.T + pos_mm
        f = np.asarray(spec["mesh"]["f"], int).reshape(-1, 3)
        return Poly3DCollection(v[f], facecolor=spec["colour"], edgecolor="none", alpha=0.8, zorder=zorder)

    def draw(self, t: float) -> np.ndarray:
        ax, traj = self.ax, self.traj
        for artist in self.moving:
            artist.remove()
        self.moving = []
        k = int(np.clip(np.searchsorted(traj.times_s, t, side="right") - 1, 0, len(traj.times_s) - 1))
        for name, arr in traj.poses.items():
            spec = self.scene["bodies"].get(name)
            if spec is None or not traj.visible(name):
                continue
            pos, rot = _pose(arr[k])
            pos = pos * 1e3
            if spec["kind"] == "die":
                if name == traj.dice[0]:
                    self.follow(pos)
                faces = [np.asarray(f["corners"]) @ rot.T + pos for f in spec["faces"]]
                colours = ["#ffd54f" if f["icon"] else spec["colour"] for f in spec["faces"]]
                art = Poly3DCollection(
                    faces, facecolors=colours, edgecolor="#1b1b1b", linewidths=0.4, zorder=4
                )
                path = arr[: k + 1, :3] * 1e3
                (line,) = ax.plot(path[:, 0], path[:, 1], path[:, 2], color="#f1c40f", lw=1.4, zorder=3)
                self.moving.append(line)
            elif spec["kind"] == "template":
                ring = np.asarray(spec["outline"][0]["ext"], float)
                top = np.c_[ring, np.full(len(ring), spec["thickness_mm"] / 2)] @ rot.T + pos
                art = Poly3DCollection(
                    [top], facecolor="#e67e22", edgecolor="#4a2b0f", linewidths=0.4, zorder=2
                )
            else:
                art = self._mesh(spec, pos, rot, zorder=2.5)
            ax.add_collection3d(art)
            self.moving.append(art)
        o = self.result.outcome
        done = t >= traj.duration_s - 1e-9
        title = (
            f"{o.result.upper()} ({o.reason})"
            + (f", section {o.value}" if o.section else "")
            + (f", face {o.face}" if o.face else "")
        )
        self.fig.suptitle(
            f"{t:4.2f} s   " + (title if done else ""),
            fontsize=11,
            y=0.985,
            color={"hit": "#1e8449", "miss": "#b03a2e"}.get(o.result, "#333333") if done else "#333333",
        )
        for artist in (*ax.collections, *ax.lines):  # the picture fills the frame, not only the 3-D box
            artist.set_clip_on(False)
        self.fig.canvas.draw()
        canvas: Any = self.fig.canvas
        return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()

    def close(self) -> None:
        self.fig.clear()


def frame_times(duration_s: float, fps: float = GIF_FPS, max_s: float = MAX_S) -> np.ndarray:
    """Times (s) of the clip's frames: real time up to max_s, sped up beyond; always ends at the rest."""
    n = max(2, int(math.ceil(min(duration_s, max_s) * fps)) + 1)
    return np.linspace(0.0, duration_s, n)


def render_frames(
    thrower, result, traj: Trajectory, size_px=SIZE_PX, fps: float = GIF_FPS, max_s: float = MAX_S
) -> list[np.ndarray]:
    """RGB frames (size_px: width, height) of a recorded throw at `fps`, real time up to `max_s` seconds
    and sped up beyond."""
    fr = _Frame(thrower, traj, result, size_px)
    try:
        return [fr.draw(float(t)) for t in frame_times(traj.duration_s, fps, max_s)]
    finally:
        fr.close()


def write_gif(
    path: str | Path, frames: list[np.ndarray], fps: float = GIF_FPS, hold_s: float = HOLD_S
) -> Path:
    """Write frames as a looping GIF at `fps`, the last frame (the resting die) held for `hold_s` seconds."""
    import imageio.v3 as iio

    ms = [1000.0 / fps] * len(frames)
    ms[-1] = hold_s * 1000.0
    from sim.files import writing

    with writing(path) as tmp:
        iio.imwrite(tmp, np.stack(frames), extension=".gif", duration=ms, loop=0)
    return Path(path)


def mp4_available() -> bool:
    """Whether MP4 output can be written (the optional imageio-ffmpeg package is installed)."""
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        return False
    return True


def write_mp4(
    path: str | Path, frames: list[np.ndarray], fps: float = GIF_FPS, hold_s: float = HOLD_S
) -> Path:
    """Write frames as an H.264 MP4 at `fps`, the last frame held for `hold_s` seconds; SpecError when
    imageio-ffmpeg is missing."""
    if not mp4_available():
        raise SpecError("command line", "--mp4", "needs imageio-ffmpeg: pip install 'dfsim[video]'")
    import imageio.v3 as iio

    frames = list(frames) + [frames[-1]] * int(round(hold_s * fps))
    from sim.files import writing

    with writing(path) as tmp:
        iio.imwrite(
            tmp,
            np.stack(frames),
            extension=".mp4",
            plugin="FFMPEG",
            fps=fps,
            codec="libx264",
            quality=6,
            pixelformat="yuv420p",
            macro_block_size=16,
        )
    return Path(path)
