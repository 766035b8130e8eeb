"""How hard a fight is, over many fights: outcome rates, costs, distributions, paired differences.

`summarize` serves `dfsim fight --fights N` (a list of `FightResult`s); `summarize_fights` writes a
fight experiment's summary.json (schema `dfsim-fight-summary/1`, docs/experiments.md) from its
records, one cell at a time; `write_fight_report` its report.md. Rates carry Wilson intervals,
means t intervals; variants are compared on paired fights (fight k of every variant draws the same
random numbers): Newcombe's paired interval for the win rate, paired t for costs.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.engine.run_folder import REPORT, SUMMARY
from sim.experiments.statistics import mean_interval, paired_mean_difference, paired_rate_difference, wilson
from sim.experiments.store import Store, write_json
from sim.files import write_atomic
from sim.formatting import estimate_text as _num
from sim.formatting import rate_text as _pct

FIGHT_SUMMARY_SCHEMA = "dfsim-fight-summary/1"
OUTCOMES = ("won", "lost", "backed-down", "unfinished")
COSTS = ("rounds", "throws", "hero_damage", "white_dice_used", "retrievals", "fainted", "scars", "gold")
QUANTILES = (10, 25, 50, 75, 90)
SURVIVAL_HORIZON = 60  # throws shown in the survival curve at most
RECORD_COLUMNS = [
    "index",
    "outcome",
    "won",
    "epic_shot",
    "lost_reason",
    "monster_life_start",
    "life_by_throw",
    *COSTS,
]


def _outcome_stats(df: pd.DataFrame, confidence: float = 0.95) -> dict[str, Any]:
    """Outcome rates (Wilson) and mean costs (t) of a table of fight records."""
    n = len(df)
    out: dict[str, Any] = {"n": n}
    for k in OUTCOMES:
        out[k.replace("-", "_")] = wilson(int((df["outcome"] == k).sum()), n, confidence).as_dict()
    out["epic_shot"] = wilson(int(df["epic_shot"].astype(bool).sum()), n, confidence).as_dict()
    for k in COSTS:
        x = df[k].to_numpy(float)
        out[k] = (
            mean_interval(x, confidence).as_dict() if n > 1 else {"value": float(x.mean()) if n else None}
        )
    reasons = df.loc[df["lost_reason"].astype(str) != "", "lost_reason"].astype(str).value_counts()
    out["lost_reasons"] = {str(k): int(v) for k, v in reasons.items()}
    return out


def summarize(results: list, confidence: float = 0.95) -> dict[str, Any]:
    """How hard the fight is, over many `FightResult`s: outcome rates (Wilson) and mean costs (t)."""
    return _outcome_stats(pd.DataFrame([r.record() for r in results]), confidence)


def _distribution(x: np.ndarray, confidence: float) -> dict[str, Any]:
    """Mean (t), quantiles and the count of every value of an integer quantity."""
    if x.size == 0:
        return {"n": 0, "mean": None, "quantiles": {}, "counts": {}}
    values, counts = np.unique(x.astype(int), return_counts=True)
    return {
        "n": int(x.size),
        "mean": mean_interval(x.astype(float), confidence).as_dict()
        if x.size > 1
        else {"value": float(x.mean())},
        "quantiles": {str(q): float(np.percentile(x, q)) for q in QUANTILES},
        "counts": {str(int(v)): int(c) for v, c in zip(values, counts, strict=True)},
    }


def life_matrix(start: np.ndarray, life_by_throw, horizon: int) -> np.ndarray:
    """Monster life after throw t (t = 0..horizon) of every fight: the start life, then the life
    after each throw; a finished fight keeps its last value."""
    n = len(start)
    m = np.empty((n, horizon + 1), dtype=float)
    m[:, 0] = start
    for i, lives in enumerate(life_by_throw):
        lives = np.asarray(lives if lives is not None else [], dtype=float)[:horizon]
        k = lives.size
        m[i, 1 : k + 1] = lives
        m[i, k + 1 :] = lives[-1] if k else start[i]
    return m


def _survival(start: np.ndarray, life_by_throw, throws: np.ndarray) -> dict[str, Any]:
    horizon = int(min(SURVIVAL_HORIZON, max(1, int(throws.max()) if throws.size else 1)))
    m = life_matrix(start, life_by_throw, horizon)
    alive = m > 0
    left = np.maximum(m, 0)
    return {
        "throw": list(range(horizon + 1)),
        "alive": alive.mean(axis=0).round(6).tolist(),
        "life_mean": left.mean(axis=0).round(4).tolist(),
        **{f"life_p{q}": np.percentile(left, q, axis=0).round(4).tolist() for q in (25, 50, 75)},
    }


def summarize_fights(store: Store, exp) -> dict[str, Any]:
    """summary.json of a finished fight experiment (written, and returned)."""
    spec = exp.spec
    conf = spec.confidence
    cells_out: list[dict[str, Any]] = []
    paired: dict[int, dict[str, np.ndarray]] = {}
    for c, table in store.iter_cell_columns(RECORD_COLUMNS):
        df = table.to_pandas()
        cell = exp.cells[c]
        won = df["won"].to_numpy(bool)
        throws = df["throws"].to_numpy(int)
        s = {
            "name": cell.name,
            "variant": cell.variant,
            "fight_key": cell.key,
            "overrides": cell.overrides,
            "monster_life": int(df["monster_life_start"].iloc[0]) if len(df) else None,
            "first_index": int(df["index"].min()) if len(df) else None,
            "last_index": int(df["index"].max()) if len(df) else None,
        }
        s.update(_outcome_stats(df, conf))
        s["distributions"] = {
            "throws_to_win": _distribution(throws[won], conf),
            "hero_damage": _distribution(df["hero_damage"].to_numpy(int), conf),
        }
        s["survival"] = _survival(df["monster_life_start"].to_numpy(float), df["life_by_throw"], throws)
        cells_out.append(s)
        paired[c] = {
            "index": df["index"].to_numpy(np.int64),
            "won": won,
            "hero_damage": df["hero_damage"].to_numpy(float),
            "throws": throws.astype(float),
            "gold": df["gold"].to_numpy(float),
        }
    summary: dict[str, Any] = {
        "schema": FIGHT_SUMMARY_SCHEMA,
        "experiment": {
            "name": spec.name,
            "description": spec.description,
            "hash": exp.hash,
            "source": exp.source,
            "seed": spec.seed,
            "fights": exp.fights,
            "chunk_fights": spec.chunk_fights,
            "confidence": conf,
            "fight": exp.fight_path,
            "engine": spec.engine,
            "throws_from": spec.throws_from,
            "throws": {"name": exp.throws_name, "hash": exp.throws_hash, "folder": str(exp.throws_dir)},
            "baseline": exp.baseline,
            "curves": spec.curves,
        },
        "total_fights": int(sum(s["n"] for s in cells_out)),
        "variants": cells_out,
        "differences": _differences(exp, paired, conf),
    }
    summary = _finite(summary)
    write_json(store.root / SUMMARY, summary)
    return summary


def _differences(exp, paired: dict[int, dict[str, np.ndarray]], conf: float) -> list[dict[str, Any]]:
    """Each variant minus the baseline variant, on the fights both played (same index = same draws)."""
    base = next((c for c in exp.cells if c.variant == exp.baseline), None)
    if base is None or base.index not in paired or len(exp.cells) < 2:
        return []
    b = paired[base.index]
    out = []
    for cell in exp.cells:
        if cell.index == base.index or cell.index not in paired:
            continue
        a = paired[cell.index]
        common, xa, xb = np.intersect1d(a["index"], b["index"], assume_unique=True, return_indices=True)
        wa, wb = a["won"][xa], b["won"][xb]
        out.append(
            {
                "name": cell.name,
                "baseline": base.name,
                "n_pairs": int(common.size),
                "won": paired_rate_difference(wa, wb, conf).as_dict(),
                "hero_damage": paired_mean_difference(
                    a["hero_damage"][xa], b["hero_damage"][xb], conf
                ).as_dict(),
                "throws": paired_mean_difference(a["throws"][xa], b["throws"][xb], conf).as_dict(),
                "gold": paired_mean_difference(a["gold"][xa], b["gold"][xb], conf).as_dict(),
                "discordant": {
                    "won_only_here": int(np.sum(wa & ~wb)),
                    "won_only_baseline": int(np.sum(~wa & wb)),
                },
            }
        )
    return out


def _finite(obj: Any) -> Any:
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


def write_fight_report(store: Store, exp, summary: dict[str, Any], figures: list[Path]) -> Path:
    """report.md: win rates and costs per variant, paired differences, the figures."""
    spec = exp.spec
    pc = f"{round(100 * spec.confidence):g} %"
    lines = [f"# {spec.name}", ""]
    if spec.description:
        lines += [spec.description.strip(), ""]
    lines += [
        f"Fight `{Path(exp.fight_path).name}`, {exp.fights} fights per variant from root seed {spec.seed}; "
        "throws "
        f"resampled from the records of `{exp.throws_name}` (hash `{exp.throws_hash}`). Experiment hash "
        f"`{exp.hash}`. Intervals are {pc}: Wilson for rates, t for means, Newcombe (paired) and paired t "
        "for "
        "differences. Fight k of every variant draws the same random numbers, so differences are paired. "
        "The intervals are conditional on the recorded throws (they do not include the sampling error of "
        "the throw table itself).",
        "",
        "| variant | monster life | won | epic shot | throws | hero damage | white dice | retrievals | "
        "fainted |",
        "| --- | ---: | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for v in summary["variants"]:
        lines.append(
            f"| {v['name']} | {v['monster_life']} | {_pct(v['won'])} | {_pct(v['epic_shot'])} | "
            f"{_num(v['throws'])} | {_num(v['hero_damage'])} | {_num(v['white_dice_used'])} | "
            f"{_num(v['retrievals'])} | {_num(v['fainted'])} |"
        )
    if summary["differences"]:
        lines += [
            "",
            f"## Paired differences against `{summary['experiment']['baseline']}`",
            "",
            "| variant | pairs | won (points) | hero damage | throws | won only here / only baseline |",
            "| --- | ---: | --- | --- | --- | --- |",
        ]
        for d in summary["differences"]:
            lines.append(
                f"| {d['name']} | {d['n_pairs']} | {_num(d['won'], 100, True)} | "
                f"{_num(d['hero_damage'], 1, True)} | {_num(d['throws'], 1, True)} | "
                f"{d['discordant']['won_only_here']} / {d['discordant']['won_only_baseline']} |"
            )
    lines += [
        "",
        "## Throws to win (won fights)",
        "",
        "| variant | wins | mean | 10 % | median | 90 % |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for v in summary["variants"]:
        t = v["distributions"]["throws_to_win"]
        q = t["quantiles"]
        lines.append(
            f"| {v['name']} | {t['n']} | {_num(t['mean'])} | {q.get('10', '–')} | {q.get('50', '–')} | "
            f"{q.get('90', '–')} |"
        )
    if figures:
        lines += ["", "## Figures", ""]
        for f in figures:
            lines += [f"![{f.stem}]({f.relative_to(store.root).as_posix()})", ""]
    lines += [
        "",
        "Files: `records.parquet` (one row per fight), `summary.json` (see docs/experiments.md), "
        "`experiment.resolved.json` (every variant's resolved fight).",
        "",
    ]
    return write_atomic(store.root / REPORT, "\n".join(lines))
