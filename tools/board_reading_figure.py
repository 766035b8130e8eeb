"""Draw docs/figures/board-reading.png: how a resting die is read when its bottom corners fall on
sections, bones, holes and past the board edge at once (sim.rules.footprint.read_board).

Each panel is one case of tests/rules/test_footprint_reading.py on the same two-section test board:
the die's bottom face (grey), its corners (filled: on cardboard, they vote; crossed: past the edge or
over a hole, no vote), its centre of mass (black plus), what it touches, and the reading.

    .venv/bin/python tools/board_reading_figure.py [OUT.png]
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Circle, Polygon, Rectangle, Wedge  # noqa: E402

from sim.rules.footprint import read_board  # noqa: E402
from sim.specs.board import load_board  # noqa: E402

BOARD = load_board(Path(__file__).resolve().parents[1] / "tests" / "rules" / "two-halves-board.toml")
TOKEN = "prop:slow-tokens:h"
# (title, corners mm, centre mm, touching, bones reading)
CASES = [
    ("three-way tie at the edge", [(-6, -190), (6, -190), (0, -204)], (0, -195), ("board",), "most-corners"),
    ("centre past the edge", [(-6, -196), (6, -196), (0, -210)], (0, -201), ("board",), "most-corners"),
    ("leaning on the edge\nfrom the table", [(-6, -190), (6, -190), (0, -204)], (0, -197), ("board", "table"), "most-corners"),
    ("tilted into a hole", [(-130, 100), (-110, 100), (-122, 112)], (-121, 104), ("table", "board"), "most-corners"),
    ("fell in a hole", [(-110, 95), (-90, 95), (-100, 110)], (-100, 100), ("table",), "most-corners"),
    ("a big die across a hole", [(-125, 75), (-75, 75), (-75, 125), (-125, 125)], (-100, 100), ("board",), "most-corners"),
    ("on a Slow token", [(-110, 95), (-90, 95), (-100, 110)], (-100, 100), (TOKEN,), "most-corners"),
    ("1 of 4 on bones,\nbones_corners = most-corners", [(-65, -105), (-55, -105), (-55, -95), (-65, -95)], (-60, -100), ("board",), "most-corners"),
    ("1 of 4 on bones,\nbones_corners = any-corner", [(-65, -105), (-55, -105), (-55, -95), (-65, -95)], (-60, -100), ("board",), "any-corner"),
    ("2 of 4 on bones", [(-65, -105), (-65, -115), (-55, -115), (-55, -105)], (-60, -110), ("board",), "most-corners"),
    ("2 and 2 on sections", [(-5, 0), (5, 0), (5, 10), (-5, 10)], (0, 5), ("board",), "most-corners"),
    ("2 of 3 over a hole", [(-110, 95), (-96, 103), (-124, 104)], (-110, 101), ("board",), "most-corners"),
]
SECTION_COLOURS = {"west": "#cfe3f5", "east": "#f5dfc5"}


def _draw_board(ax) -> None:
    ax.add_patch(Rectangle((-400, -400), 800, 800, color="#e8e2d8", zorder=0))  # the table
    ax.add_patch(Wedge((0, 0), 200, 90, 270, color=SECTION_COLOURS["west"], zorder=1))
    ax.add_patch(Wedge((0, 0), 200, -90, 90, color=SECTION_COLOURS["east"], zorder=1))
    ax.add_patch(Circle((0, 0), 200, fill=False, lw=1.5, color="k", zorder=3))
    ax.plot([0, 0], [-200, 200], color="k", lw=0.6, zorder=3)
    ax.add_patch(Rectangle((-100, -140), 40, 40, color="#9a8f7a", hatch="xx", fill=False, zorder=2))
    ax.add_patch(Circle((-100, 100), 20, color="#e8e2d8", ec="k", lw=1, zorder=2))


def _panel(ax, title, corners, centre, touching, bones) -> str:
    _draw_board(ax)
    c = np.array(corners, float)
    reading = read_board(BOARD, c * 1e-3, np.array(centre) * 1e-3, touching, bones=bones,
                         hole_fillers=(TOKEN,))
    if TOKEN in touching:
        ax.add_patch(Circle((-100, 100), 19, color="#7fa37f", zorder=2))
    order = np.argsort(np.arctan2(c[:, 1] - c[:, 1].mean(), c[:, 0] - c[:, 0].mean()))
    ax.add_patch(Polygon(c[order], closed=True, color="0.45", alpha=0.55, zorder=5))
    kinds = [r.kind for r in BOARD.regions_at(c * 1e-3)]
    for (x, y), k in zip(c, kinds):
        if k in ("section", "bones"):
            ax.plot(x, y, "o", ms=5, color="tab:blue", zorder=6)
        else:
            ax.plot(x, y, "x", ms=6, mew=2, color="tab:red", zorder=6)
    ax.plot(*centre, "+", ms=9, mew=2, color="k", zorder=7)
    lo, hi = c.min(axis=0), c.max(axis=0)
    mid, half = (lo + hi) / 2, max(float((hi - lo).max()) / 2 + 14, 26)
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[1] - half, mid[1] + half)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    r = reading.region
    what = {"off": "off-board (miss)", "hole": "in-hole (miss)", "bones": "on-bones (miss)"}.get(r.kind, f"section {r.id} ({r.value})")
    touch = ", ".join("slow token" if t == TOKEN else t for t in touching)
    ax.set_title(f"{title}\ntouching: {touch}\n-> {what}\n[{reading.basis}]", fontsize=7)
    return what


def main(out: str = "docs/figures/board-reading.png") -> None:
    """Draw every case into one figure and write it to `out`."""
    fig, axes = plt.subplots(2, 6, figsize=(15, 8.6))
    for ax, case in zip(axes.flat, CASES):
        _panel(ax, *case)
    fig.suptitle("Where the die stands: filled corners are on cardboard and vote; crossed corners (past the "
                 "edge, over a hole) do not; + is the centre of mass", fontsize=9)
    keys = [Rectangle((0, 0), 1, 1, color=SECTION_COLOURS["west"]), Rectangle((0, 0), 1, 1, color=SECTION_COLOURS["east"]),
            Rectangle((0, 0), 1, 1, fill=False, hatch="xx", color="#9a8f7a"), Rectangle((0, 0), 1, 1, color="#e8e2d8", ec="k"),
            Rectangle((0, 0), 1, 1, color="#7fa37f")]
    fig.legend(keys, ["section west (value 2)", "section east (value 5)", "printed bones", "table (past the edge, or under a hole)",
                      "Slow token in the hole"], loc="lower center", ncol=5, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.05, 1, 0.95))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main(*sys.argv[1:2])
