"""Figures of a run, as PNG files a user can post: where dice land, what happened, what differs.

Drawn with matplotlib's Agg backend (no display needed). The board is drawn from the BoardSpec's own
geometry (the same shapes the classifier uses), so the picture shows the board the run simulated.
Every figure works from summary.json plus, for the landing map, the x/y and result columns of the
records. A run with many cells gets several files per figure (landing.png, landing-2.png, ...), every
cell on one of them, rather than a sample of its cells.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import patheffects
from matplotlib.patches import PathPatch
from matplotlib.path import Path as MplPath

from sim.files import remove_written, save_figure

MAX_BAR_CELLS = 10  # cells per bar figure; more are split over outcomes-2.png, ...
DPI = 110
_HALO = [patheffects.withStroke(linewidth=2.2, foreground="white")]  # labels stay readable over the heat
# share of hits in a square: red (all misses) to blue (all hits); readable by most colour-blind eyes
HIT_CMAP = "RdBu"
HOLE_COLOUR, BONES_COLOUR, PROP_COLOUR, TEMPLATE_COLOUR = "white", "#d9d9d9", "#3d3d3d", "#7d3c98"


# ----------------------------------------------------------------------------------------------
# board drawing


def _polygons(geom) -> list:
    if geom is None or geom.is_empty:
        return []
    if geom.geom_type == "Polygon":
        return [geom]
    if hasattr(geom, "geoms"):
        return [p for g in geom.geoms for p in _polygons(g)]
    return []


def _patch(geom, scale: float = 1e3, **kw) -> PathPatch | None:
    """A patch for a shapely (multi)polygon in metres, drawn in mm, holes included."""
    verts, codes = [], []
    for poly in _polygons(geom):
        for ring in [poly.exterior, *poly.interiors]:
            xy = np.asarray(ring.coords) * scale
            verts.extend(xy.tolist())
            codes.extend([MplPath.MOVETO] + [MplPath.LINETO] * (len(xy) - 2) + [MplPath.CLOSEPOLY])
    if not verts:
        return None
    return PathPatch(MplPath(verts, codes), **kw)


def draw_board(
    ax,
    board,
    labels: bool = True,
    alpha: float = 1.0,
    palette: str = "Oranges",
    shades: tuple[float, float] = (0.15, 0.75),
) -> None:
    """Outline, sections shaded by value (`palette`: a matplotlib colour map, from `shades[0]` for the
    lowest value to `shades[1]` for the highest) with their values, printed bones, and holes."""
    if board is None:
        return
    values = [s.value for s in board.sections] or [0]
    vmin, vmax = min(values), max(values)
    cmap = plt.get_cmap(palette)
    outline = board.outline_geom
    p = _patch(outline, facecolor="#f4efe6", edgecolor="none", zorder=0, alpha=alpha)
    if p:
        ax.add_patch(p)
    for s in board.sections:  # painter's order, as the board spec layers them
        g = s.shape.geometry().intersection(outline)
        t = shades[0] + (shades[1] - shades[0]) * ((s.value - vmin) / (vmax - vmin) if vmax > vmin else 0.5)
        p = _patch(g, facecolor=cmap(t), edgecolor="#7a5c3e", linewidth=0.6, zorder=1, alpha=alpha)
        if p:
            ax.add_patch(p)
    for b in board.bones:
        p = _patch(
            b.shape.geometry().intersection(outline),
            facecolor=BONES_COLOUR,
            edgecolor="#555555",
            hatch="////",
            linewidth=0.6,
            zorder=2,
            alpha=alpha,
        )
        if p:
            ax.add_patch(p)
    for g in board.hole_geoms:
        p = _patch(g, facecolor=HOLE_COLOUR, edgecolor="black", linewidth=0.8, zorder=2)
        if p:
            ax.add_patch(p)
    p = _patch(outline, facecolor="none", edgecolor="black", linewidth=1.2, zorder=3)
    if p:
        ax.add_patch(p)
    if labels:
        _label_sections(ax, board)


def _label_sections(ax, board) -> None:
    """One value label per section, placed where that section is visible (not painted over)."""
    from shapely.ops import unary_union

    covered = None
    visible = []
    for s in reversed(board.sections):
        g = s.shape.geometry().intersection(board.outline_geom)
        if covered is not None:
            g = g.difference(covered)
        covered = g if covered is None else unary_union([covered, s.shape.geometry()])
        visible.append((s, g))
    for s, g in visible:
        for poly in _polygons(g):
            if poly.area < 2e-4:  # < 2 cm^2: too small to label
                continue
            pt = poly.representative_point()
            ax.text(
                pt.x * 1e3,
                pt.y * 1e3,
                str(s.value),
                ha="center",
                va="center",
                fontsize=7.5,
                color="#3b2a1a",
                zorder=6,
                fontweight="bold",
                path_effects=_HALO,
            )


# ----------------------------------------------------------------------------------------------
# figures


HEAT_BINS = 64  # square bins across the plotted square
PANELS_PER_PAGE = 9  # landing panels per figure; more cells are split over landing-2.png, ...


def heat_extent(boards: list) -> float:
    """Half-width (mm) of the square shown around the board: the board and a margin for near misses."""
    return max((b.radius_m * 1e3 if b is not None else 300.0) for b in boards) * 1.35


def landing_counts(xy_batches, extent: float, bins: int = HEAT_BINS) -> np.ndarray:
    """2-D histogram of rest positions, accumulated batch by batch (flat memory).

    Positions beyond the square are clipped to its border bins, so every throw is counted.
    """
    counts = np.zeros((bins, bins))
    edges = np.linspace(-extent, extent, bins + 1)
    for x, y in xy_batches:
        x, y = np.asarray(x, float), np.asarray(y, float)
        ok = np.isfinite(x) & np.isfinite(y)
        x = np.clip(x[ok], -extent, extent * (1 - 1e-9))
        y = np.clip(y[ok], -extent, extent * (1 - 1e-9))
        counts += np.histogram2d(x, y, bins=[edges, edges])[0]
    return counts


def landing_rgba(counts: np.ndarray, hits: np.ndarray, top: float) -> np.ndarray:
    """The heat as an image (rows = y, columns = x): colour = share of hits among the throws resting in
    a square, opacity = how many rested there (log scale up to `top`); empty squares transparent."""
    import matplotlib

    c, h = counts.T, hits.T
    share = np.divide(h, c, out=np.zeros_like(c), where=c > 0)
    rgba = matplotlib.colormaps[HIT_CMAP](share)
    level = np.log(np.maximum(c, 1)) / math.log(max(top, 2.0))
    rgba[..., 3] = np.where(c > 0, 0.5 + 0.5 * np.clip(level, 0, 1), 0.0)
    return rgba


def _key(ax, top: float) -> None:
    """The 2-D colour key of `landing_rgba`: share of hits across, throws per square up."""
    n = np.unique(np.round(np.geomspace(1, max(top, 2.0), 48)))
    share = np.linspace(0, 1, 21)
    counts = np.repeat(n[:, None], len(share), axis=1)
    rgba = landing_rgba(counts.T, (counts * share[None, :]).T, top)
    ax.imshow(rgba, origin="lower", aspect="auto", extent=(0, 100, 0, len(n)), interpolation="nearest")
    ticks = [k for k, v in enumerate(n) if v in (1, 10, 100, 1000, 10000)] + [len(n) - 1]
    ax.set_yticks([t + 0.5 for t in ticks], [f"{int(n[t])}" for t in ticks], fontsize=7)
    ax.set_xticks([0, 50, 100], ["0", "50", "100"], fontsize=7)
    ax.set_xlabel("hits among them (%)", fontsize=7)
    ax.set_ylabel("throws resting in a square", fontsize=7)
    ax.set_title("colour key\nred: misses, blue: hits\npaler: fewer throws there", fontsize=7.5)


def _edges(ax, board) -> None:
    """Board outline, holes and bones drawn again over the heat, so they show through it."""
    if board is None:
        return
    for geom, colour, style in (
        [(board.outline_geom, "black", "-")]
        + [(g, "black", "-") for g in board.hole_geoms]
        + [(b.shape.geometry().intersection(board.outline_geom), "#555555", ":") for b in board.bones]
    ):
        p = _patch(geom, facecolor="none", edgecolor=colour, linewidth=0.9, linestyle=style, zorder=5)
        if p:
            ax.add_patch(p)


def _outline(ax, geom, label: str | None, colour: str, above: bool = False, **kw) -> None:
    """A footprint's outline, with its name inside it, or just above it (`above`: thin props, walls)."""
    p = _patch(geom, facecolor="none", edgecolor=colour, linewidth=1.4, zorder=5, **kw)
    if p:
        ax.add_patch(p)
    if label:
        x0, _y0, x1, y1 = geom.bounds
        pt = geom.representative_point()
        x, y = ((x0 + x1) / 2, y1) if above else (pt.x, pt.y)
        ax.annotate(
            label,
            (x * 1e3, y * 1e3),
            xytext=(0, 3 if above else 0),
            textcoords="offset points",
            fontsize=6.5,
            color=colour,
            ha="center",
            va="bottom" if above else "center",
            zorder=7,
            path_effects=_HALO,
        )


def _thrower(ax, xy_mm: tuple[float, float] | None, extent: float) -> None:
    """Where the thrower stands: on -x, usually beyond the drawn square - then an arrow at its edge."""
    if xy_mm is None:
        return
    x, y = xy_mm
    inside = -extent < x
    at = (x if inside else -extent * 0.97, float(np.clip(y, -extent * 0.9, extent * 0.9)))
    ax.plot(*at, marker=">", markersize=9, color="black", zorder=8, clip_on=False)
    text = "thrower" if inside else f"thrower\nat {-x:.0f} mm"
    # below the arrow, at the square's edge: clear of the board, which starts well inside the square
    ax.annotate(
        text,
        at,
        xytext=(-3, -8),
        textcoords="offset points",
        fontsize=6.5,
        ha="left",
        va="top",
        zorder=8,
        path_effects=_HALO,
    )


def _legend_handles(panels: list[dict[str, Any]]) -> list:
    """Legend entries for what the panels show: holes, bones, props, templates, the thrower."""
    from matplotlib.artist import Artist
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    h: list[Artist] = []
    if any(p["board"] is not None and p["board"].holes for p in panels):
        h.append(Patch(facecolor=HOLE_COLOUR, edgecolor="black", label="hole (the die falls through)"))
    if any(p["board"] is not None and p["board"].bones for p in panels):
        h.append(
            Patch(facecolor=BONES_COLOUR, edgecolor="#555555", hatch="////", label="printed bones (a miss)")
        )
    if any(p.get("props") for p in panels):
        h.append(
            Patch(
                facecolor="none",
                edgecolor=PROP_COLOUR,
                linewidth=1.4,
                linestyle="--",
                label="prop (nominal place)",
            )
        )
    if any(p.get("templates") for p in panels):
        h.append(Patch(facecolor="none", edgecolor=TEMPLATE_COLOUR, linewidth=1.4, label="laid template"))
    h.append(Line2D([], [], marker=">", color="black", linestyle="none", label="thrower (throws toward +x)"))
    return h


def landing_heatmap(
    path: Path, panels: list[dict[str, Any]], title: str, extent: float, top: float | None = None
) -> Path:
    """Rest positions over the board, one panel per cell: coloured by the share of hits, opacity by count.

    panels: name, board, n, hit_rate (text), counts and hits (HEAT_BINS x HEAT_BINS), and optionally
    props [(name, type, polygon m)], templates [(name, polygon m)], flipped [names], thrower (x, y mm).
    `top`: the count at full opacity (the same on every page of a split figure, so pages compare)."""
    n = len(panels)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig = plt.figure(figsize=(4.2 * cols + 2.2, 4.1 * rows + 0.6), layout="constrained")
    grid = fig.add_gridspec(rows, cols + 1, width_ratios=[1.0] * cols + [0.42])
    top = top or max([float(p["counts"].max()) for p in panels] + [2.0])
    for k, p in enumerate(panels):
        ax = fig.add_subplot(grid[k // cols, k % cols])
        draw_board(ax, p["board"], palette="Greys", shades=(0.04, 0.3))  # greys under the red/blue heat
        rgba = landing_rgba(p["counts"], p["hits"], top)
        ax.imshow(
            rgba, origin="lower", extent=(-extent, extent, -extent, extent), interpolation="nearest", zorder=4
        )
        _edges(ax, p["board"])
        labelled = set()
        for name, _type, geom in p.get("props", ()):
            _outline(ax, geom, None if name in labelled else name, PROP_COLOUR, above=True, linestyle="--")
            labelled.add(name)
        for name, geom in p.get("templates", ()):
            _outline(ax, geom, name, TEMPLATE_COLOUR)
        _thrower(ax, p.get("thrower"), extent)
        ax.set_xlim(-extent, extent)
        ax.set_ylim(-extent, extent)
        ax.set_aspect("equal")
        note = f"\n+ flipped before every throw: {', '.join(p['flipped'])}" if p.get("flipped") else ""
        ax.set_title(f"{p['name']}  (n={p['n']}, hits {p['hit_rate']}){note}", fontsize=9)
        ax.set_xlabel("x (mm, throw direction →)", fontsize=8)
        ax.set_ylabel("y (mm)", fontsize=8)
        ax.tick_params(labelsize=7)
    key = fig.add_subplot(grid[0, cols])
    key.set_box_aspect(1.6)
    _key(key, top)
    for r in range(1, rows):
        fig.add_subplot(grid[r, cols]).axis("off")
    fig.legend(
        handles=_legend_handles(panels), loc="outside lower center", ncols=5, fontsize=8, frameon=False
    )
    fig.suptitle(
        f"{title}\nsquares of {2 * extent / HEAT_BINS:.0f} mm; the border squares also hold the throws that "
        "went farther",
        fontsize=10,
    )
    save_figure(fig, path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def landing_maps(
    path: Path,
    panels: list[dict[str, Any]],
    title: str,
    extent: float,
    drawing: Callable[[str], None] = lambda name: None,
) -> list[Path]:
    """Every cell's landing panel, PANELS_PER_PAGE to a file (landing.png, landing-2.png, ...), all on
    one opacity scale so the files compare; `drawing` is told each file's name as it starts (a page
    takes seconds: a run of many cells is not silent for their sum)."""
    if not panels:
        return []
    pages = _pages(panels, PANELS_PER_PAGE)
    top = max([float(p["counts"].max()) for p in panels] + [2.0])
    out = []
    for k, page in enumerate(pages):
        note = _page_note(k, len(pages), len(page), k * PANELS_PER_PAGE, len(panels))
        page_path = _page_path(path, k)
        drawing(f"{page_path.name} (page {k + 1} of {len(pages)})" if len(pages) > 1 else page_path.name)
        out.append(landing_heatmap(page_path, page, f"{title}{note}", extent, top))
    return out


def _grouped_bars(ax, cells: list[dict], key: str, categories: list[str]) -> None:
    k = len(cells)
    width = 0.8 / max(k, 1)
    x = np.arange(len(categories))
    for i, c in enumerate(cells):
        rates = [c[key].get(cat) for cat in categories]
        r = np.array([100 * (v["rate"] if v and v["rate"] is not None else 0.0) for v in rates])
        lo = np.array([100 * (v["lo"] if v and v["lo"] is not None else 0.0) for v in rates])
        hi = np.array([100 * (v["hi"] if v and v["hi"] is not None else 0.0) for v in rates])
        ax.bar(
            x - 0.4 + width * (i + 0.5),
            r,
            width,
            label=c["name"],
            yerr=np.vstack([r - lo, hi - r]),
            capsize=2,
            error_kw={"linewidth": 0.8},
        )
    ax.set_xticks(x)
    ax.set_xticklabels(categories, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("share of throws (%)")
    ax.grid(axis="y", alpha=0.3)
    if k > 1:
        ax.legend(fontsize=7, ncol=2)


def _pages(items: list, size: int) -> list[list]:
    """Consecutive pages of at most `size` items (a figure per page: nothing is left out)."""
    return [items[i : i + size] for i in range(0, len(items), size)] or [[]]


def _page_path(path: Path, page: int) -> Path:
    """figures/x.png for the first page, figures/x-2.png, x-3.png ... for the next."""
    return path if page == 0 else path.with_name(f"{path.stem}-{page + 1}{path.suffix}")


def _page_note(page: int, pages: int, shown: int, first: int, total: int) -> str:
    return (
        "" if pages == 1 else f" — part {page + 1} of {pages}: cells {first + 1}–{first + shown} of {total}"
    )


def outcome_bars(path: Path, summary: dict, conf_label: str) -> list[Path]:
    """Rate of each outcome reason per cell, with intervals; split over several files beyond
    MAX_BAR_CELLS cells (the categories are those of the whole run, so the files compare)."""
    cats = _categories(summary["variants"], "reasons")
    pages = _pages(summary["variants"], MAX_BAR_CELLS)
    out = []
    for k, cells in enumerate(pages):
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(cats) * max(1, len(cells) ** 0.5) + 2), 4.2))
        _grouped_bars(ax, cells, "reasons", cats)
        note = _page_note(k, len(pages), len(cells), k * MAX_BAR_CELLS, len(summary["variants"]))
        ax.set_title(f"Outcome reasons ({conf_label} Wilson intervals){note}", fontsize=10)
        out.append(_page_path(path, k))
        save_figure(fig, out[-1], dpi=DPI, bbox_inches="tight")
        plt.close(fig)
    return out


def section_bars(path: Path, summary: dict, conf_label: str) -> list[Path]:
    """Share of throws counted in a section of each value, per cell, with intervals (split as above)."""
    seen = {k for c in summary["variants"] for k, v in c["values"].items() if v["count"] > 0}
    cats = sorted((k for k in seen if k != "none"), key=int) + (["none"] if "none" in seen else [])
    pages = _pages(summary["variants"], MAX_BAR_CELLS)
    out = []
    for k, cells in enumerate(pages):
        fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(cats) * max(1, len(cells) ** 0.5) + 2), 4.2))
        _grouped_bars(ax, cells, "values", cats or ["none"])
        ax.set_xlabel("value of the section the die counted in ('none': no section, e.g. a miss)")
        note = _page_note(k, len(pages), len(cells), k * MAX_BAR_CELLS, len(summary["variants"]))
        ax.set_title(f"Section values ({conf_label} Wilson intervals){note}", fontsize=10)
        out.append(_page_path(path, k))
        save_figure(fig, out[-1], dpi=DPI, bbox_inches="tight")
        plt.close(fig)
    return out


def damage_bars(path: Path, summary: dict, conf_label: str) -> list[Path]:
    """Mean damage per throw of each cell with its percentile-bootstrap interval (never below 0: damage
    is never negative, and the bootstrap interval stays within the damage values thrown)."""
    pages = _pages(summary["variants"], 4 * MAX_BAR_CELLS)
    out = []
    for k, cells in enumerate(pages):
        names = [c["name"] for c in cells]
        y = np.arange(len(cells))[::-1]
        v = np.array([np.nan if c["damage"]["value"] is None else c["damage"]["value"] for c in cells], float)
        lo = np.array([np.nan if c["damage"].get("lo") is None else c["damage"]["lo"] for c in cells], float)
        hi = np.array([np.nan if c["damage"].get("hi") is None else c["damage"]["hi"] for c in cells], float)
        fig, ax = plt.subplots(figsize=(7, 1.2 + 0.32 * len(cells)))
        ax.barh(
            y,
            np.nan_to_num(v),
            color="tab:blue",
            alpha=0.75,
            xerr=[np.nan_to_num(v - lo), np.nan_to_num(hi - v)],
            capsize=3,
            error_kw={"linewidth": 0.9},
        )
        ax.set_yticks(y, names, fontsize=8)
        ax.set_xlim(left=0)
        ax.set_xlabel("mean damage per throw")
        ax.grid(axis="x", alpha=0.3)
        note = _page_note(k, len(pages), len(cells), k * 4 * MAX_BAR_CELLS, len(summary["variants"]))
        ax.set_title(f"Mean damage ({conf_label} percentile-bootstrap intervals){note}", fontsize=10)
        out.append(_page_path(path, k))
        save_figure(fig, out[-1], dpi=DPI, bbox_inches="tight")
        plt.close(fig)
    return out


def comparison(path: Path, summary: dict, conf_label: str) -> Path:
    """Paired differences against the baseline variant: hit rate (points) and mean damage."""
    diffs = summary["differences"]
    names = [d["name"] for d in diffs]
    y = np.arange(len(diffs))[::-1]
    fig, axes = plt.subplots(1, 2, figsize=(10, 1.2 + 0.45 * len(diffs)), sharey=True)
    for ax, key, scale, label in (
        (axes[0], "hit_rate", 100, "hit rate difference (percentage points)"),
        (axes[1], "damage", 1, "mean damage difference"),
    ):
        v = np.array([scale * (d[key]["value"] or 0.0) for d in diffs])
        lo = np.array(
            [scale * (d[key]["lo"] if d[key]["lo"] is not None else d[key]["value"] or 0.0) for d in diffs]
        )
        hi = np.array(
            [scale * (d[key]["hi"] if d[key]["hi"] is not None else d[key]["value"] or 0.0) for d in diffs]
        )
        colors = [
            "#2a7" if lo_ > 0 else "#c33" if hi_ < 0 else "#888" for lo_, hi_ in zip(lo, hi, strict=True)
        ]
        for vi, yi, lo_i, hi_i, col in zip(v, y, lo, hi, colors, strict=True):
            ax.errorbar([vi], [yi], xerr=[[vi - lo_i], [hi_i - vi]], fmt="o", color=col, capsize=3)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlabel(label, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(names, fontsize=8)
    base = diffs[0]["baseline"].split("@")[0] if diffs else ""
    fig.suptitle(
        f"Each variant minus '{base}' on the same throws ({conf_label} paired intervals)", fontsize=10
    )
    save_figure(fig, path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def sweep_curves(path: Path, summary: dict, conf_label: str) -> Path:
    """Hit rate and mean damage against the swept setting, one curve per variant, with bands."""
    sw = summary["sweep"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    by_variant: dict[str, list[dict]] = {}
    for r in sw["table"]:
        by_variant.setdefault(r["variant"], []).append(r)
    for name, rows in by_variant.items():
        rows = sorted(rows, key=lambda r: r["value"])
        x = np.array([r["value"] for r in rows])

        def arr(k, rows=rows):
            return np.array([np.nan if r[k] is None else r[k] for r in rows], float)

        (line,) = axes[0].plot(x, 100 * arr("hit_rate"), marker="o", label=name)
        axes[0].fill_between(x, 100 * arr("hit_lo"), 100 * arr("hit_hi"), color=line.get_color(), alpha=0.2)
        axes[1].plot(x, arr("damage_mean"), marker="o", color=line.get_color(), label=name)
        axes[1].fill_between(x, arr("damage_lo"), arr("damage_hi"), color=line.get_color(), alpha=0.2)
    axes[0].set_ylabel("hit rate (%)")
    axes[1].set_ylabel("mean damage per throw")
    for ax in axes:
        ax.set_xlabel(sw["setting"])
        ax.grid(alpha=0.3)
        if len(by_variant) > 1:
            ax.legend(fontsize=8)
    axes[0].set_ylim(0, 100)
    fig.suptitle(f"Sweep of {sw['setting']} (bands: {conf_label} intervals)", fontsize=10)
    save_figure(fig, path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def _categories(cells: list[dict], key: str) -> list[str]:
    total: dict[str, int] = {}
    for c in cells:
        for k, v in c[key].items():
            total[k] = total.get(k, 0) + v["count"]
    return [k for k, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])) if total[k] > 0] or ["none"]


def _cell_drawing(scenario) -> dict[str, Any]:
    """What a landing panel draws besides the board: props, laid and flipped templates, the thrower."""
    from sim.specs.template import PlacedTemplate, flat_pose, load_template
    from sim.world.props import prop_footprints

    laid, flipped = [], []
    counts: dict[str, int] = {}
    for setup in scenario.templates:
        spec = load_template(setup.name)
        if setup.flip:
            flipped.append(spec.name)
            continue
        counts[spec.name] = counts.get(spec.name, 0) + 1
        pos, q = flat_pose(spec, setup.x_mm, setup.y_mm, setup.yaw_deg, 0.0)
        laid.append((spec.name, PlacedTemplate(spec.name, spec, pos, q).footprint))
    rel = scenario.shot.release
    return {
        "props": prop_footprints(scenario),
        "templates": laid,
        "flipped": flipped,
        "thrower": (-rel.distance_mm, rel.lateral_mm),
    }


def _is_page(name: str) -> bool:
    """A further page of a figure drawn by `draw_figures` (landing-2.png, ...)."""
    stem, _, rest = name.partition("-")
    return (
        stem in ("landing", "outcomes", "sections", "damage")
        and rest[:-4].isdigit()
        and name.endswith(".png")
    )


def draw_figures(
    store, exp, summary: dict, drawing: Callable[[str], None] = lambda name: None
) -> list[Path]:
    """All figures for a finished run, written to OUT/figures/; returns their paths. Runs with many
    cells get several files per figure (landing.png, landing-2.png, ...), each page complete.
    `drawing` is told each figure's file name as its drawing starts (`Steps.part`)."""
    from sim.specs.scenario import Scenario

    fig_dir = store.root / "figures"
    fig_dir.mkdir(exist_ok=True)
    drawn = getattr(store, "drawn_figures", {})
    for stem in ("landing", "outcomes", "sections", "damage"):  # further pages of an earlier drawing
        for old in fig_dir.glob(f"{stem}-[0-9]*.png"):
            remove_written(old, _is_page, drawn.get(old.name))
    conf_label = f"{round(100 * exp.spec.confidence):g} %"
    out: list[Path] = []
    scenarios: dict[str, Any] = {}
    drawings: dict[str, dict[str, Any]] = {}
    for cell in exp.cells:
        if cell.key not in scenarios:
            scenarios[cell.key] = sc = Scenario.build(**cell.inputs)
            drawings[cell.key] = _cell_drawing(sc)
    extent = heat_extent([sc.board for sc in scenarios.values()])
    counts = {cell.index: np.zeros((HEAT_BINS, HEAT_BINS)) for cell in exp.cells}
    hits = {cell.index: np.zeros((HEAT_BINS, HEAT_BINS)) for cell in exp.cells}
    for c, table in store.iter_cell_batches(["x_mm", "y_mm", "result"]):
        if c in counts:
            x = table.column("x_mm").to_numpy(zero_copy_only=False)
            y = table.column("y_mm").to_numpy(zero_copy_only=False)
            hit = np.asarray(table.column("result").to_pylist(), dtype=object) == "hit"
            counts[c] += landing_counts([(x, y)], extent)
            hits[c] += landing_counts([(x[hit], y[hit])], extent)
    by_name = {v["name"]: v for v in summary["variants"]}
    panels = []
    for cell in exp.cells:
        s = by_name.get(cell.name)
        if s is None:
            continue
        hr = s["hit_rate"]
        panels.append(
            {
                "name": cell.name,
                "board": scenarios[cell.key].board,
                "n": s["n"],
                "counts": counts[cell.index],
                "hits": hits[cell.index],
                "hit_rate": f"{100 * hr['rate']:.0f} %" if hr["rate"] is not None else "–",
                **drawings[cell.key],
            }
        )
    title = f"{exp.name}: where the die came to rest"
    out += landing_maps(fig_dir / "landing.png", panels, title, extent, drawing)
    drawing("outcomes.png")
    out += outcome_bars(fig_dir / "outcomes.png", summary, conf_label)
    drawing("sections.png")
    out += section_bars(fig_dir / "sections.png", summary, conf_label)
    drawing("damage.png")
    out += damage_bars(fig_dir / "damage.png", summary, conf_label)
    if summary["differences"]:
        drawing("comparison.png")
        out.append(comparison(fig_dir / "comparison.png", summary, conf_label))
    if summary["sweep"]:
        drawing("sweep.png")
        out.append(sweep_curves(fig_dir / "sweep.png", summary, conf_label))
    return out
