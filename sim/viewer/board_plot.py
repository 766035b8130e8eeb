"""A board file drawn flat (sections by value, holes, bones, bullseye), alone or over a photo of the
real board, so that a user can see whether their measurements sit where the print and the cut-outs are.

Over a photo the board frame is mapped to pixels by the photo's scale (px per mm), the pixel at the
board centre and the angle the board's +x axis makes with the photo's rightward axis, counter-clockwise
as seen on the photo (image rows grow downward).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from sim.specs.board import BoardSpec
from sim.specs.geometry import MM


@dataclass(frozen=True)
class PhotoFrame:
    """Where the board lies on a photo: pixels per mm, the centre pixel (column, row), the rotation."""

    scale_px_per_mm: float
    centre_px: tuple[float, float]
    rotate_deg: float = 0.0

    def to_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Board-frame points (mm, n x 2) as photo pixels (column, row)."""
        a = math.radians(self.rotate_deg)
        x, y = xy_mm[:, 0], xy_mm[:, 1]
        xr, yr = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
        return np.column_stack(
            [self.centre_px[0] + self.scale_px_per_mm * xr, self.centre_px[1] - self.scale_px_per_mm * yr]
        )


def _rings(geom: BaseGeometry) -> list[np.ndarray]:
    """Every boundary ring of a polygon or multipolygon, in mm."""
    polys = getattr(geom, "geoms", [geom])
    out = []
    for p in polys:
        if p.is_empty or not hasattr(p, "exterior"):
            continue
        out.append(np.asarray(p.exterior.coords) / MM)
        out += [np.asarray(r.coords) / MM for r in p.interiors]
    return out


def board_figure(
    board: BoardSpec,
    photo: np.ndarray | None = None,
    frame: PhotoFrame | None = None,
    title: str | None = None,
):
    """The board drawn with matplotlib's object API (no pyplot): filled sections shaded by value with
    their values written in, holes and bones hatched, the bullseye outlined; over `photo` (an image
    array) the drawing is outlines only, placed by `frame`. Returns the Figure."""
    from matplotlib import colormaps
    from matplotlib.figure import Figure
    from matplotlib.patches import Polygon as Patch

    over = photo is not None
    to: Callable[[np.ndarray], np.ndarray] = frame.to_px if over else (lambda p: p)
    if over:
        h, w = photo.shape[:2]
        fig = Figure(figsize=(8, 8 * h / w))
        ax = fig.add_axes((0, 0, 1, 0.95))
        ax.imshow(photo)
    else:
        fig = Figure(figsize=(7, 7))
        ax = fig.add_subplot()

    values = sorted({s.value for s in board.sections})
    cmap = colormaps["YlOrRd"]
    shade = {v: cmap(0.15 + 0.7 * i / max(1, len(values) - 1)) for i, v in enumerate(values)}

    def draw(geom: BaseGeometry, **kw) -> None:
        for ring in _rings(geom):
            ax.add_patch(Patch(to(ring), closed=True, **kw))

    draw(board.outline_geom, fill=False, edgecolor="black", lw=1.5)
    covered = unary_union([*board.hole_geoms, *(b.shape.geometry() for b in board.bones)])
    for s in board.sections:
        g = s.shape.geometry().intersection(board.outline_geom)
        if over:
            draw(g, fill=False, edgecolor="cyan", lw=0.9)
        else:
            draw(g, facecolor=shade[s.value], edgecolor="0.3", lw=0.6)
        if g.is_empty:
            continue
        c = (g.difference(covered) if not g.difference(covered).is_empty else g).representative_point()
        px = to(np.array([[c.x / MM, c.y / MM]]))[0]
        ax.text(
            px[0],
            px[1],
            str(s.value),
            ha="center",
            va="center",
            fontsize=7,
            color="cyan" if over else "black",
            fontweight="bold" if s.bullseye else "normal",
        )
        if s.bullseye:
            draw(g, fill=False, edgecolor="magenta" if over else "darkred", lw=2.0)
    for b in board.bones:
        draw(
            b.shape.geometry(),
            fill=not over,
            facecolor="0.85",
            edgecolor="saddlebrown" if not over else "yellow",
            hatch="xx",
            lw=1.0,
        )
    for h in board.holes:
        draw(
            h.shape.geometry(), fill=not over, facecolor="0.1", edgecolor="lime" if over else "black", lw=1.2
        )
    if over:
        ax.set_xlim(0, photo.shape[1])
        ax.set_ylim(photo.shape[0], 0)
        ax.axis("off")
    else:
        r = board.radius_m / MM * 1.05
        ax.set_xlim(-r, r)
        ax.set_ylim(-r, r)
        ax.set_aspect("equal")
        ax.set_xlabel("x (mm, toward the far side)")
        ax.set_ylabel("y (mm)")
        ax.annotate(
            "",
            xy=(-0.6 * r, -0.95 * r),
            xytext=(-0.95 * r, -0.95 * r),
            arrowprops={"arrowstyle": "->", "color": "0.4"},
        )
        ax.text(-0.95 * r, -0.9 * r, "throw", fontsize=7, color="0.4")
    legend = (
        "holes black, bones hatched, bullseye dark red"
        if not over
        else "sections cyan, holes green, bones yellow, bullseye magenta"
    )
    fig.suptitle(
        title
        or f"{board.name}: {len(board.sections)} sections, {len(board.holes)} holes, "
        f"{len(board.bones)} bones ({legend})",
        fontsize=9,
    )
    return fig


def read_photo(path: str | Path) -> np.ndarray:
    """A photo as an image array (PNG or JPEG, via imageio)."""
    import warnings

    import imageio.v3 as iio

    with warnings.catch_warnings():  # imageio tries its plugins in turn on a file that is no image, and warns
        warnings.simplefilter("ignore")
        return np.asarray(iio.imread(Path(path)))
