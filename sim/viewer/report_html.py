"""report.html: the run report as one interactive page - tables, figures, and throws to watch.

Written beside report.md at the end of every run (and again by `dfsim report-html`). It holds the
summary tables, the run's figures (embedded), and per cell a landing map: every throw's rest
position as a faint dot (up to MAX_DOTS per cell) and a sample of throws as large dots; clicking one
plays that throw in the 3-D viewer of the replay pages. Only the sample's trajectories are in the
page, and they are not stored by the run: they are computed here, at report time, by replaying each
sampled throw's recorded release (sim/viewer/runs.py, checked against its record), so a run costs
no extra disk and the page stays small (about 0.3 MB plus ~4 kB per sampled throw and the figures).

The sample is chosen to show what happens, not just the commonest case: throws are grouped by
outcome reason (hit, off-board, in-hole, ...), and taken round-robin over the groups (most frequent
first), lowest throw index first within a group.
"""

from __future__ import annotations

import base64
import html
import sys
from pathlib import Path
from typing import Any

import numpy as np

from sim.engine.run_folder import FIGURE_DIR, REPORT_HTML, SUMMARY, RunFolder
from sim.errors import SpecError
from sim.files import write_atomic
from sim.formatting import estimate_text as _num
from sim.formatting import rate_text as _pct
from sim.viewer.page import page_html
from sim.viewer.scene import board_json, scene_json, throw_json

DEFAULT_SAMPLE = 20  # throws replayed and embedded per cell
MAX_DOTS = 2000  # faint landing dots per cell (evenly spaced in throw order beyond that)
MAX_CELLS_REPLAYED = 12  # cells beyond this get a landing map but no replays (keeps report time bounded)
SAMPLE_COLUMNS = ["cell", "index", "result", "reason", "x_mm", "y_mm", "section", "value", "face", "damage"]


def choose_sample(df, n: int) -> list[int]:
    """Row positions of up to n throws: round-robin over outcome reasons, most frequent reason first,
    lowest throw index first within a reason. Deterministic."""
    if n <= 0 or len(df) == 0:
        return []
    groups = []
    for reason, g in df.groupby("reason", sort=False):
        groups.append((-len(g), str(reason), list(g.sort_values("index").index)))
    groups.sort()
    out: list[int] = []
    k = 0
    while len(out) < n and any(k < len(g[2]) for g in groups):
        for g in groups:
            if k < len(g[2]) and len(out) < n:
                out.append(g[2][k])
        k += 1
    return out


def _esc(x: Any) -> str:
    return html.escape(str(x))


def _tables(summary: dict[str, Any]) -> str:
    exp = summary["experiment"]
    pc = f"{round(100 * exp.get('confidence', 0.95)):g} %"
    parts = []
    if exp.get("description"):
        parts.append(f"<p>{_esc(exp['description'].strip())}</p>")
    parts.append(
        f"<p>Experiment hash <code>{_esc(exp['hash'])}</code>, root seed {_esc(exp['seed'])}, "
        f"{summary['total_throws']} throws in {len(summary['variants'])} cell(s). Intervals are {pc}: Wilson "
        "for rates, percentile bootstrap for mean damage (never below 0), Newcombe (paired) and paired t for "
        "differences. Every cell uses the "
        "same random draws for throw k (common random numbers), so differences are paired.</p>"
    )
    rows = []
    for v in summary["variants"]:
        reasons = sorted(v["reasons"].items(), key=lambda kv: -kv[1]["count"])[:3]
        top = ", ".join(f"{k} {100 * r['rate']:.0f} %" for k, r in reasons)
        stop = "" if v["stopped_by"] == "throws" else f" ({v['stopped_by']})"
        rows.append(
            f"<tr><td>{_esc(v['name'])}</td><td "
            f"class=num>{v['n']}{_esc(stop)}</td><td>{_pct(v['hit_rate'])}</td>"
            f"<td>{_num(v['damage'])}</td><td>{_pct(v['insta_kill'])}</td><td>{_esc(top)}</td></tr>"
        )
    parts.append(
        "<h2>Summary</h2><table class=summary><tr><th>cell</th><th>n</th><th>hit rate</th><th>mean "
        "damage</th>"
        "<th>insta-kill</th><th>top reasons</th></tr>" + "".join(rows) + "</table>"
    )
    if summary.get("differences"):
        base = summary["differences"][0]["baseline"].split("@")[0]
        rows = [
            f"<tr><td>{_esc(d['name'])}</td><td "
            f"class=num>{d['n_pairs']}</td><td>{_num(d['hit_rate'], 100, True)}</td>"
            f"<td>{_num(d['damage'], 1, True)}</td></tr>"
            for d in summary["differences"]
        ]
        parts.append(
            f"<h2>Paired differences against <code>{_esc(base)}</code></h2><table "
            "class=summary><tr><th>cell</th>"
            "<th>pairs</th><th>hit rate (points)</th><th>mean damage</th></tr>" + "".join(rows) + "</table>"
        )
    if summary.get("sweep"):
        sw = summary["sweep"]
        rows = []
        for r in sw["table"]:
            hr = {"rate": r["hit_rate"], "lo": r["hit_lo"], "hi": r["hit_hi"]}
            dm = {"value": r["damage_mean"], "lo": r["damage_lo"], "hi": r["damage_hi"]}
            rows.append(
                f"<tr><td>{_esc(r['variant'])}</td><td class=num>{r['value']:g}</td><td "
                f"class=num>{r['n']}</td>"
                f"<td>{_pct(hr)}</td><td>{_num(dm)}</td></tr>"
            )
        parts.append(
            f"<h2>Sweep of <code>{_esc(sw['setting'])}</code></h2><table class=summary><tr><th>variant</th>"
            "<th>value</th><th>n</th><th>hit rate</th><th>mean damage</th></tr>" + "".join(rows) + "</table>"
        )
    return "\n".join(parts)


def _svg_path(polys: list[dict[str, Any]]) -> str:
    """Page polygons (mm) as an SVG path in the map frame: the thrower on the left (x right, y up), as in
    the run's landing figure."""
    d = []
    for p in polys:
        for ring in [p["ext"], *p["holes"]]:
            d.append("M" + "L".join(f"{x:.1f},{-y:.1f}" for x, y in ring) + "Z")
    return " ".join(d)


def landing_svg(
    board: dict[str, Any] | None, xy_mm: np.ndarray, samples: list[dict[str, Any]], extent: float
) -> str:
    """A top view of the board (thrower on the left, as in figures/landing.png) with every rest position
    and the sample's dots."""
    e = extent
    parts = [
        f'<svg viewBox="{-e:.0f} {-e:.0f} {2 * e:.0f} {2 * e:.0f}" xmlns="http://www.w3.org/2000/svg" '
        'role="img">',
        f'<rect x="{-e:.0f}" y="{-e:.0f}" width="{2 * e:.0f}" height="{2 * e:.0f}" fill="#8d6e63" '
        'opacity="0.35"/>',
    ]
    if board is not None:
        parts.append(
            f'<path d="{_svg_path(board["surface"])}" fill="#f4efe6" fill-rule="evenodd" stroke="#222" '
            'stroke-width="1.5"/>'
        )
        for r in board["regions"]:
            parts.append(
                f'<path d="{_svg_path(r["polys"])}" fill="{r["colour"]}" fill-rule="evenodd" '
                'stroke="#7a5c3e" stroke-width="0.8"/>'
            )
            if r["kind"] == "section":
                for x, y, s in r["labels"]:
                    parts.append(
                        f'<text x="{x:.1f}" y="{-y:.1f}" font-size="{max(10, min(s, 30)):.0f}" '
                        'text-anchor="middle" '
                        'dominant-baseline="central" fill="#3b2a1a" font-weight="bold" '
                        f'font-family="sans-serif">{r["value"]}</text>'
                    )
        for h in board["holes"]:
            parts.append(f'<path d="{_svg_path(h["polys"])}" fill="#6b4f35" stroke="#111" stroke-width="1"/>')
    if len(xy_mm):
        xy = np.clip(np.asarray(xy_mm, float), -e * 0.99, e * 0.99)
        parts.append(
            '<g class="bg">' + "".join(f'<circle cx="{x:.0f}" cy="{-y:.0f}" r="3"/>' for x, y in xy) + "</g>"
        )
    for s in samples:
        x, y = np.clip([s["x_mm"], s["y_mm"]], -e * 0.99, e * 0.99)
        parts.append(
            f'<circle class="sample {_esc(s["result"])}" data-throw="{_esc(s["id"])}" cx="{x:.1f}" '
            f'cy="{-y:.1f}" r="9">'
            f"<title>{_esc(s['title'])}</title></circle>"
        )
    parts.append(
        f'<text x="{-e + 10:.0f}" y="{-e + 30:.0f}" font-size="22" text-anchor="start" fill="#1d2731" '
        'font-family="sans-serif">← thrower</text></svg>'
    )
    return "".join(parts)


def _figure_order(path: Path) -> tuple[str, int]:
    """landing.png, landing-2.png, ..., landing-10.png: a figure split over files keeps its order."""
    stem, _, page = path.stem.rpartition("-")
    return (stem, int(page)) if stem and page.isdigit() else (path.stem, 1)


def _figures(root: Path) -> str:
    figs = (
        sorted((root / FIGURE_DIR).glob("*.png"), key=_figure_order) if (root / FIGURE_DIR).is_dir() else []
    )
    if not figs:
        return ""
    imgs = [
        f'<figure><img alt="{_esc(f.stem)}" '
        f'src="data:image/png;base64,{base64.b64encode(f.read_bytes()).decode()}">'
        f"<figcaption>{_esc(f.name)}</figcaption></figure>"
        for f in figs
    ]
    return '<h2>Figures</h2><div class="figures">' + "".join(imgs) + "</div>"


def build_report_html(root: str | Path, sample: int = DEFAULT_SAMPLE, log=None, replayed=None) -> str:
    """The page for a finished run folder (summary.json, experiment.resolved.json, records.parquet);
    `replayed` (a progress bar: add, update) counts the throws replayed into it."""
    from sim.errors import ReplayMismatch
    from sim.specs.scenario import Scenario
    from sim.viewer.runs import replay_record

    run = RunFolder.open(root, "RESULTS", (SUMMARY,), kind="throws", command="report-html")
    root = run.root
    summary = run.summary()
    scenes: dict[str, Any] = {}
    cells_data, maps, tabs, notes = [], [], [], []
    for ci, cell in enumerate(run.cells):
        df = run.records(SAMPLE_COLUMNS, cell=int(cell["index"])).to_pandas()
        try:
            sc = Scenario.build(**cell["inputs"], source=run.source)
            board = board_json(sc.board)
        except SpecError as exc:
            sc, board = None, None
            notes.append(f"cell {cell['name']}: cannot rebuild its scenario ({exc})")
        n_replay = sample if ci < MAX_CELLS_REPLAYED else 0
        picks = choose_sample(df, n_replay) if sc is not None and "reason" in df else []
        if replayed is not None:
            replayed.add(len(picks))
        throws, samples = [], []
        if picks:
            try:
                th = run.thrower(cell)
            except SpecError as exc:
                th = None
                notes.append(f"cell {cell['name']}: no replays ({exc.problem})")
            if th is not None:
                scene = scene_json(th)
                scenes.setdefault(scene["key"], scene)
                wanted = [int(df.loc[pos, "index"]) for pos in picks]
                full = run.records(cell=int(cell["index"]), indices=wanted).to_pandas()
                by_index = full.set_index("index", drop=False)
                for pos in picks:
                    k = int(df.loc[pos, "index"])
                    rec = by_index.loc[k].to_dict()
                    try:
                        res, traj = replay_record(th, rec)
                        if replayed is not None:
                            replayed.update()
                    except ReplayMismatch as exc:
                        cols_ = ", ".join(line.split(":")[0].strip() for line in str(exc).splitlines()[1:])
                        notes.append(
                            f"cell {cell['name']}: throw {k} replayed differently from its record ({cols_}); "
                            "not shown (see docs/viewer.md, 'When a replay differs')"
                        )
                        continue
                    tid = f"c{cell['index']}-{k}"
                    t = throw_json(traj, res, label=f"{cell['name']} throw {k}")
                    t["id"] = tid
                    throws.append(t)
                    o = res.outcome
                    samples.append(
                        {
                            "id": tid,
                            "x_mm": o.position_mm[0],
                            "y_mm": o.position_mm[1],
                            "result": o.result,
                            "title": f"throw {k}: {o.result} ({o.reason})"
                            + (f", section {o.value}" if o.section else ""),
                        }
                    )
                cells_data.append({"name": cell["name"], "scene": scene["key"], "throws": throws})
        xy = (
            df[["x_mm", "y_mm"]].to_numpy(float)
            if len(df) and {"x_mm", "y_mm"} <= set(df)
            else np.zeros((0, 2))
        )
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if len(xy) > MAX_DOTS:
            xy = xy[np.linspace(0, len(xy) - 1, MAX_DOTS).astype(int)]
        extent = (board or {}).get("radius_mm", 300.0) * 1.35
        hidden = "" if ci == 0 else " hidden"
        caption = (
            f"{len(df)} throws; {len(throws)} replayable (large dots: click to watch)"
            if throws
            else f"{len(df)} throws; no replays in this page"
            + ("" if n_replay else f" (cells beyond the first {MAX_CELLS_REPLAYED} are not replayed)")
        )
        maps.append(
            f'<div class="landing" data-cell="{_esc(cell["name"])}"{hidden}>'
            f"{landing_svg(board, xy, samples, extent)}<p>{_esc(caption)}</p></div>"
        )
        tabs.append(
            "<button "
            f'data-cell="{_esc(cell["name"])}"{" class=on" if ci == 0 else ""}>{_esc(cell["name"])}</button>'
        )
        if log is not None:
            log(f"report.html: cell {cell['name']}: {len(throws)} throws replayed")
    how = (
        f"Up to {sample} throws per cell are replayed into this page (their releases are in records.parquet; "
        "each replay is checked against its record), chosen round-robin over outcome reasons, lowest throw "
        "index "
        "first. Replay any other throw with <code>dfsim replay RUN --cell NAME --index K</code>."
        if sample > 0
        else "No throws were replayed into this page (run <code>dfsim report-html RUN</code> to add them)."
    )
    note_html = "".join(f"<p class=note>{_esc(n)}</p>" for n in notes)
    body = (
        _tables(summary) + f'<h2>Throws</h2><p>{how}</p>{note_html}<div class="throws"><div><div '
        f'class="cell-tabs">{"".join(tabs)}</div>'
        + "".join(maps)
        + '</div><div><h3 id="viewer-title"></h3><div id="viewer"></div></div></div>'
        + _figures(root)
    )
    data = {"kind": "report", "scenes": scenes, "cells": cells_data}
    title = f"dfsim report: {summary['experiment']['name']}"
    return page_html(title, body, data, subtitle=f"{summary['total_throws']} simulated throws")


def rewrite_report_html(root: str | Path, sample: int = DEFAULT_SAMPLE, replayed=None) -> Path:
    """Write a run's report.html atomically, with `sample` replayed throws per cell; returns its path.
    `replayed`: a progress bar (add, update) counting the replays as they are made."""
    root = Path(root)
    text = build_report_html(root, sample, replayed=replayed)
    return write_atomic(root / REPORT_HTML, text)


def write_report_html(root: str | Path, sample: int = DEFAULT_SAMPLE, replayed=None) -> Path | None:
    """The runner's hook: write report.html. A fault of the environment (a full disk, a file-size
    limit: OSError) fails the run like any other write, so it never ends with exit 0 and a missing
    page; the manifest is not yet "complete", so a rerun writes it again. Any other failure here is
    reported and leaves the finished run as it is."""
    try:
        return rewrite_report_html(root, sample, replayed)
    except OSError:
        raise
    except Exception as exc:  # the records and report.md are already written; say so and go on
        sys.stderr.write(f"dfsim: report.html not written: {type(exc).__name__}: {exc}\n")
        return None
