"""Figures of a run, as PNG files a user can post: where dice land, what happened, what differs.

Drawn with matplotlib's Agg backend (no display needed). The board is drawn from the BoardSpec's own
geometry (the same shapes the classifier uses), so the picture shows the board the run simulated.
Every figure works from summary.json plus, for the heat map, the x/y columns of the records.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402
from matplotlib.patches import PathPatch  # noqa: E402
from matplotlib.path import Path as MplPath  # noqa: E402

MAX_PANELS = 12
MAX_BAR_CELLS = 10
DPI = 110


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


def draw_board(ax, board, labels: bool = True, alpha: float = 1.0) -> None:
    """Outline, sections shaded by value with their values, printed bones, and holes."""
    if board is None:
        return
    values = [s.value for s in board.sections] or [0]
    vmin, vmax = min(values), max(values)
    cmap = plt.get_cmap("Oranges")
    outline = board.outline_geom
    p = _patch(outline, facecolor="#f4efe6", edgecolor="none", zorder=0, alpha=alpha)
    if p:
        ax.add_patch(p)
    for s in board.sections:  # painter's order, as the board spec layers them
        g = s.shape.geometry().intersection(outline)
        t = 0.15 + 0.6 * ((s.value - vmin) / (vmax - vmin) if vmax > vmin else 0.5)
        p = _patch(g, facecolor=cmap(t), edgecolor="#7a5c3e", linewidth=0.6, zorder=1, alpha=alpha)
        if p:
            ax.add_patch(p)
    for b in board.bones:
        p = _patch(b.shape.geometry().intersection(outline), facecolor="#d9d9d9", edgecolor="#555555",
                   hatch="////", linewidth=0.6, zorder=2, alpha=alpha)
        if p:
            ax.add_patch(p)
    for g in board.hole_geoms:
        p = _patch(g, facecolor="white", edgecolor="black", linewidth=0.8, zorder=2)
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
            ax.text(pt.x * 1e3, pt.y * 1e3, str(s.value), ha="center", va="center", fontsize=7,
                    color="#3b2a1a", zorder=6, fontweight="bold")


# ----------------------------------------------------------------------------------------------
# figures


HEAT_BINS = 64  # square bins across the plotted square


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


def landing_heatmap(path: Path, panels: list[dict[str, Any]], title: str, extent: float) -> Path:
    """Rest positions over the board, one panel per cell. panels: name, board, n, hit_rate, counts."""
    n = len(panels)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols + 1.2, 4.0 * rows + 0.4), squeeze=False,
                             layout="constrained")
    top = max([float(p["counts"].max()) for p in panels] + [2.0])
    norm = LogNorm(vmin=1, vmax=top)  # one colour scale for every panel, so panels compare
    mesh = None
    for ax, p in zip(axes.flat, panels, strict=False):
        draw_board(ax, p["board"])
        edges = np.linspace(-extent, extent, p["counts"].shape[0] + 1)
        c = np.ma.masked_less(p["counts"].T, 1)
        mesh = ax.pcolormesh(edges, edges, c, cmap="viridis", norm=norm, alpha=0.85, zorder=4, linewidth=0)
        ax.set_xlim(-extent, extent)
        ax.set_ylim(-extent, extent)
        ax.set_aspect("equal")
        ax.set_title(f"{p['name']}  (n={p['n']}, hits {p['hit_rate']})", fontsize=9)
        ax.set_xlabel("x (mm, throw direction →)", fontsize=8)
        ax.set_ylabel("y (mm)", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    if mesh is not None:
        cb = fig.colorbar(mesh, ax=axes.ravel().tolist(), shrink=0.8)
        cb.set_label(f"throws resting in each {2 * extent / HEAT_BINS:.0f} mm square (log scale; border\n"
                     "squares also hold the throws that went farther)", fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def _grouped_bars(ax, cells: list[dict], key: str, categories: list[str]) -> None:
    k = len(cells)
    width = 0.8 / max(k, 1)
    x = np.arange(len(categories))
    for i, c in enumerate(cells):
        rates = [c[key].get(cat) for cat in categories]
        r = np.array([100 * (v["rate"] if v and v["rate"] is not None else 0.0) for v in rates])
        lo = np.array([100 * (v["lo"] if v and v["lo"] is not None else 0.0) for v in rates])
        hi = np.array([100 * (v["hi"] if v and v["hi"] is not None else 0.0) for v in rates])
        ax.bar(x - 0.4 + width * (i + 0.5), r, width, label=c["name"],
               yerr=np.vstack([r - lo, hi - r]), capsize=2, error_kw={"linewidth": 0.8})
    ax.set_xticks(x)
    ax.set_xticklabels(categories, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("share of throws (%)")
    ax.grid(axis="y", alpha=0.3)
    if k > 1:
        ax.legend(fontsize=7, ncol=2)


def outcome_bars(path: Path, summary: dict, conf_label: str) -> Path:
    """Rate of each outcome reason per cell, with intervals."""
    cells = _pick(summary["variants"], MAX_BAR_CELLS)
    cats = _categories(cells, "reasons")
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(cats) * max(1, len(cells) ** 0.5) + 2), 4.2))
    _grouped_bars(ax, cells, "reasons", cats)
    ax.set_title(f"Outcome reasons ({conf_label} Wilson intervals){_shown(summary, cells)}", fontsize=10)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def section_bars(path: Path, summary: dict, conf_label: str) -> Path:
    """Share of throws counted in a section of each value, per cell, with intervals."""
    cells = _pick(summary["variants"], MAX_BAR_CELLS)
    seen = {k for c in cells for k, v in c["values"].items() if v["count"] > 0}
    cats = sorted((k for k in seen if k != "none"), key=int) + (["none"] if "none" in seen else [])
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(cats) * max(1, len(cells) ** 0.5) + 2), 4.2))
    _grouped_bars(ax, cells, "values", cats or ["none"])
    ax.set_xlabel("value of the section the die counted in ('none': no section, e.g. a miss)")
    ax.set_title(f"Section values ({conf_label} Wilson intervals){_shown(summary, cells)}", fontsize=10)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def comparison(path: Path, summary: dict, conf_label: str) -> Path:
    """Paired differences against the baseline variant: hit rate (points) and mean damage."""
    diffs = summary["differences"]
    names = [d["name"] for d in diffs]
    y = np.arange(len(diffs))[::-1]
    fig, axes = plt.subplots(1, 2, figsize=(10, 1.2 + 0.45 * len(diffs)), sharey=True)
    for ax, key, scale, label in ((axes[0], "hit_rate", 100, "hit rate difference (percentage points)"),
                                  (axes[1], "damage", 1, "mean damage difference")):
        v = np.array([scale * (d[key]["value"] or 0.0) for d in diffs])
        lo = np.array([scale * (d[key]["lo"] if d[key]["lo"] is not None else d[key]["value"] or 0.0) for d in diffs])
        hi = np.array([scale * (d[key]["hi"] if d[key]["hi"] is not None else d[key]["value"] or 0.0) for d in diffs])
        colors = ["#2a7" if lo_ > 0 else "#c33" if hi_ < 0 else "#888" for lo_, hi_ in zip(lo, hi, strict=True)]
        for vi, yi, lo_i, hi_i, col in zip(v, y, lo, hi, colors, strict=True):
            ax.errorbar([vi], [yi], xerr=[[vi - lo_i], [hi_i - vi]], fmt="o", color=col, capsize=3)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlabel(label, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(names, fontsize=8)
    base = diffs[0]["baseline"].split("@")[0] if diffs else ""
    fig.suptitle(f"Each variant minus '{base}' on the same throws ({conf_label} paired intervals)", fontsize=10)
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
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
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def _categories(cells: list[dict], key: str) -> list[str]:
    total: dict[str, int] = {}
    for c in cells:
        for k, v in c[key].items():
            total[k] = total.get(k, 0) + v["count"]
    return [k for k, _ in sorted(total.items(), key=lambda kv: (-kv[1], kv[0])) if total[k] > 0] or ["none"]


def _pick(items: list, k: int) -> list:
    if len(items) <= k:
        return list(items)
    idx = np.unique(np.linspace(0, len(items) - 1, k).round().astype(int))
    return [items[i] for i in idx]


def _shown(summary: dict, cells: list) -> str:
    n = len(summary["variants"])
    return "" if len(cells) == n else f" — {len(cells)} of {n} cells"


def draw_figures(store, exp, summary: dict) -> list[Path]:
    """All figures for a finished run, written to OUT/figures/; returns their paths."""
    from sim.specs.scenario import Scenario

    fig_dir = store.root / "figures"
    fig_dir.mkdir(exist_ok=True)
    conf_label = f"{round(100 * exp.spec.confidence):g} %"
    out: list[Path] = []
    picked = [c for c in _pick(exp.cells, MAX_PANELS)]
    boards: dict[str, Any] = {}
    for cell in picked:
        if cell.key not in boards:
            boards[cell.key] = Scenario.build(**cell.inputs).board
    extent = heat_extent(list(boards.values()))
    counts = {cell.index: np.zeros((HEAT_BINS, HEAT_BINS)) for cell in picked}
    for c, table in store.iter_cell_batches(["x_mm", "y_mm"]):
        if c in counts:
            xy = (table.column("x_mm").to_numpy(zero_copy_only=False), table.column("y_mm").to_numpy(zero_copy_only=False))
            counts[c] += landing_counts([xy], extent)
    by_name = {v["name"]: v for v in summary["variants"]}
    panels = []
    for cell in picked:
        s = by_name[cell.name]
        hr = s["hit_rate"]
        panels.append({"name": cell.name, "board": boards[cell.key], "n": s["n"], "counts": counts[cell.index],
                       "hit_rate": f"{100 * hr['rate']:.0f} %" if hr["rate"] is not None else "–"})
    if panels:
        shown = "" if len(panels) == len(exp.cells) else f" — {len(panels)} of {len(exp.cells)} cells"
        out.append(landing_heatmap(fig_dir / "landing.png", panels, f"{exp.name}: where the die came to rest{shown}",
                                   extent))
    out.append(outcome_bars(fig_dir / "outcomes.png", summary, conf_label))
    out.append(section_bars(fig_dir / "sections.png", summary, conf_label))
    if summary["differences"]:
        out.append(comparison(fig_dir / "comparison.png", summary, conf_label))
    if summary["sweep"]:
        out.append(sweep_curves(fig_dir / "sweep.png", summary, conf_label))
    return out
