"""summary.json and report.md: the statistics of a finished run, in a stable, documented shape.

The summary is computed by reading only the columns it needs, one cell at a time, from the final
records file, so memory stays small however many throws there are. docs/experiments.md documents
every key; bump SUMMARY_SCHEMA when a key changes meaning or disappears.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.engine.run_folder import REPORT, SUMMARY
from sim.experiments.statistics import (
    bootstrap_mean_from_counts,
    paired_mean_difference,
    paired_rate_difference,
    rate_mask,
    rates_from_counts,
    wilson,
)
from sim.experiments.store import Store, write_json
from sim.files import write_atomic
from sim.formatting import estimate_text as _num
from sim.formatting import rate_text as _pct

SUMMARY_SCHEMA = "dfsim-summary/1"
COLUMNS = ["index", "result", "reason", "section", "value", "face", "damage", "insta_kill", "cocked"]
RESULT_ORDER = ("hit", "miss")


def _labels(col: pd.Series) -> pd.Series:
    """Category labels: missing or empty values become "none"."""
    out = col.astype(object).where(col.notna(), "none").astype(str)
    return out.where(out != "", "none")


class CellStats:
    """Statistics of one cell, accumulated batch by batch: memory does not grow with the number of
    throws, apart from three small per-throw arrays kept for paired comparisons (index, hit, damage)."""

    def __init__(self, stop_rate: str | None = None) -> None:
        self.n = 0
        self.counts: dict[str, dict[str, int]] = {
            k: {} for k in ("results", "reasons", "sections", "values", "faces")
        }
        self.insta_kill = 0
        self.cocked = 0
        self.stop_rate = stop_rate
        self.stop_count = 0
        self._index: list[np.ndarray] = []
        self._hit: list[np.ndarray] = []
        self._damage: list[np.ndarray] = []

    def add(self, df: pd.DataFrame) -> None:
        """Fold a chunk of records into the counts and the streaming damage mean/variance (memory does not
        grow with the run; the result does not depend on chunk sizes beyond rounding)."""
        m = len(df)
        if m == 0:
            return
        hit = (df["result"] == "hit").to_numpy(bool)
        dmg = df["damage"].to_numpy(float)
        section = _labels(df["section"])
        value = (
            pd.to_numeric(df["value"], errors="coerce")
            if "value" in df
            else pd.Series(np.nan, index=df.index)
        )
        counted = (section != "none") & value.notna() & (value >= 0)
        value_label = pd.Series(
            [str(int(v)) if ok else "none" for v, ok in zip(value.fillna(-1), counted, strict=True)],
            index=df.index,
        )
        for key, col in (
            ("results", _labels(df["result"])),
            ("reasons", _labels(df["reason"])),
            ("sections", section),
            ("values", value_label),
            ("faces", _labels(df["face"])),
        ):
            acc = self.counts[key]
            for label, count in col.value_counts(sort=False).items():
                acc[label] = acc.get(label, 0) + int(count)
        self.insta_kill += int(df["insta_kill"].fillna(False).astype(bool).sum())
        self.cocked += int(df["cocked"].fillna(False).astype(bool).sum())
        if self.stop_rate is not None:
            self.stop_count += int(rate_mask(df, self.stop_rate).sum())
        self.n += m
        self._index.append(df["index"].to_numpy(np.int64))
        self._hit.append(hit)
        self._damage.append(dmg)

    def paired(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(throw index, hit, damage) of every throw, for paired differences."""
        if not self._index:
            return np.zeros(0, np.int64), np.zeros(0, bool), np.zeros(0)
        return np.concatenate(self._index), np.concatenate(self._hit), np.concatenate(self._damage)

    def damage(self, confidence: float):
        """Mean damage per throw with its percentile-bootstrap interval (never below 0; see statistics)."""
        values, counts = np.unique(self.paired()[2], return_counts=True)
        return bootstrap_mean_from_counts(values, counts, confidence)

    def summary(self, confidence: float) -> dict[str, Any]:
        """The cell's rates with Wilson intervals and its mean damage with a confidence interval, at
        `confidence`."""
        n = self.n
        index = self.paired()[0]
        values = self.counts["values"]
        value_order = sorted((k for k in values if k != "none"), key=int)
        out: dict[str, Any] = {
            "n": n,
            "first_index": int(index.min()) if n else None,
            "last_index": int(index.max()) if n else None,
            "hit_rate": wilson(self.counts["results"].get("hit", 0), n, confidence).as_dict(),
            "results": _rates(self.counts["results"], n, confidence, RESULT_ORDER),
            "reasons": _rates(self.counts["reasons"], n, confidence),
            "sections": _rates(self.counts["sections"], n, confidence),
            "values": _rates(values, n, confidence, value_order),
            "faces": _rates(self.counts["faces"], n, confidence),
            "insta_kill": wilson(self.insta_kill, n, confidence).as_dict(),
            "cocked": wilson(self.cocked, n, confidence).as_dict(),
            "damage": self.damage(confidence).as_dict(),
        }
        if self.stop_rate is not None:
            out["stop_rate"] = {"rate": self.stop_rate, **wilson(self.stop_count, n, confidence).as_dict()}
        return out


def _rates(counts: dict[str, int], n: int, confidence: float, order=()) -> dict[str, Any]:
    return {k: r.as_dict() for k, r in rates_from_counts(counts, n, confidence, order).items()}


def cell_summary(df: pd.DataFrame, confidence: float = 0.95) -> dict[str, Any]:
    """Statistics of one cell's records (any DataFrame with the record columns), as in summary.json."""
    acc = CellStats()
    acc.add(df)
    return acc.summary(confidence)


def summarize(store: Store, exp, stopped: dict[str, str] | None = None) -> dict[str, Any]:
    """Compute summary.json for a finished run and write it; returns the dict."""
    spec = exp.spec
    conf = spec.confidence
    stopped = stopped or {}
    stats: dict[int, CellStats] = {}
    for c, table in store.iter_cell_batches(COLUMNS):
        acc = stats.get(c)
        if acc is None:
            acc = stats[c] = CellStats(spec.stop.rate if spec.stop else None)
        acc.add(table.to_pandas())
    cells_out: list[dict[str, Any]] = []
    paired: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # cell -> (index, hit, damage)
    for c, acc in stats.items():
        cell = exp.cells[c]
        s = {
            "name": cell.name,
            "variant": cell.variant,
            "sweep_value": cell.sweep_value,
            "scenario_key": cell.key,
            "stopped_by": stopped.get(cell.name, "throws"),
        }
        s.update(acc.summary(conf))
        cells_out.append(s)
        paired[c] = acc.paired()

    differences = _differences(exp, paired, conf)
    summary: dict[str, Any] = {
        "schema": SUMMARY_SCHEMA,
        "experiment": {
            "name": spec.name,
            "description": spec.description,
            "hash": exp.hash,
            "source": exp.source,
            "seed": spec.seed,
            "throws": spec.throws,
            "max_throws": exp.max_throws,
            "chunk_throws": spec.chunk_throws,
            "confidence": conf,
            "sweep": {"setting": spec.sweep.setting, "values": spec.sweep.grid()} if spec.sweep else None,
            "stop": spec.stop.model_dump(mode="json") if spec.stop else None,
        },
        "total_throws": int(sum(s["n"] for s in cells_out)),
        "variants": cells_out,
        "differences": differences,
        "sweep": _sweep_table(exp, cells_out) if spec.sweep else None,
    }
    write_json(store.root / SUMMARY, _finite(summary))
    return _finite(summary)


def _differences(exp, paired, conf: float) -> list[dict[str, Any]]:
    """Each variant minus the first (baseline) variant, at the same sweep value, on common throw indices."""
    out: list[dict[str, Any]] = []
    by_key = {(c.variant, c.sweep_value): c for c in exp.cells}
    variants = exp.variant_names
    if len(variants) < 2:
        return out
    base = variants[0]
    for cell in exp.cells:
        if cell.variant == base:
            continue
        b = by_key.get((base, cell.sweep_value))
        if b is None or b.index not in paired or cell.index not in paired:
            continue
        ia, ha, da = paired[cell.index]
        ib, hb, db = paired[b.index]
        common, xa, xb = np.intersect1d(ia, ib, assume_unique=True, return_indices=True)
        out.append(
            {
                "name": cell.name,
                "baseline": b.name,
                "sweep_value": cell.sweep_value,
                "n_pairs": int(common.size),
                "hit_rate": paired_rate_difference(ha[xa], hb[xb], conf).as_dict(),
                "damage": paired_mean_difference(da[xa], db[xb], conf).as_dict(),
                "discordant": {
                    "hit_only_here": int(np.sum(ha[xa] & ~hb[xb])),
                    "hit_only_baseline": int(np.sum(~ha[xa] & hb[xb])),
                },
            }
        )
    return out


def _sweep_table(exp, cells_out: list[dict[str, Any]]) -> dict[str, Any]:
    rows = []
    for s in cells_out:
        h, d = s["hit_rate"], s["damage"]
        rows.append(
            {
                "variant": s["variant"],
                "value": s["sweep_value"],
                "n": s["n"],
                "hit_rate": h["rate"],
                "hit_lo": h["lo"],
                "hit_hi": h["hi"],
                "damage_mean": d["value"],
                "damage_lo": d["lo"],
                "damage_hi": d["hi"],
            }
        )
    return {"setting": exp.spec.sweep.setting, "values": exp.spec.sweep.grid(), "table": rows}


def _finite(obj: Any) -> Any:
    """NaN/inf are not JSON: write them as null."""
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, np.generic):
        return _finite(obj.item())
    return obj


# ----------------------------------------------------------------------------------------------
# report.md


def write_report(store: Store, exp, summary: dict[str, Any], figures: list[Path]) -> Path:
    """A short Markdown report: key table, differences, sweep table and the figures."""
    spec = exp.spec
    pc = f"{round(100 * spec.confidence):g} %"
    lines = [f"# {spec.name}", ""]
    if spec.description:
        lines += [spec.description.strip(), ""]
    lines += [
        f"Experiment hash `{exp.hash}`, root seed {spec.seed}, {summary['total_throws']} throws in "
        f"{len(exp.cells)} cell(s). Intervals are {pc}: Wilson for rates, percentile bootstrap for mean "
        "damage (never below 0), "
        "Newcombe (paired) and paired t for differences. Every cell uses the same random draws for "
        "throw k (common random numbers), so differences are paired.",
        "",
        "| cell | n | hit rate | mean damage | insta-kill | top reasons |",
        "| --- | ---: | --- | --- | --- | --- |",
    ]
    for v in summary["variants"]:
        reasons = sorted(v["reasons"].items(), key=lambda kv: -kv[1]["count"])[:3]
        top = ", ".join(f"{k} {100 * r['rate']:.0f} %" for k, r in reasons)
        stop = "" if v["stopped_by"] in ("throws",) else f" ({v['stopped_by']})"
        lines.append(
            f"| {v['name']} | {v['n']}{stop} | {_pct(v['hit_rate'])} | {_num(v['damage'])} | "
            f"{_pct(v['insta_kill'])} | {top} |"
        )
    if summary["differences"]:
        lines += [
            "",
            f"## Paired differences against `{summary['differences'][0]['baseline'].split('@')[0]}`",
            "",
            "| cell | pairs | hit rate (points) | mean damage |",
            "| --- | ---: | --- | --- |",
        ]
        for d in summary["differences"]:
            lines.append(
                f"| {d['name']} | {d['n_pairs']} | {_num(d['hit_rate'], 100, True)} | "
                f"{_num(d['damage'], 1, True)} |"
            )
    if summary["sweep"]:
        sw = summary["sweep"]
        lines += [
            "",
            f"## Sweep of `{sw['setting']}`",
            "",
            "| variant | value | n | hit rate | mean damage |",
            "| --- | ---: | ---: | --- | --- |",
        ]
        for r in sw["table"]:
            hr = {"rate": r["hit_rate"], "lo": r["hit_lo"], "hi": r["hit_hi"]}
            dm = {"value": r["damage_mean"], "lo": r["damage_lo"], "hi": r["damage_hi"]}
            lines.append(f"| {r['variant']} | {r['value']:g} | {r['n']} | {_pct(hr)} | {_num(dm)} |")
    if figures:
        lines += ["", "## Figures", ""]
        for f in figures:
            rel = f.relative_to(store.root)
            lines += [f"![{f.stem}]({rel.as_posix()})", ""]
    lines += [
        "",
        "Files: `records.parquet` (one row per throw), `summary.json` (see docs/experiments.md), "
        "`experiment.resolved.json` (every resolved input).",
        "",
    ]
    return write_atomic(store.root / REPORT, "\n".join(lines))
